"""F.linear as PyTorch records it: the nodes, what they save, gradients, double backward, and allocations.

PyTorch's linear (aten/src/ATen/native/Linear.cpp) is addmm(bias, x, weight.t()) for a matrix with a bias, the same
on a contiguous input's rows viewed back for other ranks (3-D, or any with a 1-D bias), and matmul plus an add
otherwise. glassgrad follows that choice node for node.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad
from tests.allocations import SLACK, peak_bytes

pytestmark = pytest.mark.torch_oracle

SHAPES_WITH_BIAS = [(3,), (2, 3), (4, 2, 3), (0, 3), (2, 0, 3), (2, 2, 2, 3)]


def _inputs(lib: Any, shape: tuple[int, ...], x_requires: bool, bias: bool, dtype: str = "float64") -> tuple[Any, ...]:
    rng = np.random.default_rng(len(shape) * 10 + shape[-2 if len(shape) > 1 else 0])
    arrays = [rng.standard_normal(shape), rng.standard_normal((5, 3)), rng.standard_normal(5)]
    dt = getattr(lib, dtype)
    x = lib.tensor(arrays[0], dtype=dt, requires_grad=x_requires)
    w = lib.tensor(arrays[1], dtype=dt, requires_grad=True)
    b = lib.tensor(arrays[2], dtype=dt, requires_grad=True) if bias else None
    return x, w, b


def _graph(fn: Any) -> Any:
    """The node names under fn, as nested tuples following next_functions (None where an input needs no grad)."""
    if fn is None:
        return None
    return (type(fn).__name__, tuple(_graph(child) for child, _ in fn.next_functions))


def _saved(fn: Any) -> dict[str, Any]:
    """addmm's saved values that PyTorch names, as shapes for tensors; a name saved as None is left out."""
    out = {}
    for name in ("mat1", "mat2", "alpha", "beta", "mat2_sym_strides"):
        value = getattr(fn, f"_saved_{name}", None)
        if value is not None:
            out[name] = tuple(value.shape) if hasattr(value, "shape") else tuple(value) if isinstance(value, tuple) else value
    return out


def _addmm_node(fn: Any) -> Any:
    while type(fn).__name__ != "AddmmBackward0":
        fn = fn.next_functions[0][0]
    return fn


@pytest.mark.parametrize("shape", SHAPES_WITH_BIAS, ids=str)
@pytest.mark.parametrize("x_requires", [True, False])
def test_linear_with_bias_records_addmm_like_pytorch(shape: tuple[int, ...], x_requires: bool) -> None:
    outs = {lib: glassgrad.nn.functional.linear(*_inputs(lib, shape, x_requires, True)) if lib is glassgrad
            else torch.nn.functional.linear(*_inputs(lib, shape, x_requires, True)) for lib in (glassgrad, torch)}
    assert _graph(outs[glassgrad].grad_fn) == _graph(outs[torch].grad_fn)
    assert _saved(_addmm_node(outs[glassgrad].grad_fn)) == _saved(_addmm_node(outs[torch].grad_fn))


def test_matrix_without_bias_is_mm_like_pytorch() -> None:
    graphs = [_graph(lib.nn.functional.linear(*_inputs(lib, (2, 3), True, False)).grad_fn) for lib in (glassgrad, torch)]
    assert graphs[0] == graphs[1]


def test_non_contiguous_input_with_bias_is_matmul_then_add_like_pytorch() -> None:
    """The add's node and its bias edge; what matmul records beneath is matmul's own business."""
    tops = []
    for lib in (glassgrad, torch):
        x, w, b = _inputs(lib, (4, 2, 3), True, True)
        fn = lib.nn.functional.linear(x.transpose(0, 1), w, b).grad_fn
        tops.append((type(fn).__name__, type(fn.next_functions[1][0]).__name__))
    assert tops[0] == tops[1] == ("AddBackward0", "AccumulateGrad")


@pytest.mark.parametrize("shape", [(3,), (2, 3), (4, 2, 3), (2, 0, 3)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
def test_gradients_and_double_backward_match_pytorch(shape: tuple[int, ...], dtype: str, bias: bool) -> None:
    results = []
    for lib in (glassgrad, torch):
        x, w, b = _inputs(lib, shape, True, bias, dtype)
        leaves = [x, w] if b is None else [x, w, b]
        y = lib.nn.functional.linear(x, w, b)
        v = lib.ones_like(y) * 0.5 + lib.arange(y.numel(), dtype=y.dtype).reshape(y.shape) / 7
        y.backward(v)
        y = lib.nn.functional.linear(x, w, b)
        grads = lib.autograd.grad((y * y).sum(), leaves, create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), leaves, allow_unused=True, materialize_grads=True)
        results.append((grads, second, [leaf.grad for leaf in leaves]))
    tol = 1e-5 if dtype == "float32" else 1e-12
    for mine, ref in zip(*results, strict=True):
        for got, expected in zip(mine, ref, strict=True):
            assert got.dtype == getattr(glassgrad, str(expected.dtype).split(".")[1])
            assert got.shape == tuple(expected.shape)
            want = expected.detach().numpy()
            scale = float(np.abs(want).max(initial=1.0))  # float32 sums of large terms cancel: error relative to them
            np.testing.assert_allclose(got.detach().numpy(), want, rtol=tol, atol=tol * scale)


def test_weight_gradient_is_row_major_and_not_a_view_like_pytorch() -> None:
    x, w, b = _inputs(glassgrad, (4, 3), True, True)
    glassgrad.nn.functional.linear(x, w, b).sum().backward()
    assert w.grad.is_contiguous() and w.grad._base is None
    assert w.grad.stride() == w.stride()
    x, w, b = _inputs(torch, (4, 3), True, True)
    torch.nn.functional.linear(x, w, b).sum().backward()
    assert w.grad.is_contiguous() and not w.grad._is_view()


def test_forward_allocates_the_output_once() -> None:
    x = glassgrad.randn(256, 512, requires_grad=True)
    layer = glassgrad.nn.Linear(512, 1024)
    out: list[Any] = []
    peak = peak_bytes(lambda: out.append(layer(x)))
    assert peak < out[0].numel() * 4 + SLACK


def test_backward_allocates_each_gradient_once() -> None:
    """grad @ W, grad^T @ x and grad.sum(0): the weight keeps its gradient without a copy."""
    x = glassgrad.randn(256, 512, requires_grad=True)
    layer = glassgrad.nn.Linear(512, 1024)
    y = layer(x)
    g = glassgrad.ones_like(y)
    peak = peak_bytes(lambda: y.backward(g))
    grads = (x.numel() + layer.weight.numel() + layer.bias.numel()) * 4
    assert grads <= peak < grads + SLACK
