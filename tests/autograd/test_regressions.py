"""Small behaviours found while building on the core, each checked against PyTorch."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle


def _identity_marked_non_differentiable(m: Any) -> bool:
    class Passthrough(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.mark_non_differentiable(x)
            return x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad

    return Passthrough.apply(m.ones(2, requires_grad=True)).requires_grad


def test_function_returning_its_input_marked_non_differentiable() -> None:
    assert _identity_marked_non_differentiable(glassgrad) == _identity_marked_non_differentiable(torch)


@pytest.mark.parametrize("name", ["bool", "float32", "int64", "float16"])
def test_dtypes_pickle_and_deepcopy_to_themselves(name: str) -> None:
    dtype = getattr(glassgrad, name)
    assert pickle.loads(pickle.dumps(dtype)) is dtype
    assert copy.deepcopy(dtype) is dtype


def test_generator_is_public() -> None:
    g = glassgrad.Generator().manual_seed(3)
    assert glassgrad.randn(2, generator=g).shape == torch.randn(2, generator=torch.Generator().manual_seed(3)).shape


def _two_outputs_of_one_node_as_roots(m: Any) -> Any:
    x = m.ones(2, requires_grad=True)
    y = x * 2
    return m.autograd.grad([y, y], [x], [m.ones(2), m.ones(2)])[0].tolist()


def test_two_roots_on_one_node_count_its_edges_once() -> None:
    assert _two_outputs_of_one_node_as_roots(glassgrad) == _two_outputs_of_one_node_as_roots(torch)


def test_gradcheck_skips_outputs_that_do_not_require_grad() -> None:
    x = glassgrad.tensor([1.0, 2.0], dtype=glassgrad.float64, requires_grad=True)
    assert glassgrad.autograd.gradcheck(lambda t: (t * t, (t * 3).detach()), (x,))


@pytest.mark.parametrize("value", [0.1, 1e-300])
def test_tensor_from_a_list_casts_once_to_the_given_dtype(value: float) -> None:
    assert glassgrad.tensor([value], dtype=glassgrad.float64).item() == torch.tensor([value], dtype=torch.float64).item()


def _second_derivative_of_tiny_product(m: Any) -> list[float]:
    x = m.tensor([1.88e-209, 1.88e-209], dtype=m.float64, requires_grad=True)
    (g,) = m.autograd.grad(x.prod(), x, create_graph=True)
    return m.autograd.grad(g.sum(), x)[0].tolist()


def test_division_gradient_does_not_underflow_where_pytorchs_does_not() -> None:
    assert _second_derivative_of_tiny_product(glassgrad) == _second_derivative_of_tiny_product(torch)


def test_set_num_threads_limits_blas_and_get_num_threads_reports_it() -> None:
    before = glassgrad.get_num_threads()
    try:
        glassgrad.set_num_threads(1)
        assert glassgrad.get_num_threads() == 1
    finally:
        glassgrad.set_num_threads(before)
    with pytest.raises(RuntimeError):
        glassgrad.set_num_threads(0)


def _anomaly_names_the_nan_op(m: Any) -> tuple[str, bool]:
    """Anomaly mode records each node's forward stack and names the node whose backward gave nan."""
    x = m.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning), m.autograd.detect_anomaly():
        y = m.sqrt(x) * 0
        try:
            y.sum().backward()
        except RuntimeError as err:
            return str(err), "traceback_" in y.grad_fn.next_functions[0][0].metadata
    return "no error", False


def test_anomaly_mode_keeps_forward_stacks_and_finds_nan() -> None:
    assert _anomaly_names_the_nan_op(glassgrad) == _anomaly_names_the_nan_op(torch)


@pytest.mark.parametrize("change", ["base", "another_view", "another_view_twice"])
def test_an_in_place_change_reaches_the_other_views_of_its_base(change: str) -> None:
    """A view taken before its base (or a sibling view) changed in place differentiates the changed values: its
    gradient was the old one, silently (PyTorch regenerates the view's grad_fn when the base's version moves)."""

    def run(m: Any) -> tuple[np.ndarray, tuple[int, ...]]:
        a = m.tensor(np.arange(6.0), requires_grad=True)
        e = a * 1.0
        f = e.view(3, 2)
        if change == "base":
            e.mul_(2)
        elif change == "another_view":
            e[0:2].mul_(3)
        else:
            g = e.view(2, 3)
            g.add_(1)
            g.mul_(2)
        (f * m.tensor(np.arange(6.0).reshape(3, 2))).sum().backward()
        return a.grad.numpy(), tuple(f.shape)

    (ours, our_shape), (theirs, their_shape) = run(glassgrad), run(torch)
    np.testing.assert_array_equal(ours, theirs)
    assert our_shape == their_shape
