"""Statistics: aminmax, quantile and nanquantile, cov and corrcoef, dist.

quantile, cov and corrcoef are PyTorch's own compositions (Sorting.cpp's quantile_impl, Correlation.cpp's cov and
corrcoef) written in glassgrad ops, so their values, graphs and gradients (to q and to the weights too) are
PyTorch's; aminmax and dist are one node each, with PyTorch's formulas.
"""

from __future__ import annotations

import collections
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from .._dtype import result_type
from ..tensor import Tensor
from .binary import lerp
from .creation import full_like, tensor
from .elementwise import broadcast_shape, ceil, clamp, floor, round, sqrt, where
from .indexing import gather
from .linalg import mm
from .logic import isnan, logical_not
from .reduction import _norm_backward, _share_ties, vector_norm
from .reduction import any as reduce_any
from .reduction import sum as reduce_sum
from .shape import movedim, reshape, squeeze, transpose, unsqueeze, view
from .sorting import sort
from .table import MultiOutput, derivative

aminmax_result = collections.namedtuple("aminmax", ("min", "max"), module="glassgrad.return_types")


# -- aminmax ----------------------------------------------------------------------------------------
def _aminmax_backward(grads: tuple[Tensor | None, ...], self: Tensor, min: Tensor, max: Tensor, dim: tuple[int, ...],
                      keepdim: bool) -> Tensor | None:
    """Each extreme's gradient shared evenly among the elements that equal it (PyTorch's aminmax_backward)."""
    total = None
    for grad, extreme in zip(grads, (min, max), strict=True):
        if grad is not None:
            part = _share_ties(grad, self, extreme, dim, keepdim)
            total = part if total is None else total + part
    return total


AminmaxBackward0 = MultiOutput("AminmaxBackward0", ("self",), ("min", "max"), self=_aminmax_backward)


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> Any:
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")
        dims = tuple(range(input.ndim))
    else:
        d = input._wrap_dim(dim)
        if input.ndim and input.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
        dims = (d,) if input.ndim else ()
    data = input._data
    outs = (np.amin(data, axis=dims, keepdims=keepdim), np.amax(data, axis=dims, keepdims=keepdim))
    return aminmax_result(*AminmaxBackward0.record_all(outs, (input,), dim=dims, keepdim=keepdim))


# -- quantile, nanquantile ---------------------------------------------------------------------------
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _check_quantile(input: Tensor, q: Tensor | float, interpolation: str) -> Tensor:
    """PyTorch's checks in its order; q as a tensor of input's dtype."""
    if not isinstance(q, Tensor) and not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got {interpolation}"
        )
    q_tensor = q if isinstance(q, Tensor) else tensor(q, dtype=input.dtype if input.dtype.is_floating_point else None)
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q_tensor.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if input.dtype not in (_dtype.float32, _dtype.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q_tensor.dtype is not input.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if isinstance(q, Tensor) and not ((q._data >= 0) & (q._data <= 1)).all():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    return q_tensor


def _quantile(input: Tensor, q: Tensor | float, dim: int | None, keepdim: bool, interpolation: str, ignore_nan: bool) -> Tensor:
    q = _check_quantile(input, q, interpolation)
    if dim is None:
        values = sort(reshape(input, -1)).values
        out_shape = [1] * input.ndim if keepdim else []
    else:
        d = input._wrap_dim(dim)
        values = sort(transpose(unsqueeze(input, -1), d, -1)).values  # the reduced dim last, a 1 where it was
        out_shape = [1 if i == d else s for i, s in enumerate(input.shape) if keepdim or i != d]
    n = values.shape[-1]
    if n > 2**24:
        raise RuntimeError("quantile() input tensor is too large")
    values = view(values, (*out_shape, n))  # a row per output element, q's count coming first in the result
    if ignore_nan:  # ranks among the non-NaN values; all NaN gives rank 0, whose value is NaN
        counts = reduce_sum(logical_not(isnan(values)), -1, keepdim=True)
        ranks = clamp(q * (counts - 1), min=0)
    else:  # any NaN makes the rank the last, whose value is NaN
        ranks = where(reduce_any(isnan(values), -1, keepdim=True), float(n - 1), q * (n - 1))
    ranks = {"lower": floor, "higher": ceil, "nearest": round}.get(interpolation, lambda r: r)(ranks)
    below = ranks.to(_dtype.int64)
    result = gather(values, -1, below)
    if interpolation in ("linear", "midpoint"):
        weights = full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        result = lerp(result, gather(values, -1, ceil(ranks).to(_dtype.int64)), weights)
    return squeeze(result, -1) if q.ndim == 0 else movedim(result, -1, 0)


def quantile(input: Tensor, q: Tensor | float, dim: int | None = None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


def nanquantile(input: Tensor, q: Tensor | float, dim: int | None = None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)


# -- cov, corrcoef -----------------------------------------------------------------------------------
def _check_weights(which: str, w: Tensor, observations: int, integral: bool) -> None:
    if w.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {which} to have one or fewer dimensions but got {which} with {w.ndim} dimensions"
        )
    kind_ok = not w.dtype.is_floating_point and w.dtype.name != "bool" if integral else w.dtype.is_floating_point
    if not kind_ok:
        raise RuntimeError(
            f"cov(): expected {which} to have {'integral' if integral else 'floating point'} dtype but got {which} "
            f"with {w.dtype.scalar_name} dtype"
        )
    if w.numel() != observations:
        raise RuntimeError(
            f"cov(): expected {which} to have the same numel as there are observations in the input but got "
            f"{w.numel()} != {observations}"
        )
    if observations and w._data.min() < 0:
        raise RuntimeError(f"cov(): {which} cannot be negative")


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None, aweights: Tensor | None = None) -> Tensor:
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {input.ndim} dimensions")
    if input.dtype.name == "bool":
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = view(input, (1, -1)) if input.ndim < 2 else input  # (variables, observations)
    observations = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, observations, integral=True)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, observations, integral=False)
        w = aweights if w is None else w * aweights
    w_sum: Tensor | int = observations if w is None else reduce_sum(w)
    if w is not None and not w_sum._data:  # type: ignore[union-attr]
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = reduce_sum(x if w is None else x * w, 1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm_factor = w_sum - correction * reduce_sum(w * aweights) / w_sum
    else:
        norm_factor = w_sum - correction
    if float(norm_factor._data if isinstance(norm_factor, Tensor) else norm_factor) <= 0:
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations.",
            UserWarning, stacklevel=2,
        )
        norm_factor = norm_factor * 0
    centered = x - unsqueeze(avg, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return squeeze(mm(centered, (centered if w is None else centered * w).t()) / norm_factor)


def corrcoef(input: Tensor) -> Tensor:
    if input.ndim > 2:
        raise RuntimeError(
            f"corrcoef(): expected input to have two or fewer dimensions but got an input with {input.ndim} dimensions"
        )
    c = cov(input)
    with np.errstate(divide="ignore", invalid="ignore"):
        if c.ndim == 0:  # one variable: 1, or NaN where its variance is 0, inf or NaN
            return c / c
        stddev = sqrt(c.diagonal())
        c = c / view(stddev, (-1, 1)) / view(stddev, (1, -1))
    return clamp(c, -1, 1)


# -- dist ---------------------------------------------------------------------------------------------
def _dist_backward(grad: Tensor, self: Tensor, other: Tensor, p: float, result: Tensor) -> Tensor | None:
    diff = self - other
    return _norm_backward(grad, diff, p, result, tuple(range(diff.ndim)), False)


DistBackward0 = derivative(
    "DistBackward0", ("self", "other"),
    self=_dist_backward,
    other=lambda grad, self, other, p, result: _negated(_dist_backward(grad, self, other, p, result)),
)


def _negated(g: Tensor | None) -> Tensor:
    if g is None:  # p = 0: PyTorch negates the undefined gradient of the 0-"norm" (a count), and fails so
        raise RuntimeError("Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument #0 'self'")
    return -g


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The p-norm of input - other, broadcast, in their common dtype."""
    common = result_type(input, other)
    if not common.is_floating_point:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {common.scalar_name} instead.")
    broadcast_shape(input.shape, other.shape)  # PyTorch's error for shapes that do not broadcast
    diff = Tensor._wrap(input._data.astype(common.np, copy=False) - other._data.astype(common.np, copy=False))
    p = float(p._data) if isinstance(p, Tensor) else float(p)
    return DistBackward0.record(vector_norm(diff, p)._data, (input, other), p=p)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "aminmax": aminmax, "quantile": quantile, "nanquantile": nanquantile, "cov": cov, "corrcoef": corrcoef, "dist": dist,
}
METHODS: dict[str, Callable[..., Any]] = dict(FUNCTIONS)
INPLACE: tuple[str, ...] = ()
