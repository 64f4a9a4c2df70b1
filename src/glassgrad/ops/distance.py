"""Pairwise distances: cdist, on PyTorch's two paths.

For p = 2 with more than 25 rows on a side (or compute_mode="use_mm_for_euclid_dist") PyTorch expands the
squared distance into matrix products (_euclidean_dist, EuclideanDistBackward0: differentiable again). Otherwise
it computes |x1_i - x2_j| directly (CdistBackward0), and its gradient, _cdist_backward, has no derivative of its
own: a second derivative through it raises NotImplementedError, in PyTorch and here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .elementwise import broadcast_shape, where
from .linalg import matmul
from .quiet import quietly
from .reduction import sum as reduce_sum
from .shape import expand, unsqueeze, view
from .table import derivative

_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1, "donot_use_mm_for_euclid_dist": 2}


# -- the direct path ------------------------------------------------------------------------------
def _distances(a: np.ndarray, b: np.ndarray, p: float) -> np.ndarray:
    """The p-distance of every row of a to every row of b (batch dims broadcast), as PyTorch's kernels reduce it."""
    diff = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return np.minimum(np.ceil(diff), 1).sum(-1)  # the count of differing coordinates
    if p == 1:
        return diff.sum(-1)
    if p == 2:
        return np.sqrt((diff * diff).sum(-1))
    if math.isinf(p):
        return diff.max(-1)
    return (diff**p).sum(-1) ** (1 / p)


def _distance_grads(grad: np.ndarray, a: np.ndarray, b: np.ndarray, p: float, dist: np.ndarray) -> np.ndarray:
    """PyTorch's _cdist_backward for the rows of `a`: each pair's gradient, summed over the rows of `b`.

    Where a distance is 0 the gradient is 0 (PyTorch's subgradient), and for p < 1 so is every coordinate that
    does not differ, whose |diff| ** (p - 1) is infinite.
    """
    diff = a[..., :, None, :] - b[..., None, :, :]
    g, d = grad[..., None], dist[..., None]
    if p == 0:
        pairs = np.zeros_like(diff)
    elif p == 1:
        pairs = g * np.sign(diff)
    elif math.isinf(p):  # every coordinate that reaches the maximum takes the whole gradient
        pairs = g * np.sign(diff) * (1 - np.minimum(1, np.ceil(np.abs(np.abs(diff) - d))))
    elif p < 2:
        pairs = np.where(d == 0, 0, np.sign(diff) * np.abs(diff) ** (p - 1) * g / d ** (p - 1))
        if p < 1:
            pairs = np.where(diff == 0, 0, pairs)
    elif p == 2:
        pairs = np.where(d == 0, 0, g * diff / d)
    else:
        pairs = np.where(d == 0, 0, diff * np.abs(diff) ** (p - 2) * g / d ** (p - 1))
    return pairs.sum(-2)


def _second_derivative(grad: Tensor) -> Tensor:
    raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


CdistBackwardBackward0 = derivative(
    "CdistBackwardBackward0", ("grad", "x1", "x2", "cdist"),
    grad=_second_derivative, x1=_second_derivative, x2=_second_derivative, cdist=_second_derivative,
)


def _cdist_backward(grad: Tensor, x1: Tensor, x2: Tensor, p: float, cdist: Tensor) -> Tensor:
    """The gradient for x1, in the batch-broadcast shape of x1 (the engine sums it back to x1's own)."""
    out = quietly(_distance_grads, grad._data, x1._data, x2._data, p, cdist._data)
    return CdistBackwardBackward0.record(out.astype(x1._data.dtype, copy=False), (grad, x1, x2, cdist))


CdistBackward0 = derivative(
    "CdistBackward0", ("x1", "x2"),
    x1=lambda grad, x1, x2, p, result: _cdist_backward(grad, x1, x2, p, result),
    x2=lambda grad, x1, x2, p, result: _cdist_backward(grad.mT, x2, x1, p, result.mT),
)


# -- the matrix-product path (p = 2) ------------------------------------------------------------------
def _ratio(grad: Tensor, result: Tensor) -> Tensor:
    return where(result == 0, 0.0, grad / result)  # at a zero distance the subgradient 0, as PyTorch's


def _euclidean_x1_grad(grad: Tensor, x1: Tensor, x2: Tensor, result: Tensor) -> Tensor:
    ratio = _ratio(grad, result)
    return x1 * reduce_sum(ratio, -1, keepdim=True) - matmul(ratio, x2)


def _euclidean_x2_grad(grad: Tensor, x1: Tensor, x2: Tensor, result: Tensor) -> Tensor:
    ratio = _ratio(grad, result)
    return x2 * unsqueeze(reduce_sum(ratio, -2), -1) - matmul(ratio.mT, x1)


EuclideanDistBackward0 = derivative("EuclideanDistBackward0", ("x1", "x2"), x1=_euclidean_x1_grad, x2=_euclidean_x2_grad)


def _euclidean_dist(x1: Tensor, x2: Tensor) -> Tensor:
    """sqrt(|a|^2 - 2 a.b + |b|^2) as one product of padded matrices, clamped at 0 before the root, as PyTorch."""
    a, b = x1._data, x2._data
    a_norm, b_norm = (a * a).sum(-1, keepdims=True), (b * b).sum(-1, keepdims=True)
    a_padded = np.concatenate([-2 * a, a_norm, np.ones_like(a_norm)], -1)
    b_padded = np.concatenate([b, np.ones_like(b_norm), b_norm], -1)
    squared = np.matmul(a_padded, b_padded.swapaxes(-1, -2))
    return EuclideanDistBackward0.record(np.sqrt(np.maximum(squared, 0)), (x1, x2))


# -- cdist ---------------------------------------------------------------------------------------------
def _check(x1: Tensor, x2: Tensor, p: float) -> None:
    for name, x in (("X1", x1), ("X2", x2)):
        if not isinstance(x, Tensor):
            raise TypeError(f"cdist(): argument '{name.lower()}' must be Tensor, not {type(x).__name__}")
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {x.dtype.scalar_name}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    _check(x1, x2, p)
    batch = broadcast_shape(x1.shape[:-2], x2.shape[:-2])
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"expected scalar type {x1.dtype.scalar_name} but found {x2.dtype.scalar_name}")
    (r1, c), r2 = x1.shape[-2:], x2.shape[-2]
    mode = _MODES[compute_mode]
    if x1.numel() and x2.numel() and p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25))):
        if math.prod(batch) != 1:
            x1, x2 = expand(x1, (*batch, r1, c)), expand(x2, (*batch, r2, c))
        return view(_euclidean_dist(x1, x2), (*batch, r1, r2))
    out = quietly(_distances, x1._data, x2._data, p) if c else np.zeros((*batch, r1, r2), x1._data.dtype)
    return CdistBackward0.record(np.asarray(out, dtype=x1._data.dtype), (x1, x2), p=p)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {"cdist": cdist}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
