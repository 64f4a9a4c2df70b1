"""Small-batch float32 products of a transposed weight, which glassgrad computes the other way round for OpenBLAS
(linalg.matrix_product): the values, gradients and layouts must be PyTorch's whichever way the product ran.

The shapes straddle the region where the swapped product is taken: rows 2 to 64, at least twice as many columns
and 2048 results, an inner size of at least 32 and twice the rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad
from glassgrad.ops.linalg import matrix_product

pytestmark = pytest.mark.torch_oracle

# (rows, inner, outputs): the first four are inside the region, the others just outside one of its edges
SHAPES = [(16, 128, 256), (64, 784, 256), (2, 32, 1024), (32, 128, 128), (1, 784, 256), (65, 256, 512), (16, 31, 256), (64, 256, 64)]


def _linear_step(lib: Any, rows: int, inner: int, outputs: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(rows * 7 + inner)
    x = lib.tensor(rng.standard_normal((rows, inner)).astype(np.float32), requires_grad=True)
    weight = lib.tensor((rng.standard_normal((outputs, inner)) / np.sqrt(inner)).astype(np.float32), requires_grad=True)
    bias = lib.tensor(rng.standard_normal(outputs).astype(np.float32), requires_grad=True)
    y = lib.nn.functional.linear(x, weight, bias)
    z = lib.nn.functional.linear(x, weight)  # matmul's node rather than addmm's
    (y.tanh().sum() + z.sin().sum()).backward()
    return {
        "y": y.detach().numpy(), "z": z.detach().numpy(), "x.grad": x.grad.numpy(), "weight.grad": weight.grad.numpy(),
        "bias.grad": bias.grad.numpy(), "strides": np.array([*y.stride(), *z.stride(), *weight.grad.stride()]),
    }


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_linear_on_a_small_batch_matches_torch(shape: tuple[int, int, int]) -> None:
    ours, theirs = _linear_step(glassgrad, *shape), _linear_step(torch, *shape)
    np.testing.assert_array_equal(ours.pop("strides"), theirs.pop("strides"))
    for name, value in theirs.items():
        np.testing.assert_allclose(ours[name], value, rtol=2e-5, atol=2e-5, err_msg=name)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_gradient_times_transposed_weight_matches_torch(shape: tuple[int, int, int]) -> None:
    """x @ w with w of shape (inner, outputs): x's gradient is grad @ w.T, the product the rule may swap."""
    rows, inner, outputs = shape
    rng = np.random.default_rng(rows + inner + outputs)
    arrays = rng.standard_normal((rows, outputs)).astype(np.float32), (rng.standard_normal((outputs, inner)) / np.sqrt(outputs)).astype(np.float32)
    grads = []
    for lib in (glassgrad, torch):
        x, w = (lib.tensor(a, requires_grad=True) for a in arrays)
        (x @ w).sin().sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_matrix_product_is_row_major_and_exact_to_float32(shape: tuple[int, int, int]) -> None:
    rows, inner, outputs = shape
    rng = np.random.default_rng(3)
    a = rng.standard_normal((rows, inner)).astype(np.float32)
    weight = rng.standard_normal((outputs, inner)).astype(np.float32)
    product = matrix_product(a, weight.T)
    assert product.flags.c_contiguous and product.dtype == np.float32 and product.shape == (rows, outputs)
    exact = a.astype(np.float64) @ weight.T.astype(np.float64)
    np.testing.assert_allclose(product, exact, rtol=1e-4, atol=1e-4 * np.sqrt(inner))
