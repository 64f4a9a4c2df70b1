"""Scans beyond cumsum and cumprod (reduction.py's): logcumsumexp, cummax, cummin; diff, which undoes a cumsum, and
gradient (finite differences); the trapezoid rule, whole (trapezoid, trapz) and cumulative.

diff, gradient and the trapezoids are PyTorch's compositions of slices and arithmetic (ReduceOps.cpp,
Integration.cpp), so their graphs and gradients are PyTorch's."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _dtype
from .._quiet import quietly
from ..tensor import Tensor
from .creation import zeros, zeros_like
from .elementwise import abs, exp, log, not_implemented_for, require_tensor, where
from .indexing import scatter_into_zeros
from .logic import logical_xor
from .reduction import cumsum, flip_dim, record_selection, return_type
from .reduction import sum as reduce_sum
from .shape import cat, narrow, reshape, select, view
from .table import derivative

cummax_result, cummin_result = return_type("cummax"), return_type("cummin")


# -- logcumsumexp -------------------------------------------------------------------------------
def _logcumsumexp_backward(grad: Tensor, self: Tensor, result: Tensor, dim: int) -> Tensor:
    """PyTorch's formula, in ops that differentiate again: sum over later j of grad_j exp(self_i - result_j), taken
    as a reversed logcumsumexp of log|grad_j| - result_j for grad's positive and negative parts apart, so that no
    exp overflows. Where a prefix is all -inf (result -inf) it is NaN, as in PyTorch."""
    if grad.ndim == 0 or grad.numel() == 0:
        return grad
    lowest = float(_dtype.machine_limits(grad._data.dtype).min)  # log of a zero part: finite, so lowest - result stays a number
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
    if _dtype.is_floating(data.dtype):
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


# -- the trapezoid rule ---------------------------------------------------------------------------------
def _slice(t: Tensor, dim: int, start: int, stop: int | None = None) -> Tensor:
    """t[start:stop] along dim, negative bounds counting from the end, as at::slice."""
    size = t.shape[dim]
    first, last, _ = slice(start, stop).indices(size)
    return narrow(t, dim, first, max(last - first, 0))


def _spacing(y: Tensor, x: Tensor, dim: int, op: str) -> Tensor:
    """The differences of the sample points x, shaped to broadcast against y's differences along dim."""
    if y.dtype is _dtype.bool_ or x.dtype is _dtype.bool_:
        raise RuntimeError(f"{op}: received a bool input for `x` or `y`, but bool is not supported")
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
        x = view(x, tuple(-1 if i == dim else 1 for i in range(y.ndim)))
    elif x.ndim < y.ndim:
        x = view(x, (1,) * (y.ndim - x.ndim) + tuple(x.shape))
    return _slice(x, dim, 1) - _slice(x, dim, 0, -1)


def _check_dx(y: Tensor, dx: Any, op: str) -> float:
    if y.dtype is _dtype.bool_:
        raise RuntimeError(f"{op}: received a bool input for `y`, but bool is not supported")
    if isinstance(dx, (bool, complex)):
        raise RuntimeError(f"{op}: Currently, we only support dx as a real number.")
    return float(dx)


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None, dim: int = -1) -> Tensor:
    """The integral of y along dim by the trapezoid rule, at sample points x or spaced dx apart (1 by default)."""
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments - got both 'x' and 'dx'")
    d = y._wrap_dim(dim)
    if y.shape[d] == 0:  # no samples: zero, as NumPy says
        return zeros(tuple(s for i, s in enumerate(y.shape) if i != d), dtype=y.dtype)
    if x is not None:
        left, right = _slice(y, d, 0, -1), _slice(y, d, 1)
        return reduce_sum((left + right) * _spacing(y, x, d, "trapezoid"), d) / 2.0
    step = _check_dx(y, 1 if dx is None else dx, "trapezoid")
    return (reduce_sum(y, d) - (select(y, d, 0) + select(y, d, -1)) * 0.5) * step


def trapz(y: Tensor, x: Tensor | None = None, *, dx: float | None = None, dim: int = -1) -> Tensor:
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None, dim: int = -1) -> Tensor:
    """The running integral of y along dim by the trapezoid rule (one element fewer than y along dim)."""
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid() received an invalid combination of arguments - got both 'x' and 'dx'")
    d = y._wrap_dim(dim)
    if x is not None:
        spacing = _spacing(y, x, d, "cumulative_trapezoid")
        return cumsum((_slice(y, d, 0, -1) + _slice(y, d, 1)) * spacing, d) / 2.0
    step = _check_dx(y, 1 if dx is None else dx, "cumulative_trapezoid")
    return cumsum(step / 2.0 * (_slice(y, d, 0, -1) + _slice(y, d, 1)), d)


# -- gradient: central differences inside, one-sided at the edges --------------------------------------------
def _gradient_at_points(input: Tensor, coordinates: Tensor, d: int, edge_order: int) -> Tensor:
    """d input / d coordinate along d, for samples at `coordinates` (PyTorch's gradient_helper)."""
    if coordinates.ndim != 1:
        raise RuntimeError(
            "torch.gradient expected each element of spacing to have one dimension, but got an element with "
            f"{coordinates.ndim} dimensions!"
        )
    shape = tuple(-1 if i == d else 1 for i in range(input.ndim))
    h = diff(coordinates, 1, 0)
    h1, h2 = _slice(h, 0, 0, -1), _slice(h, 0, 1)
    a, b, c = (reshape(w, shape) for w in (-h2 / (h1 * (h1 + h2)), (h2 - h1) / (h1 * h2), h1 / (h2 * (h1 + h2))))
    center = a * _slice(input, d, 0, -2) + b * _slice(input, d, 1, -1) + c * _slice(input, d, 2)
    if edge_order == 1:
        first = (_slice(input, d, 1, 2) - _slice(input, d, 0, 1)) / h[0]
        last = (_slice(input, d, -1) - _slice(input, d, -2, -1)) / h[-1]
    else:
        first = (-(2.0 * h[0] + h[1]) / (h[0] * (h[0] + h[1])) * _slice(input, d, 0, 1)
                 + (h[0] + h[1]) / (h[0] * h[1]) * _slice(input, d, 1, 2)
                 + (-h[0]) / (h[1] * (h[0] + h[1])) * _slice(input, d, 2, 3))
        last = (h[-1] / (h[-2] * (h[-1] + h[-2])) * _slice(input, d, -3, -2)
                - (h[-1] + h[-2]) / (h[-1] * h[-2]) * _slice(input, d, -2, -1)
                + (2 * h[-1] + h[-2]) / (h[-1] * (h[-1] + h[-2])) * _slice(input, d, -1))
    return cat([first, center, last], d)


def _gradient_spaced(input: Tensor, step: float, d: int, edge_order: int) -> Tensor:
    """d input / d x along d, for samples `step` apart (PyTorch's gradient_helper_float)."""
    center = (_slice(input, d, 2) - _slice(input, d, 0, -2)) / step
    if edge_order == 1:
        first = (_slice(input, d, 1, 2) - _slice(input, d, 0, 1)) / step
        last = (_slice(input, d, -1) - _slice(input, d, -2, -1)) / step
    else:
        first = (_slice(input, d, 0, 1) * -1.5 + _slice(input, d, 1, 2) * 2 - _slice(input, d, 2, 3) * 0.5) / step
        last = (_slice(input, d, -3, -2) * 0.5 + _slice(input, d, -2, -1) * -2 + _slice(input, d, -1) * 1.5) / step
    return cat([first, center / 2, last], d)


def gradient(input: Tensor, *, spacing: Any = 1, dim: int | Sequence[int] | None = None, edge_order: int = 1) -> tuple[Tensor, ...]:
    """The derivative of the sampled function along each dim in `dim` (all by default), by second-order central
    differences inside and first- or second-order one-sided differences at the edges."""
    if input.dtype is _dtype.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    steps = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(steps) != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to have the "
            f"same length, but got a spacing argument of length {len(steps)} and a dim argument of length {len(dims)}."
            if dim is not None else
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to 'self.dim() = "
            f"{input.ndim}', since dim argument was not given, but got a list of length {len(steps)}"
        )
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    wrapped = [input._wrap_dim(d) for d in dims]
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"dim {wrapped[0]} appears multiple times in the list of dims")
    if any(input.shape[d] < edge_order + 1 for d in wrapped):
        raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    return tuple(
        _gradient_at_points(input, step, d, edge_order) if isinstance(step, Tensor) else _gradient_spaced(input, step, d, edge_order)
        for step, d in zip(steps, wrapped, strict=True)
    )


# -- what this module exports (collected by ops/__init__.py) --------------------------------
_BOTH: dict[str, Callable[..., Any]] = {
    "logcumsumexp": logcumsumexp, "cummax": cummax, "cummin": cummin, "diff": diff,
}
FUNCTIONS: dict[str, Callable[..., Any]] = {
    **_BOTH, "gradient": gradient, "trapezoid": trapezoid, "trapz": trapz, "cumulative_trapezoid": cumulative_trapezoid,
}
METHODS: dict[str, Callable[..., Any]] = dict(_BOTH)
INPLACE: tuple[str, ...] = ()
