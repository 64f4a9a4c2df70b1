"""Reductions: sum, mean, max, min and their arg-variants."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import _dtype
from ..tensor import Size, Tensor
from .indexing import scatter_into_zeros
from .shape import expand, reshape, unsqueeze
from .table import derivative

Dims = int | Sequence[int] | None


def _dims(input: Tensor, dim: Dims) -> tuple[int, ...]:
    if dim is None:
        return tuple(range(input.ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return tuple(range(input.ndim))
    wrapped = tuple(input._wrap_dim(d) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"dim {wrapped[0]} appears multiple times in the list of dims")
    return tuple(d for d in wrapped if input.ndim)


def _expand_back(grad: Tensor, shape: Size, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """Broadcast a reduced gradient back over the reduced dims."""
    if not keepdim and dims:
        grad = reshape(grad, tuple(1 if i in dims else s for i, s in enumerate(shape)))
    return expand(grad, shape)


SumBackward0 = derivative("SumBackward0", self=lambda grad, self_shape: expand(grad, self_shape))
SumBackward1 = derivative(
    "SumBackward1", self=lambda grad, self_shape, dim, keepdim: _expand_back(grad, self_shape, dim, keepdim)
)
MeanBackward0 = derivative("MeanBackward0", self=lambda grad, self_shape, count: expand(grad / count, self_shape))
MeanBackward1 = derivative(
    "MeanBackward1",
    self=lambda grad, self_shape, dim, keepdim, count: _expand_back(grad / count, self_shape, dim, keepdim),
)


def _sum_dtype(input: Tensor, dtype: Any) -> np.dtype:
    if dtype is not None:
        return _dtype.to_dtype(dtype).np
    if input.dtype.is_floating_point:
        return input._data.dtype
    return np.dtype(np.int64)


def sum(input: Tensor, dim: Dims = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    out_dtype = _sum_dtype(input, dtype)
    if dim is None:
        out = np.sum(input._data, dtype=out_dtype)
        return SumBackward0.record(np.asarray(out), (input,), self_shape=input.shape)
    dims = _dims(input, dim)
    out = np.sum(input._data, axis=dims, keepdims=keepdim, dtype=out_dtype)
    return SumBackward1.record(np.asarray(out), (input,), self_shape=input.shape, dim=dims, keepdim=keepdim)


def mean(input: Tensor, dim: Dims = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    target = input.dtype if dtype is None else _dtype.to_dtype(dtype)
    if not target.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {target.name.capitalize()}"
        )
    data = input._data.astype(target.np, copy=False)
    with np.errstate(invalid="ignore", divide="ignore"):
        if dim is None:
            out = np.asarray(np.mean(data) if data.size else np.float64("nan"), dtype=target.np)
            return MeanBackward0.record(out, (input,), self_shape=input.shape, count=input.numel())
        dims = _dims(input, dim)
        out = np.asarray(np.mean(data, axis=dims, keepdims=keepdim), dtype=target.np)
    count = int(np.prod([input.shape[d] for d in dims], dtype=np.int64)) if dims else 1
    return MeanBackward1.record(out, (input,), self_shape=input.shape, dim=dims, keepdim=keepdim, count=count)


class MaxMinResult(NamedTuple):
    values: Tensor
    indices: Tensor


def _evenly_distribute(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """max()/min() without dim: ties share the gradient evenly, as in PyTorch."""
    mask = (self == result).to(grad.dtype)
    return mask * (grad / mask.sum())


MaxBackward1 = derivative("MaxBackward1", self=lambda grad, self, result: _evenly_distribute(grad, self, result))
MinBackward1 = derivative("MinBackward1", self=lambda grad, self, result: _evenly_distribute(grad, self, result))
MaxBackward0 = derivative(
    "MaxBackward0",
    self=lambda grad, self_shape, dim, keepdim, indices: _select_back(grad, self_shape, dim, keepdim, indices),
)
MinBackward0 = derivative(
    "MinBackward0",
    self=lambda grad, self_shape, dim, keepdim, indices: _select_back(grad, self_shape, dim, keepdim, indices),
)


def _select_back(grad: Tensor, shape: Size, dim: int, keepdim: bool, indices: Tensor) -> Tensor:
    if not keepdim and len(shape):
        grad = unsqueeze(grad, dim)
        indices = unsqueeze(indices, dim)
    return scatter_into_zeros(grad, shape, dim, indices)


def _extreme(input: Tensor, dim: Any, keepdim: bool, which: str) -> Any:
    is_max = which == "max"
    if isinstance(dim, Tensor):
        from .elementwise import maximum, minimum

        return (maximum if is_max else minimum)(input, dim)
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError(
                f"{which}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        out = np.asarray(input._data.max() if is_max else input._data.min())
        return (MaxBackward1 if is_max else MinBackward1).record(out, (input,))
    d = input._wrap_dim(dim)
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"{which}(): Expected reduction dim {d} to have non-zero size.")
    data = input._data if input.ndim else input._data.reshape(1)
    arg = np.argmax(data, axis=d) if is_max else np.argmin(data, axis=d)
    if np.issubdtype(data.dtype, np.floating):  # NaN wins, as in PyTorch
        nan_at = np.isnan(data)
        if nan_at.any():
            arg = np.where(nan_at.any(axis=d), np.argmax(nan_at, axis=d), arg)
    arg_kept = np.expand_dims(arg.astype(np.int64), d)
    values = np.take_along_axis(data, arg_kept, axis=d)
    if not input.ndim:
        values, arg_kept = values.reshape(()), arg_kept.reshape(())
    elif not keepdim:
        values, arg_kept = np.squeeze(values, axis=d), np.squeeze(arg_kept, axis=d)
    indices = Tensor._wrap(arg_kept)
    entry = MaxBackward0 if is_max else MinBackward0
    result = entry.record(values, (input,), self_shape=input.shape, dim=d, keepdim=keepdim, indices=indices)
    return MaxMinResult(result, indices)


def max(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return _extreme(input, dim, keepdim, "max")


def min(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return _extreme(input, dim, keepdim, "min")


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return Tensor._wrap(np.asarray(np.argmax(input._data), dtype=np.int64))
    return max(input, dim, keepdim).indices


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return Tensor._wrap(np.asarray(np.argmin(input._data), dtype=np.int64))
    return min(input, dim, keepdim).indices


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS = {"sum": sum, "mean": mean, "max": max, "min": min, "argmax": argmax, "argmin": argmin}
METHODS = dict(FUNCTIONS)
INPLACE = ()
