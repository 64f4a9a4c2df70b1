"""Reductions and scans: sum, mean, nansum, nanmean, prod, max/min, amax/amin, var/std, norm, logsumexp, cumsum,
cumprod, all/any."""

from __future__ import annotations

import builtins
import collections
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _dtype
from ..tensor import Size, Tensor
from .elementwise import abs, not_implemented_for, pow, refuse_barebones, sign, where
from .elementwise import exp as _exp
from .indexing import ScatterBackward0, along
from .logic import isnan, logical_not
from .shape import broadcast_view, cat, expand, narrow, reshape, transpose, unsqueeze
from .subscript import getitem
from .table import Derivative, MultiOutput, derivative, formulas_record

Dims = int | Sequence[int] | None


def return_type(name: str) -> Any:
    """PyTorch's `torch.return_types.<name>`: a named (values, indices) pair."""
    return collections.namedtuple(name, ("values", "indices"), module="glassgrad.return_types")


def _dims(input: Tensor, dim: Dims) -> tuple[int, ...]:
    if dim is None:
        return tuple(range(input.ndim))
    if type(dim) is int:  # the usual case: one dim, no duplicates to look for
        wrapped_dim = input._wrap_dim(dim)
        return (wrapped_dim,) if input.ndim else ()
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return tuple(range(input.ndim))
    wrapped = tuple(input._wrap_dim(d) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"dim {wrapped[0]} appears multiple times in the list of dims")
    return tuple(d for d in wrapped if input.ndim)


def _kept_shape(shape: Size, dims: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _keep(t: Tensor, shape: Size, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """A reduced tensor with its reduced dims back as size 1 (PyTorch's unsqueeze_multiple)."""
    return t if keepdim or not shape else reshape(t, _kept_shape(shape, dims))


def _expand_back(grad: Tensor, shape: Size, dims: tuple[int, ...] = (), keepdim: bool = True) -> Tensor:
    """Broadcast a reduced gradient back over the reduced dims (a full reduction's 0-d gradient over all of them)."""
    if not formulas_record():  # nothing to record: NumPy's broadcast alone, without a view tensor's bookkeeping
        data = grad._data
        return Tensor._wrap(broadcast_view(data if keepdim or not shape else data.reshape(_kept_shape(shape, dims)), shape))
    return expand(_keep(grad, shape, dims, keepdim), shape)


def _numel(shape: Size, dims: tuple[int, ...]) -> int:
    return math.prod(shape[d] for d in dims)


def _reduced(out: np.ndarray, dims: tuple[int, ...], keepdim: bool) -> np.ndarray:
    return out if keepdim else np.squeeze(out, axis=dims)


# -- sum, mean, prod ------------------------------------------------------------------------
SumBackward0 = derivative("SumBackward0", self=lambda grad, self_shape: _expand_back(grad, self_shape))
SumBackward1 = derivative(
    "SumBackward1", self=lambda grad, self_shape, dim, keepdim: _expand_back(grad, self_shape, dim, keepdim)
)
MeanBackward0 = derivative("MeanBackward0", self=lambda grad, self_shape, count: _expand_back(grad / count, self_shape))
MeanBackward1 = derivative(
    "MeanBackward1",
    self=lambda grad, self_shape, dim, keepdim, count: _expand_back(grad / count, self_shape, dim, keepdim),
)
ProdBackward0 = derivative("ProdBackward0", self=lambda grad, self, result: _prod_backward(grad, self, result, None, False))
ProdBackward1 = derivative(
    "ProdBackward1", self=lambda grad, self, result, dim, keepdim: _prod_backward(grad, self, result, dim, keepdim)
)


def _sum_dtype(input: Tensor, dtype: Any) -> np.dtype:
    if dtype is not None:
        return _dtype.to_dtype(dtype).np
    data_dtype = input._data.dtype
    if data_dtype.kind == "f" or _dtype.is_inexact(data_dtype):  # a float sum pays a test, not the predicate's call
        return data_dtype
    return np.dtype(np.int64)


def _accumulator(out_dtype: np.dtype) -> np.dtype:
    """The dtype a sum adds in: float32 for bfloat16 and float8, rounded once at the end, as PyTorch's CPU sums
    (ml_dtypes' own add would round after every element)."""
    if out_dtype is _F32:  # the default dtype pays a test, not the predicate's call
        return out_dtype
    return _F32 if _dtype.is_low_precision(out_dtype) else out_dtype


_F32 = np.dtype(np.float32)


# sum's dim when not given: PyTorch's sum() overload (SumBackward0), where an explicit dim=None is sum.dim_IntList's
# (SumBackward1) though both sum everything
NO_DIM: Any = object()


def sum(input: Tensor, dim: Dims = NO_DIM, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    out_dtype = _sum_dtype(input, dtype)
    if dim is NO_DIM:
        out = np.add.reduce(input._data, axis=None, dtype=_accumulator(out_dtype))  # np.sum's wrapper costs more
        return SumBackward0.record(np.asarray(out, dtype=out_dtype), (input,), self_shape=input.shape)
    dims = _dims(input, dim)
    out = np.add.reduce(input._data, axis=dims, keepdims=keepdim, dtype=_accumulator(out_dtype))
    return SumBackward1.record(np.asarray(out, dtype=out_dtype), (input,), self_shape=input.shape, dim=dims, keepdim=keepdim)


def mean(input: Tensor, dim: Dims = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    target = input.dtype if dtype is None else _dtype.to_dtype(dtype)
    if not (target.is_floating_point or target.is_complex):
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {target.scalar_name}"
        )
    data = _dtype.widened(input._data.astype(target.np, copy=False))
    with np.errstate(invalid="ignore", divide="ignore"):
        if dim is None:
            out = np.asarray(np.mean(data) if data.size else np.float64("nan"), dtype=target.np)
            return MeanBackward0.record(out, (input,), self_shape=input.shape, count=input.numel())
        dims = _dims(input, dim)
        count = _numel(input.shape, dims)
        out = np.asarray(np.sum(data, axis=dims, keepdims=keepdim) / count, dtype=target.np)
    return MeanBackward1.record(out, (input,), self_shape=input.shape, dim=dims, keepdim=keepdim, count=count)


NansumBackward0 = derivative(
    "NansumBackward0",
    self=lambda grad, self, dim, keepdim: _expand_back(grad, self.shape, dim, keepdim) * logical_not(isnan(self)),
)


def nansum(input: Tensor, dim: Dims = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if not input.dtype.is_floating_point:  # no NaN to skip: PyTorch sums, and records SumBackward
        return sum(input, dim, keepdim, dtype=dtype)
    dims = _dims(input, dim)
    data = input._data
    out_dtype = _sum_dtype(input, dtype)
    out = np.add.reduce(np.where(np.isnan(data), 0, data), axis=dims, keepdims=keepdim, dtype=_accumulator(out_dtype))
    return NansumBackward0.record(np.asarray(out, dtype=out_dtype), (input,), dim=dims, keepdim=keepdim)


def nanmean(input: Tensor, dim: Dims = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """nansum over the count of non-NaN elements, as PyTorch composes it (DivBackward0 over NansumBackward0)."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {input.dtype.scalar_name}"
        )
    if dtype is not None and not _dtype.to_dtype(dtype).is_floating_point:
        raise RuntimeError(
            "nanmean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. "
            f"Got: {_dtype.to_dtype(dtype).scalar_name}"
        )
    return nansum(input, dim, keepdim, dtype=dtype) / sum(logical_not(isnan(input)), dim, keepdim)


def prod(input: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if dim is not None and not isinstance(dim, int):
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    out_dtype = _sum_dtype(input, dtype)
    if dim is None:
        return ProdBackward0.record(np.asarray(np.prod(input._data, dtype=out_dtype)), (input,))
    d = input._wrap_dim(dim)
    out = np.prod(input._data, axis=d if input.ndim else (), keepdims=keepdim, dtype=out_dtype)
    return ProdBackward1.record(np.asarray(out), (input,), dim=d, keepdim=keepdim)


def _prod_backward(grad: Tensor, self: Tensor, result: Tensor, dim: int | None, keepdim: bool) -> Tensor:
    if self.ndim == 0:
        return grad
    if dim is None:
        return reshape(_prod_backward(grad, reshape(self, -1), result, 0, False), self.shape)
    if not keepdim:
        grad, result = unsqueeze(grad, dim), unsqueeze(result, dim)
    if self.shape[dim] == 1:
        return grad
    if not (self._data == 0).any():
        return grad * (result / self)
    return grad * exclusive_products(self, dim)


def exclusive_products(x: Tensor, dim: int) -> Tensor:
    """The product of every other element along dim, without dividing (so zeros are fine)."""
    n = x.shape[dim]
    ones = Tensor._wrap(np.ones(_kept_shape(x.shape, (dim,)), dtype=x._data.dtype))
    before = cumprod(cat([ones, narrow(x, dim, 0, n - 1)], dim), dim)
    after = flip_dim(cumprod(cat([ones, flip_dim(narrow(x, dim, 1, n - 1), dim)], dim), dim), dim)
    return before * after


def flip_dim(x: Tensor, dim: int) -> Tensor:
    """x reversed along dim, differentiably."""
    reverse = Tensor._wrap(np.arange(x.shape[dim] - 1, -1, -1, dtype=np.int64))
    return getitem(x, (slice(None),) * dim + (reverse,))


# -- scans ----------------------------------------------------------------------------------
CumsumBackward0 = derivative("CumsumBackward0", self=lambda grad, dim: _reversed_cumsum(grad, dim))
CumprodBackward0 = derivative(
    "CumprodBackward0", self=lambda grad, self, dim, result: _cumprod_backward(grad, self, dim, result)
)


def _scan(entry: Derivative, np_fn: Any, input: Tensor, dim: int, dtype: Any) -> Tensor:
    d = input._wrap_dim(dim)
    data = input._data.reshape(-1) if input.ndim == 0 else input._data
    out = np_fn(data, axis=d, dtype=_sum_dtype(input, dtype)).reshape(input.shape)
    return entry.record(out, (input,), dim=d)


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return _scan(CumsumBackward0, np.cumsum, input, dim, dtype)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return _scan(CumprodBackward0, np.cumprod, input, dim, dtype)


def _reversed_cumsum(grad: Tensor, dim: int) -> Tensor:
    if grad.numel() <= 1 or grad.shape[dim] == 1:
        return grad
    return flip_dim(cumsum(flip_dim(grad, dim), dim), dim)


def _cumprod_backward(grad: Tensor, self: Tensor, dim: int, result: Tensor) -> Tensor:
    if self.numel() <= 1 or self.shape[dim] == 1:
        return grad
    if not (self._data == 0).any():
        return _reversed_cumsum(grad * result, dim) / self
    # With zeros, d out_j / d x_k is the product of x_i over i <= j, i != k: built for every k at
    # once (O(n^2) memory, as PyTorch's zero-safe formula), exact for double backward too.
    x, g = transpose(self, dim, -1), transpose(grad, dim, -1)
    n = x.shape[-1]
    others = cumprod(where(Tensor._wrap(np.eye(n, dtype=bool)), 1.0, unsqueeze(x, -2)), -1)  # [..., k, j]
    later = Tensor._wrap(np.triu(np.ones((n, n), dtype=bool)))  # j >= k
    return transpose(sum(where(later, others * unsqueeze(g, -2), 0.0), -1), dim, -1)


# -- max, min, amax, amin, argmax, argmin -----------------------------------------------------
max_result, min_result = return_type("max"), return_type("min")


def evenly_distribute(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """max()/min()/median() without dim: ties (NaNs included) share the gradient evenly, as in PyTorch."""
    mask = (self == result) | (isnan(self) & isnan(result))
    return mask * (grad / mask.sum())


def select_back(grad: Tensor, shape: Size, dim: int, keepdim: bool, indices: Tensor) -> Tensor:
    """The gradient of picking `indices` along dim (PyTorch's value_selecting_reduction_backward)."""
    if not shape:
        return grad
    where = indices._data if keepdim else indices._data.reshape(_kept_shape(shape, (dim,)))
    # NumPy scatters it either way: the op's own indices need none of scatter()'s checks
    out = np.zeros(shape, dtype=grad._data.dtype)
    out[along(where, dim)] = grad._data.reshape(where.shape)
    if not formulas_record():
        return Tensor._wrap(out)
    # PyTorch's graph, zeros(shape).scatter(dim, indices, grad); its zeros need no gradient, so a 0-d one stands in
    zeros_in = Tensor._wrap(np.zeros((), dtype=out.dtype))
    src = grad if keepdim else unsqueeze(grad, dim)
    return ScatterBackward0.record(out, (zeros_in, src), dim=dim, index=Tensor._wrap(where))


def selecting_entry(name: str) -> Derivative:
    return derivative(
        name, self=lambda grad, self_shape, dim, keepdim, indices: select_back(grad, self_shape, dim, keepdim, indices)
    )


def record_selection(entry: Derivative, input: Tensor, dim: int, keepdim: bool, indices: np.ndarray, kind: Any) -> Any:
    """values = input at `indices` (kept along dim), recorded with a value-selecting backward."""
    data = input._data.reshape(-1) if input.ndim == 0 else input._data
    values = data[along(indices, dim)]  # take_along_axis's work, without its checks on indices made here
    if not input.ndim:
        values, indices = values.reshape(()), indices.reshape(())
    elif not keepdim:
        values, indices = np.squeeze(values, axis=dim), np.squeeze(indices, axis=dim)
    index_tensor = Tensor._wrap(indices)
    result = entry.record(values, (input,), self_shape=input.shape, dim=dim, keepdim=keepdim, indices=index_tensor)
    return kind(result, index_tensor)


def check_nonempty_dim(input: Tensor, dim: int, op: str) -> int:
    d = input._wrap_dim(dim)
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    return d


MaxBackward1 = derivative("MaxBackward1", self=lambda grad, self, result: evenly_distribute(grad, self, result))
MinBackward1 = derivative("MinBackward1", self=lambda grad, self, result: evenly_distribute(grad, self, result))
MaxBackward0, MinBackward0 = selecting_entry("MaxBackward0"), selecting_entry("MinBackward0")


def _first_extreme(data: np.ndarray, d: int, is_max: bool) -> np.ndarray:
    """The first index of the max (min) along d, a NaN winning, kept along d."""
    arg = data.argmax(axis=d, keepdims=True) if is_max else data.argmin(axis=d, keepdims=True)  # the methods skip np.argmax's wrapper
    return arg.astype(np.int64, copy=False)


def _extreme(input: Tensor, dim: Any, keepdim: bool, which: str) -> Any:
    is_max = which == "max"
    if isinstance(dim, Tensor):
        from .binary import maximum, minimum

        return (maximum if is_max else minimum)(input, dim)
    refuse_barebones(f"{which}_all" if dim is None else f"{which}_cpu", input)
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError(
                f"{which}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        out = np.asarray(input._data.max() if is_max else input._data.min())
        return (MaxBackward1 if is_max else MinBackward1).record(out, (input,))
    d = check_nonempty_dim(input, dim, which)
    data = input._data.reshape(-1) if input.ndim == 0 else input._data
    entry, kind = (MaxBackward0, max_result) if is_max else (MinBackward0, min_result)
    return record_selection(entry, input, d, keepdim, _first_extreme(data, d, is_max), kind)


def max(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return _extreme(input, dim, keepdim, "max")


def min(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return _extreme(input, dim, keepdim, "min")


def _arg_extreme(input: Tensor, dim: int | None, keepdim: bool, which: str) -> Tensor:
    refuse_barebones(f"{which}_cpu", input)
    if dim is not None:
        return _extreme(input, dim, keepdim, which[3:]).indices
    if input.numel() == 0:
        raise IndexError(f"{which}(): Expected reduction dim to be specified for input.numel() == 0.")
    out = np.asarray((np.argmax if which == "argmax" else np.argmin)(input._data), dtype=np.int64)
    return Tensor._wrap(out.reshape((1,) * input.ndim) if keepdim else out)


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme(input, dim, keepdim, "argmax")


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme(input, dim, keepdim, "argmin")


AmaxBackward0 = derivative(
    "AmaxBackward0", self=lambda grad, self, result, dim, keepdim: _share_ties(grad, self, result, dim, keepdim)
)
AminBackward0 = derivative(
    "AminBackward0", self=lambda grad, self, result, dim, keepdim: _share_ties(grad, self, result, dim, keepdim)
)


def _share_ties(grad: Tensor, self: Tensor, result: Tensor, dim: tuple[int, ...], keepdim: bool) -> Tensor:
    """amax/amin: every tie gets an equal share of the gradient."""
    mask = _keep(result, self.shape, dim, keepdim) == self
    return _keep(grad, self.shape, dim, keepdim) / mask.sum(dim, keepdim=True) * mask


def _nonempty_dims(input: Tensor, dim: Dims, op: str) -> tuple[int, ...]:
    """The dims of a reduction that has no identity element (amax, hash_tensor): none of them may be empty. `op`
    begins the messages, as PyTorch's ("amax()", "hash_tensor")."""
    dims = _dims(input, dim)
    if input.numel() == 0:
        if dim is None or (not isinstance(dim, int) and not len(dim)):
            raise RuntimeError(
                f"{op}: Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        for d in dims:
            if input.shape[d] == 0:
                raise IndexError(f"{op}: Expected reduction dim {d} to have non-zero size.")
    return dims


def _amax_amin(input: Tensor, dim: Dims, keepdim: bool, which: str) -> Tensor:
    refuse_barebones(f"{which[1:]}_values_cpu", input)
    dims = _nonempty_dims(input, dim, f"{which}()")
    out = (np.amax if which == "amax" else np.amin)(input._data, axis=dims, keepdims=keepdim)
    entry = AmaxBackward0 if which == "amax" else AminBackward0
    return entry.record(np.asarray(out), (input,), dim=dims, keepdim=keepdim)


def amax(input: Tensor, dim: Dims = (), keepdim: bool = False) -> Tensor:
    return _amax_amin(input, dim, keepdim, "amax")


def amin(input: Tensor, dim: Dims = (), keepdim: bool = False) -> Tensor:
    return _amax_amin(input, dim, keepdim, "amin")


# -- var, std, logsumexp, norm -----------------------------------------------------------------
VarBackward0 = derivative(
    "VarBackward0",
    self=lambda grad, self, dim, correction, keepdim: _var_backward(grad, self, dim, correction, keepdim),
)
StdBackward0 = derivative(
    "StdBackward0",
    self=lambda grad, self, result, dim, correction, keepdim: _std_backward(grad, self, result, dim, correction, keepdim),
)


def _std_backward(grad: Tensor, self: Tensor, result: Tensor, dim: tuple[int, ...] | None, correction: float,
                  keepdim: bool) -> Tensor:
    return _var_backward(where(result == 0, 0.0, grad / (result * 2)), self, dim, correction, keepdim)


def _mean_backward(grad: Tensor, self: Tensor, dim: tuple[int, ...] | None, keepdim: bool) -> Tensor:
    if dim is None:
        return _expand_back(grad / builtins.max(self.numel(), 1), self.shape)
    return _expand_back(grad / _numel(self.shape, dim), self.shape, dim, keepdim)


def _with_mean_grad(spread_grad: Tensor | None, mean_grad: Tensor | None, self: Tensor, dim: tuple[int, ...] | None,
                    keepdim: bool) -> Tensor | None:
    """The gradient of var_mean's or std_mean's input: the spread's part (None where it got no gradient) plus the
    mean's."""
    if mean_grad is None:
        return spread_grad
    part = _mean_backward(mean_grad, self, dim, keepdim)
    return part if spread_grad is None else spread_grad + part


# One node with two outputs each, as PyTorch's; std_mean alone keeps its first output, as its formula needs it
VarMeanBackward0 = MultiOutput(
    "VarMeanBackward0", ("self",), ("result0", "result1"),
    self=lambda grads, self, dim, correction, keepdim: _with_mean_grad(
        None if grads[0] is None else _var_backward(grads[0], self, dim, correction, keepdim), grads[1], self, dim, keepdim
    ),
)
StdMeanBackward0 = MultiOutput(
    "StdMeanBackward0", ("self",), ("result0", "result1"),
    self=lambda grads, self, result0, dim, correction, keepdim: _with_mean_grad(
        None if grads[0] is None else _std_backward(grads[0], self, result0, dim, correction, keepdim), grads[1], self,
        dim, keepdim,
    ),
)


def _var_backward(grad: Tensor, self: Tensor, dim: tuple[int, ...] | None, correction: float, keepdim: bool) -> Tensor:
    if self.ndim == 0 or dim is None:
        dof = self.numel() - correction
        if dof <= 0:  # 2 / dof is infinite: NaN where self is its mean (inf * 0), inf elsewhere
            return grad * where(self == mean(self), math.nan, math.inf)
        return (2.0 / dof) * grad * (self - mean(self))
    dof = _numel(self.shape, dim) - correction
    scale = 2.0 / dof if dof else math.inf
    return scale * _keep(grad, self.shape, dim, keepdim) * (self - mean(self, dim, keepdim=True))


def _correction(dim: Any, unbiased: bool | None, correction: float | None, op: str) -> tuple[Any, float]:
    if isinstance(dim, bool):  # var(x, True): the legacy overload whose second argument is `unbiased`
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{op}() received an invalid combination of arguments: both 'unbiased' and 'correction'")
    if correction is None:
        correction = 0 if unbiased is False else 1
    return dim, correction


def _var(input: Tensor, dim: Any, unbiased: bool | None, keepdim: bool, correction: float | None, op: str) -> Tensor:
    out, _, attrs = _spread(input, dim, unbiased, keepdim, correction, op)
    return (StdBackward0 if op == "std" else VarBackward0).record(out, (input,), **attrs)


def _spread(input: Tensor, dim: Any, unbiased: bool | None, keepdim: bool, correction: float | None,
            op: str) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The variance (or standard deviation, for std and std_mean) and the mean, and the attributes a node keeps."""
    dim, corr = _correction(dim, unbiased, correction, op)
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = _dims(input, dim)
    # PyTorch's reduction factor: input numel over output numel (0 for empty inputs)
    kept = math.prod(s for i, s in enumerate(input.shape) if i not in dims)
    factor = input.numel() // builtins.max(1, kept)
    dof = builtins.max(0, factor - corr)
    if dof <= 0:
        warnings.warn(
            f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
            "(input numel divided by output numel).",
            UserWarning,
            stacklevel=4,
        )
    data = input._data
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = np.sum(data, axis=dims, keepdims=True) / _numel(input.shape, dims)
        centered = data - centre
        out = np.asarray(np.sum(centered * centered, axis=dims, keepdims=keepdim) / dof, dtype=data.dtype)
        if op.startswith("std"):
            out = np.sqrt(out)
    average = np.asarray(centre if keepdim else np.squeeze(centre, axis=dims), dtype=data.dtype)
    return out, average, {"dim": None if dim is None else dims, "correction": corr, "keepdim": keepdim}


def var(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: float | None = None) -> Tensor:
    return _var(input, dim, unbiased, keepdim, correction, "var")


def std(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: float | None = None) -> Tensor:
    return _var(input, dim, unbiased, keepdim, correction, "std")


def _with_mean(input: Tensor, dim: Any, unbiased: bool | None, keepdim: bool, correction: float | None,
               op: str) -> tuple[Tensor, Tensor]:
    out, average, attrs = _spread(input, dim, unbiased, keepdim, correction, op)
    entry = StdMeanBackward0 if op == "std_mean" else VarMeanBackward0
    return entry.record_all((out, average), (input,), **attrs)  # type: ignore[return-value]


def var_mean(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: float | None = None) -> tuple[Tensor, Tensor]:
    return _with_mean(input, dim, unbiased, keepdim, correction, "var_mean")


def std_mean(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: float | None = None) -> tuple[Tensor, Tensor]:
    return _with_mean(input, dim, unbiased, keepdim, correction, "std_mean")


LogsumexpBackward0 = derivative(
    "LogsumexpBackward0",
    self=lambda grad, self, result, dim, keepdim: _keep(grad, self.shape, dim, keepdim)
    * _exp(self - _keep(result, self.shape, dim, keepdim)),
)


def logsumexp(input: Tensor, dim: Dims, keepdim: bool = False) -> Tensor:
    dims = _dims(input, dim)
    data = input._data if input.dtype.is_floating_point else input._data.astype(_dtype.get_default_dtype().np)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        shift = np.amax(data, axis=dims, keepdims=True, initial=-np.inf)
        shift = np.where(np.isinf(shift), 0, shift).astype(data.dtype)
        out = np.log(np.sum(np.exp(data - shift), axis=dims, keepdims=True)) + shift
    return LogsumexpBackward0.record(_reduced(out, dims, keepdim), (input,), dim=dims, keepdim=keepdim)


LinalgVectorNormBackward0 = derivative(
    "LinalgVectorNormBackward0",
    self=lambda grad, self, ord, result, dim, keepdim: _norm_backward(grad, self, ord, result, dim, keepdim),
)


def _norm_backward(grad: Tensor, self: Tensor, ord: float, result: Tensor, dim: tuple[int, ...], keepdim: bool) -> Tensor | None:
    grad, result = _keep(grad, self.shape, dim, keepdim), _keep(result, self.shape, dim, keepdim)
    if ord == 0:
        return None  # PyTorch leaves the gradient of the 0-"norm" (a count) undefined
    if ord == 1:
        return sign(self) * grad
    if ord == 2:
        return grad * where(result == 0, 0.0, self / result)
    if math.isinf(ord):  # the gradient of amax(abs(self)), NaNs counting as maxima
        mask = (abs(self) == result) | isnan(self)
        return sign(self) * (grad / mask.sum(dim, keepdim=True) * mask)
    if ord < 1:
        return sign(self) * where(self == 0, 0.0, pow(abs(self), ord - 1)) * grad * pow(result, 1 - ord)
    scaled = sign(self) * pow(abs(self), ord - 1) if ord < 2 else self * pow(abs(self), ord - 2)
    return scaled * where(result == 0, 0.0, grad / pow(result, ord - 1))


def vector_norm(input: Tensor, ord: float = 2, dim: Dims = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if input.is_complex():  # the norm of the magnitudes, whose node carries the complex gradient
        return vector_norm(abs(input), ord, dim, keepdim, dtype=None if dtype is None else _dtype.to_dtype(dtype).to_real())
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {input.dtype.name.capitalize()}"
        )
    if dtype is not None and _dtype.to_dtype(dtype).itemsize < input.dtype.itemsize:
        raise RuntimeError(
            f"linalg.vector_norm: the dtype of the input ({input.dtype.scalar_name}) should be convertible "
            f"without narrowing to the specified dtype ({_dtype.to_dtype(dtype).scalar_name})"
        )
    dims = _dims(input, dim)
    data = input._data if dtype is None else input._data.astype(_dtype.to_dtype(dtype).np)
    a = np.abs(data)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if builtins.any(input.shape[d] == 0 for d in dims) and (ord < 0 or math.isinf(ord)):
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the operation does "
                "not have an identity"
            )
        if math.isinf(ord):
            out = (np.amax if ord > 0 else np.amin)(a, axis=dims, keepdims=keepdim)
        elif ord == 0:
            out = np.count_nonzero(a, axis=dims, keepdims=keepdim)
        elif ord == 1:
            out = np.sum(a, axis=dims, keepdims=keepdim)
        elif ord == 2:
            out = np.sqrt(np.sum(a * a, axis=dims, keepdims=keepdim))
        else:
            out = np.sum(a**ord, axis=dims, keepdims=keepdim) ** (1.0 / ord)
    out = np.asarray(out, dtype=data.dtype)
    return LinalgVectorNormBackward0.record(out, (input,), ord=ord, dim=dims, keepdim=keepdim)


def norm(input: Tensor, p: float | str | None = "fro", dim: Dims = None, keepdim: bool = False, out: Any = None, dtype: Any = None) -> Tensor:
    """torch.norm: a vector norm, or (p='nuc', or 'fro' over other than 1 or 2 dims) a matrix norm."""
    if not isinstance(p, str):
        return vector_norm(input, 2.0 if p is None else p, dim, keepdim, dtype=dtype)
    if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
        return vector_norm(input, 2, dim, keepdim, dtype=dtype)
    dims = tuple(range(input.ndim)) if dim is None else tuple(dim)  # type: ignore[arg-type]
    if p not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
    from . import NAMESPACES

    matrix_norm = NAMESPACES["glassgrad.linalg"].get("matrix_norm")
    if matrix_norm is None:
        raise NotImplementedError("norm(p='nuc') needs glassgrad.linalg.matrix_norm")
    return matrix_norm(input, p, dims, keepdim, dtype=dtype)


# -- logical reductions --------------------------------------------------------------------
def _logical(np_fn: Any, input: Tensor, dim: Dims, keepdim: bool) -> Tensor:
    out = np.asarray(np_fn(input._data, axis=_dims(input, dim), keepdims=keepdim))
    return Tensor._wrap(out.astype(np.uint8) if input.dtype is _dtype.uint8 else out)


def all(input: Tensor, dim: Dims = None, keepdim: bool = False) -> Tensor:
    return _logical(np.all, input, dim, keepdim)


def any(input: Tensor, dim: Dims = None, keepdim: bool = False) -> Tensor:
    return _logical(np.any, input, dim, keepdim)


def count_nonzero(input: Tensor, dim: Dims = None) -> Tensor:
    return Tensor._wrap(np.asarray(np.count_nonzero(input._data, axis=_dims(input, dim)), dtype=np.int64))


def hash_tensor(input: Tensor, dim: Dims = None, *, keepdim: bool = False, mode: int = 0) -> Tensor:
    """The xor of the elements' bits, each widened to a 64-bit float or integer first, as a uint64 tensor."""
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    d = input.dtype
    if d.is_complex or d in _dtype.BAREBONES:
        raise not_implemented_for("xor_sum_cpu", d)
    dims = _nonempty_dims(input, dim, "hash_tensor")
    bits = input._data.astype(np.float64 if d.is_floating_point else np.int64).view(np.uint64)
    return Tensor._wrap(np.asarray(np.bitwise_xor.reduce(bits, axis=dims, keepdims=keepdim), dtype=np.uint64))


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS = {
    "sum": sum, "mean": mean, "nansum": nansum, "nanmean": nanmean, "prod": prod, "max": max, "min": min, "amax": amax, "amin": amin, "argmax": argmax,
    "argmin": argmin, "var": var, "std": std, "var_mean": var_mean, "std_mean": std_mean, "norm": norm,
    "logsumexp": logsumexp, "cumsum": cumsum, "cumprod": cumprod, "all": all, "any": any,
    "count_nonzero": count_nonzero, "hash_tensor": hash_tensor,
}
METHODS = {name: fn for name, fn in FUNCTIONS.items() if name not in ("var_mean", "std_mean")}
INPLACE = ("cumsum", "cumprod")
