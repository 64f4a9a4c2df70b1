"""Distances, norms and similarities: cdist (on PyTorch's two paths), pdist, pairwise_distance, cosine_similarity and
normalize, over one vector_norm whose derivative follows PyTorch's norm_backward.

For cdist with p = 2 and more than 25 rows on a side (or compute_mode="use_mm_for_euclid_dist") PyTorch expands the
squared distance into matrix products (_euclidean_dist, EuclideanDistBackward0: differentiable again). Otherwise
it computes |x1_i - x2_j| directly (CdistBackward0), and its gradient, _cdist_backward, has no derivative of its
own: a second derivative through it raises NotImplementedError, in PyTorch and here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import result_type
from .._quiet import quietly
from ..tensor import Tensor
from .elementwise import abs, add, broadcast_shape, clamp, div, mul, pow, sign, sub, where
from .linalg import matmul
from .reduction import sum as reduce_sum
from .shape import expand, unsqueeze, view
from .table import NoForwardAD, derivative

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


def _no_second_derivative(name: str, inputs: tuple[str, ...], backward: str) -> Any:
    """The node of a gradient that PyTorch cannot differentiate: differentiating it raises PyTorch's error."""

    def refuse(grad: Tensor) -> Tensor:
        raise NotImplementedError(f"the derivative for '{backward}' is not implemented.")

    return derivative(name, inputs, **dict.fromkeys(inputs, refuse))


CdistBackwardBackward0 = _no_second_derivative("CdistBackwardBackward0", ("grad", "x1", "x2", "cdist"), "_cdist_backward")


def _cdist_backward(grad: Tensor, x1: Tensor, x2: Tensor, p: float, cdist: Tensor) -> Tensor:
    """The gradient for x1, in the batch-broadcast shape of x1 (the engine sums it back to x1's own)."""
    out = quietly(_distance_grads, grad._data, x1._data, x2._data, p, cdist._data)
    return CdistBackwardBackward0.record(out.astype(x1._data.dtype, copy=False), (grad, x1, x2, cdist))


CdistBackward0 = derivative(
    "CdistBackward0", ("x1", "x2"), jvp=NoForwardAD("_cdist_forward"),
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


EuclideanDistBackward0 = derivative(
    "EuclideanDistBackward0", ("x1", "x2"), x1=_euclidean_x1_grad, x2=_euclidean_x2_grad, jvp=NoForwardAD("_euclidean_dist")
)


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


# -- norms and similarities ------------------------------------------------------------------------
def _norm_grad(grad: Tensor, self: Tensor, result: Tensor, p: float, dim: int, keepdim: bool) -> Tensor:
    """PyTorch's norm_backward: ties of the inf-norm share the gradient; zero norms give zero gradient."""
    if not keepdim and self.ndim:
        grad, result = unsqueeze(grad, dim), unsqueeze(result, dim)
    if p == 0:
        return expand(grad * 0, self.shape)
    if p == 1:
        return sign(self) * grad
    if math.isinf(p):
        mask = (abs(self) == result).to(grad.dtype)
        return sign(self) * mask * (grad / reduce_sum(mask, dim, keepdim=True))
    scaled = self / result if p == 2 else sign(self) * pow(abs(self), p - 1) / pow(result, p - 1)
    if p < 1:
        scaled = where(self == 0, 0.0, scaled)
    # Masked before the product, so that the second derivative in `grad` is 0 there, not 0 * nan.
    return where(result == 0, 0.0, scaled) * grad


NormBackward1 = derivative("NormBackward1", self=_norm_grad)


def vector_norm(input: Tensor, p: float, dim: int, keepdim: bool = False) -> Tensor:
    """The p-norm along one dim (what F.normalize, cosine_similarity and pairwise_distance reduce with)."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {input.dtype.name.capitalize()}"
        )
    d = input._wrap_dim(dim)
    data = input._data.reshape(input._data.shape or (1,))
    magnitude = np.abs(data)
    if math.isinf(p) and data.shape[d] == 0:
        raise RuntimeError("linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation "
                           "does not have an identity")
    with np.errstate(all="ignore"):
        if p == 0:
            out = np.sum(data != 0, axis=d, keepdims=True).astype(data.dtype)
        elif math.isinf(p):
            out = (np.max if p > 0 else np.min)(magnitude, axis=d, keepdims=True)
        else:  # scaled by the largest entry, so that tiny entries do not underflow when raised to p
            largest = np.max(magnitude, axis=d, keepdims=True, initial=0.0)
            scale = np.where((largest == 0) | np.isinf(largest), 1.0, largest)
            out = scale * np.sum((magnitude / scale) ** p, axis=d, keepdims=True) ** (1 / p)
    if not keepdim and input.ndim:
        out = np.squeeze(out, axis=d)
    return NormBackward1.record(out.reshape(out.shape if input.ndim else ()), (input,), p=p, dim=d, keepdim=keepdim)


def clamped_value(x: Tensor, min: float) -> Tensor:
    """x with its value clamped below at `min` but its gradient untouched (PyTorch clamps under no_grad)."""
    detached = x.detach()
    return x + (clamp(detached, min=min) - detached)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    if out is not None:
        raise TypeError("normalize(): the out= argument is not supported by glassgrad")
    denominator = clamp(vector_norm(input, p, dim, keepdim=True), min=eps)
    return div(input, expand(denominator, input.shape))


def _broadcast_pair(x1: Tensor, x2: Tensor) -> tuple[Tensor, Tensor]:
    shape = broadcast_shape(x1.shape, x2.shape)
    return expand(x1, shape), expand(x2, shape)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    common = result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {common.name.capitalize()}")
    a, b = (x if x.dtype.is_floating_point else x.to(common) for x in (x1, x2))
    a, b = _broadcast_pair(a, b)
    # Each side is divided by its own norm first, which keeps the result inside [-1, 1].
    na = clamped_value(vector_norm(a, 2, dim, keepdim=True), eps)
    nb = clamped_value(vector_norm(b, 2, dim, keepdim=True), eps)
    return reduce_sum(mul(div(a, na), div(b, nb)), dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    innermost = max(x1.ndim, x2.ndim) - 1
    return vector_norm(add(sub(x1, x2), eps), p, innermost, keepdim)


PdistBackwardBackward0 = _no_second_derivative("PdistBackwardBackward0", ("grad", "self", "pdist"), "_pdist_backward")


def _pairs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The row pairs i < j in pdist's order, and those rows as one-row batches (P, 1, d) for the cdist kernels."""
    first, second = np.triu_indices(x.shape[0], 1)
    return first, second, x[first][:, None, :], x[second][:, None, :]


def _pdist_backward(grad: Tensor, self: Tensor, p: float, result: Tensor) -> Tensor:
    """Each pair's gradient (cdist's kernel, zero at a zero distance) added to its first row and taken from its second."""
    first, second, a, b = _pairs(self._data)
    per_pair = quietly(_distance_grads, grad._data[:, None, None], a, b, p, result._data[:, None, None])[:, 0]
    out = np.zeros_like(self._data)
    np.add.at(out, first, per_pair)
    np.add.at(out, second, -per_pair)
    return PdistBackwardBackward0.record(out, (grad, self, result))


PdistBackward0 = derivative("PdistBackward0", jvp=NoForwardAD("_pdist_forward"), self=lambda grad, self, p, result: _pdist_backward(grad, self, p, result))


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-distance between every two rows i < j of a 2-d input, in row-major order of the pairs, as PyTorch's
    kernel computes it (sqrt of the sum of squares for p = 2, which underflows where vector_norm would not)."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    _, _, a, b = _pairs(input._data)
    out = quietly(_distances, a, b, p)[:, 0, 0] if input.shape[1] else np.zeros(len(a))
    return PdistBackward0.record(np.asarray(out, dtype=input._data.dtype), (input,), p=p)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "cdist": cdist, "pdist": pdist, "cosine_similarity": cosine_similarity, "pairwise_distance": pairwise_distance,
}
# The similarities are also F.*, and F.normalize has no torch.* twin.
ALSO: dict[str, dict[str, Callable[..., Any]]] = {
    "glassgrad.nn.functional": {
        "pdist": pdist, "cosine_similarity": cosine_similarity, "pairwise_distance": pairwise_distance, "normalize": normalize,
    },
}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
