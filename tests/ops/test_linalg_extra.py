"""det at singular matrices, where PyTorch gives two different answers and the generic formula has no inverse.

Without a graph PyTorch's gradient there is 0 (its LU solve, with the zero pivots nudged, is scaled by
det = 0); with create_graph it is the matrix of cofactors, taken through an SVD, which is the true
derivative and is differentiated again by double backward.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

SINGULAR = {
    "one_by_one_zero": [[0.0]],
    "rank_one": [[1.0, 2.0], [2.0, 4.0]],
    "one_nonzero": [[0.0, 1.0], [0.0, 0.0]],
    "three_by_three": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
    "batch_mixed": [[[1.0, 2.0], [2.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]]],
    "batch_2d_mixed": [[[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [1.0, 3.0]]], [[[0.0, 0.0], [1.0, 1.0]], [[5.0, 2.0], [2.0, 4.0]]]],
}


def _det_grads(m: Any, values: list[Any], create_graph: bool) -> tuple[Any, ...]:
    A = m.tensor(values, dtype=m.float64, requires_grad=True)
    det = m.linalg.det(A)
    seed = m.tensor(np.linspace(1.5, 2.5, det.numel()).reshape(tuple(det.shape)), dtype=m.float64)
    (first,) = m.autograd.grad(det, A, seed, create_graph=create_graph)
    if not create_graph or not first.requires_grad:  # a 1x1 det's gradient is the seed itself: a constant
        return (first.detach().numpy(),)
    (second,) = m.autograd.grad((first * first).sum(), A)
    return first.detach().numpy(), second.numpy(), type(first.grad_fn).__name__


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", list(SINGULAR))
def test_det_gradient_at_singular_matrices_matches_torch(name: str, create_graph: bool) -> None:
    actual = _det_grads(glassgrad, SINGULAR[name], create_graph)
    expected = _det_grads(torch, SINGULAR[name], create_graph)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        if isinstance(e, str):
            assert a == e
        else:
            np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", list(SINGULAR))
def test_det_gradient_with_a_graph_is_the_finite_difference(name: str) -> None:
    """det is a polynomial, so central differences give its exact derivative at singular points too."""
    values = np.array(SINGULAR[name])
    A = glassgrad.tensor(values, dtype=glassgrad.float64, requires_grad=True)
    (grad,) = glassgrad.autograd.grad(glassgrad.linalg.det(A).sum(), A, create_graph=True)
    step = 1e-6
    numeric = np.zeros_like(values)
    for index in np.ndindex(values.shape):
        bump = np.zeros_like(values)
        bump[index] = step
        numeric[index] = (np.linalg.det(values + bump).sum() - np.linalg.det(values - bump).sum()) / (2 * step)
    np.testing.assert_allclose(grad.detach().numpy(), numeric, atol=1e-6)
