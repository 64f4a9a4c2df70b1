"""What the OpInfos of the activations cannot say: rrelu's random slopes, the choices at the kinks
(where finite differences cannot judge) and the nodes of the in-place forms, against PyTorch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle


def _spread(n: int) -> np.ndarray:
    return np.random.default_rng(0).uniform(-3, 3, n)


def test_rrelu_training_draws_one_slope_per_negative_element_from_lower_to_upper() -> None:
    x = glassgrad.tensor(_spread(20000), requires_grad=True)
    out = glassgrad.nn.functional.rrelu(x, 0.1, 0.4, training=True)
    data, result = x.detach().numpy(), out.detach().numpy()
    negative = data < 0
    slopes = result[negative] / data[negative]
    assert slopes.min() >= 0.1 and slopes.max() <= 0.4
    assert abs(slopes.mean() - 0.25) < 0.005 and abs(slopes.var() - 0.3**2 / 12) < 0.001  # uniform on [0.1, 0.4]
    assert len(np.unique(slopes)) > 0.99 * len(slopes)
    np.testing.assert_array_equal(result[~negative], data[~negative])
    (grad,) = glassgrad.autograd.grad(out.sum(), x)  # the gradient is each element's own slope
    np.testing.assert_allclose(grad.numpy()[negative], slopes, rtol=1e-12)
    np.testing.assert_array_equal(grad.numpy()[~negative], 1.0)


def test_rrelu_training_draws_from_glassgrads_generator() -> None:
    x = glassgrad.tensor(-np.ones(50))
    glassgrad.manual_seed(11)
    first = glassgrad.nn.functional.rrelu(x, training=True).numpy()
    second = glassgrad.nn.functional.rrelu(x, training=True).numpy()
    glassgrad.manual_seed(11)
    assert np.array_equal(glassgrad.nn.functional.rrelu(x, training=True).numpy(), first)
    assert not np.array_equal(first, second)


def _both(fn: Any, *arrays: np.ndarray) -> list[tuple[np.ndarray, list[np.ndarray], str]]:
    """fn(m, *inputs) in PyTorch and in glassgrad: output, gradients of out.sum(), and the node's name."""
    results = []
    for m in (torch, glassgrad):
        xs = [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]
        out = fn(m, *xs)
        grads = m.autograd.grad(out.sum(), xs)
        results.append((out.detach().numpy(), [g.numpy() for g in grads], type(out.grad_fn).__name__))
    return results


AT_THE_KINKS = {
    "threshold": (lambda m, x: m.nn.functional.threshold(x, 1.0, -5.0), [np.array([-1.0, 0.0, 1.0, 2.0])]),
    "threshold_": (lambda m, x: m.nn.functional.threshold_(x.clone(), 1.0, -5.0), [np.array([-1.0, 1.0, 2.0])]),
    "hardshrink": (lambda m, x: m.nn.functional.hardshrink(x, 1.0), [np.array([-2.0, -1.0, 0.0, 1.0, 2.0])]),
    "softshrink": (lambda m, x: m.nn.functional.softshrink(x, 1.0), [np.array([-2.0, -1.0, -0.5, 0.0, 1.0, 2.0])]),
    "prelu": (lambda m, x, w: m.nn.functional.prelu(x, w), [np.array([[-1.0, 0.0], [0.0, 2.0]]), np.array([0.25, 0.5])]),
    "rrelu": (lambda m, x: m.nn.functional.rrelu(x, 0.1, 0.3), [np.array([-1.0, 0.0, 1.0])]),
    "rrelu_": (lambda m, x: m.nn.functional.rrelu_(x.clone(), 0.1, 0.3), [np.array([-1.0, 0.0, 1.0])]),
    "rrelu_no_spread": (lambda m, x: m.nn.functional.rrelu(x, 0.2, 0.2, training=True), [np.array([-1.0, 0.0, 1.0])]),
}


@pytest.mark.parametrize("case", list(AT_THE_KINKS))
def test_values_gradients_and_nodes_at_the_kinks_match_torch(case: str) -> None:
    fn, arrays = AT_THE_KINKS[case]
    (expected, expected_grads, expected_node), (actual, actual_grads, actual_node) = _both(fn, *arrays)
    np.testing.assert_array_equal(actual, expected)
    np.testing.assert_array_equal(np.signbit(actual), np.signbit(expected))  # softshrink keeps -0.0
    for a, e in zip(actual_grads, expected_grads, strict=True):
        np.testing.assert_array_equal(a, e)
    assert actual_node == expected_node


def test_rrelu_inplace_saves_its_result_and_threshold_inplace_the_original_input() -> None:
    x = glassgrad.tensor([-1.0, 2.0], requires_grad=True)
    y = glassgrad.nn.functional.rrelu_(x.clone())
    assert "result" in y.grad_fn._saved and "self" not in y.grad_fn._saved
    z = glassgrad.nn.functional.threshold_(x.clone(), 0.5, 0.0)
    np.testing.assert_array_equal(z.grad_fn._saved_self.detach().numpy(), [-1.0, 2.0])
