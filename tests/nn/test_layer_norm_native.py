"""F.layer_norm as PyTorch's native_layer_norm: one NativeLayerNormBackward0 node (weight and bias edges None when
absent), mean and rstd saved as result1 and result2, one output array; values, gradients and second derivatives as
PyTorch's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad
from tests.allocations import SLACK, peak_bytes

pytestmark = pytest.mark.torch_oracle

CASES = [((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)), ((4,), (4,)), ((5, 2), (2,))]
AFFINE = [(False, False), (True, False), (True, True), (False, True)]


def _run(lib: Any, dtype: str, shape: tuple[int, ...], normalized: tuple[int, ...], affine: tuple[bool, bool]) -> Any:
    rng = np.random.default_rng(len(shape) * 10 + len(normalized))
    x_np, w_np, b_np, v_np = (rng.standard_normal(s) for s in (shape, normalized, normalized, shape))
    dt = getattr(lib, dtype)
    x = lib.tensor(x_np, dtype=dt, requires_grad=True)
    w = lib.tensor(w_np, dtype=dt, requires_grad=True) if affine[0] else None
    b = lib.tensor(b_np, dtype=dt, requires_grad=True) if affine[1] else None
    leaves = [t for t in (x, w, b) if t is not None]
    y = lib.nn.functional.layer_norm(x, normalized, w, b)
    fn = y.grad_fn
    graph = (
        type(fn).__name__, [None if n is None else type(n).__name__ for n, _ in fn.next_functions],
        fn._saved_weight is None, tuple(fn._saved_result1.shape), tuple(fn._saved_result2.shape),
        tuple(fn._saved_normalized_shape),
    )
    v = lib.tensor(v_np, dtype=dt)
    grads = lib.autograd.grad((y * v).sum() + (y * y).sum(), leaves, create_graph=True)
    # PyTorch's double backward fails when only a bias is given ("Expected a proper Tensor but got None"): x and w only
    second = lib.autograd.grad(sum((g * g).sum() for g in grads[: 1 + affine[0]]), leaves[: 1 + affine[0]])
    return graph, [t.detach().numpy() for t in (y, *grads, *second)]


@pytest.mark.parametrize(("shape", "normalized"), CASES, ids=str)
@pytest.mark.parametrize("affine", AFFINE, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_norm_matches_pytorch(shape: tuple[int, ...], normalized: tuple[int, ...], affine: tuple[bool, bool],
                                    dtype: str) -> None:
    mine, ref = _run(glassgrad, dtype, shape, normalized, affine), _run(torch, dtype, shape, normalized, affine)
    assert mine[0] == ref[0]
    tol = 2e-4 if dtype == "float32" else 1e-9
    for got, expected in zip(mine[1], ref[1], strict=True):
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def test_forward_writes_the_output_and_one_temporary() -> None:
    x = glassgrad.randn(256, 512, requires_grad=True)
    layer = glassgrad.nn.LayerNorm(512)
    peak = peak_bytes(lambda: layer(x))
    assert peak < 2 * x.numel() * 4 + SLACK  # the output and the squares for the variance
