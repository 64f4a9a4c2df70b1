"""Scans beyond cumsum and cumprod (reduction.py's): logcumsumexp, cummax, cummin; and diff, which undoes a cumsum."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from .creation import zeros_like
from .elementwise import abs, exp, log, not_implemented_for, require_tensor, where
from .indexing import scatter_into_zeros
from .logic import logical_xor
from .quiet import quietly
from .reduction import flip_dim, record_selection, return_type
from .shape import cat, narrow
from .table import derivative

cummax_result, cummin_result = return_type("cummax"), return_type("cummin")


# -- logcumsumexp -------------------------------------------------------------------------------
def _logcumsumexp_backward(grad: Tensor, self: Tensor, result: Tensor, dim: int) -> Tensor:
    """PyTorch's formula, in ops that differentiate again: sum over later j of grad_j exp(self_i - result_j), taken
    as a reversed logcumsumexp of log|grad_j| - result_j for grad's positive and negative parts apart, so that no
    exp overflows. Where a prefix is all -inf (result -inf) it is NaN, as in PyTorch."""
    if grad.ndim == 0 or grad.numel() == 0:
        return grad
    lowest = float(np.finfo(grad._data.dtype).min)  # log of a zero part: finite, so lowest - result stays a number
    log_abs = log(abs(grad))

    def part(log_part: Tensor) -> Tensor:
        return exp(flip_dim(logcumsumexp(flip_dim(log_part - result, dim), dim), dim) + self)

    return part(where(grad > 0, log_abs, lowest)) - part(where(grad < 0, log_abs, lowest))


LogcumsumexpBackward0 = derivative("LogcumsumexpBackward0", self=_logcumsumexp_backward)


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    if not require_tensor("logcumsumexp", "input", 1, input).dtype.is_floating_point:
        raise not_implemented_for("logcumsumexp_out_cpu", input.dtype)
    d = input._wrap_dim(dim)
    data = input._data.reshape(-1) if input.ndim == 0 else input._data
    # log(exp(a) + exp(b)) one step at a time, as PyTorch's kernel: -inf and inf need no special case in NumPy's
    # logaddexp, and PyTorch accumulates float32 (and float16) in double as done here.
    out = quietly(np.logaddexp.accumulate, data.astype(np.float64, copy=False), d)
    return LogcumsumexpBackward0.record(out.astype(data.dtype).reshape(input.shape), (input,), dim=d)


# -- cummax, cummin -------------------------------------------------------------------------------
def _cummaxmin_backward(grad: Tensor, self: Tensor, dim: int, indices: Tensor) -> Tensor:
    """Each output's gradient back to the element it copied (PyTorch saves self, for its shape)."""
    return grad if self.numel() == 0 else scatter_into_zeros(grad, self.shape, dim, indices)


CummaxBackward0 = derivative("CummaxBackward0", self=_cummaxmin_backward)
CumminBackward0 = derivative("CumminBackward0", self=_cummaxmin_backward)


def _running_extreme(op: str, input: Tensor, dim: int, ufunc: np.ufunc, entry: Any, kind: Any) -> Any:
    d = require_tensor(op, "input", 1, input)._wrap_dim(dim)
    data = input._data.reshape(-1) if input.ndim == 0 else input._data
    running = ufunc.accumulate(data, axis=d)  # np.maximum and np.minimum keep a NaN once met, as PyTorch does
    # PyTorch's kernel moves to element i when it is >= (<= for cummin) the running extreme, or NaN: so the index is
    # the last position so far whose element equals the running extreme (later ties win), or the last NaN.
    moves = data == running
    if data.dtype.kind == "f":
        moves |= np.isnan(data)
    positions = np.arange(data.shape[d]).reshape([-1 if axis == d else 1 for axis in range(data.ndim)])
    indices = np.maximum.accumulate(np.where(moves, positions, 0), axis=d)
    return record_selection(entry, input, d, True, indices, kind)


def cummax(input: Tensor, dim: int) -> Any:
    return _running_extreme("cummax", input, dim, np.maximum, CummaxBackward0, cummax_result)


def cummin(input: Tensor, dim: int) -> Any:
    return _running_extreme("cummin", input, dim, np.minimum, CumminBackward0, cummin_result)


# -- diff -----------------------------------------------------------------------------------------
def _check_diff_operand(input: Tensor, other: Tensor | None, arg: str, dim: int) -> None:
    if other is None:
        return
    if not isinstance(other, Tensor):
        raise TypeError(f"diff(): argument '{arg}' must be Tensor, not {type(other).__name__}")
    d = input._wrap_dim(dim)
    if other.ndim != input.ndim:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i, (have, want) in enumerate(zip(other.shape, input.shape, strict=True)):
        if i != d and have != want:
            raise RuntimeError(
                "diff expects the shape of tensor to prepend or append to match that of input except along the "
                f"differencing dimension; input.size({i}) = {want}, but got tensor.size({i}) = {have}"
            )


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None, append: Tensor | None = None) -> Tensor:
    """The n-th forward difference along dim: narrowed views subtracted (logical_xor for bool), as PyTorch composes it."""
    if require_tensor("diff", "input", 1, input).ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    _check_diff_operand(input, prepend, "prepend", dim)
    _check_diff_operand(input, append, "append", dim)
    if n == 0:  # a copy of the input, prepend and append ignored (CopyBackwards), as PyTorch does
        return zeros_like(input).copy_(input)
    x = input
    if prepend is not None or append is not None:
        x = cat([t for t in (prepend, input, append) if t is not None], dim)
    d = x._wrap_dim(dim)
    for _ in range(min(n, x.shape[d])):  # past the size of dim, every further difference would be empty anyway
        length = x.shape[d] - 1
        later, earlier = narrow(x, d, 1, length), narrow(x, d, 0, length)
        x = logical_xor(later, earlier) if x.dtype is _dtype.bool_ else later - earlier
    return x


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "logcumsumexp": logcumsumexp, "cummax": cummax, "cummin": cummin, "diff": diff,
}
METHODS: dict[str, Callable[..., Any]] = dict(FUNCTIONS)
INPLACE: tuple[str, ...] = ()
