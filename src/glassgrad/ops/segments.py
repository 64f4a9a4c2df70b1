"""segment_reduce: a reduction over consecutive segments of one axis, their sizes given by lengths or offsets.

Segments are contiguous runs along `axis`; `lengths` (or the differences of `offsets`) may have leading
dims matching the data's, one row of segments per leading index. An empty segment gives `initial`, or the
reduction's identity (mean: NaN). The first derivative is PyTorch's CPU kernel's (ties of max/min share a positive
gradient evenly and each take a negative one whole; prod's is the product of the other elements); PyTorch has no
second.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from .table import NoForwardAD, derivative

_REDUCES = {"sum": "sum", "prod": "prod", "mean": "mean", "max": "max", "amax": "max", "min": "min", "amin": "min"}
_EMPTY = {"sum": 0.0, "prod": 1.0, "mean": np.nan, "max": -np.inf, "min": np.inf}


def _refuse(grad: Tensor) -> Tensor:
    raise RuntimeError("derivative for aten::_segment_reduce_backward is not implemented")


SegmentReduceBackwardBackward = derivative("NotImplemented", ("grad", "data"), grad=_refuse, data=_refuse)


def _segments(bounds: np.ndarray, lead: int) -> Iterator[tuple[int, int, int, int]]:
    """(leading index, segment, start, stop) of every segment; `bounds` holds each row's segment boundaries."""
    rows = np.broadcast_to(bounds.reshape(-1, bounds.shape[-1]), (lead, bounds.shape[-1]))
    for row in range(lead):
        for segment in range(rows.shape[1] - 1):
            yield row, segment, int(rows[row, segment]), int(rows[row, segment + 1])


def _flat(data: np.ndarray, axis: int) -> np.ndarray:
    """data as (leading, axis, trailing)."""
    lead, trail = (int(np.prod(part, dtype=np.int64)) for part in (data.shape[:axis], data.shape[axis + 1:]))
    return data.reshape(lead, data.shape[axis], trail)


def _reduced(values: np.ndarray, reduce: str, initial: Any) -> np.ndarray:
    if values.shape[0] == 0:
        return np.full(values.shape[1:], _EMPTY[reduce] if initial is None else initial)
    if reduce == "sum":
        return values.sum(0) + (initial or 0)
    if reduce == "mean":
        return (values.sum(0) + (initial or 0)) / values.shape[0]
    if reduce == "prod":
        return values.prod(0) * (1 if initial is None else initial)
    extreme = values.max(0) if reduce == "max" else values.min(0)
    return extreme if initial is None else (np.maximum if reduce == "max" else np.minimum)(extreme, initial)


def _others_product(values: np.ndarray) -> np.ndarray:
    """Each element's product of the other elements of its segment, exact with zeros (no division)."""
    before = np.cumprod(np.concatenate([np.ones_like(values[:1]), values[:-1]]), axis=0)
    after = np.cumprod(np.concatenate([np.ones_like(values[:1]), values[:0:-1]]), axis=0)[::-1]
    return before * after


def _backward(grad: Tensor, data: Tensor, result: Tensor, bounds: np.ndarray, axis: int, reduce: str,
              initial: Any) -> Tensor:
    values, outputs, grads = _flat(data._data, axis), _flat(result._data, axis), _flat(grad._data, axis)
    out = np.zeros_like(values)
    for row, segment, start, stop in _segments(bounds, values.shape[0]):
        if start >= stop:
            continue
        g, part = grads[row, segment], values[row, start:stop]
        if reduce == "sum":
            out[row, start:stop] = g
        elif reduce == "mean":
            out[row, start:stop] = g / (stop - start)
        elif reduce == "prod":
            out[row, start:stop] = g * _others_product(part) * (1 if initial is None else initial)
        else:
            # PyTorch's CPU kernel: every element equal to the extreme (or NaN) gets the gradient, and where there are
            # ties only the positive gradients are split among them (its check for an element being a tie).
            hits = np.isnan(part) | (part == outputs[row, segment])
            shares = np.where(hits, g, 0)
            ties = hits.sum(0)
            out[row, start:stop] = shares / np.where((ties >= 2) & (shares > 0), ties, 1)
    return SegmentReduceBackwardBackward.record(out.reshape(data.shape), (grad, data))


SegmentReduceBackward0 = derivative(
    "SegmentReduceBackward0", ("data",),
    data=lambda grad, data, result, bounds, axis, reduce, initial: _backward(grad, data, result, bounds, axis, reduce,
                                                                              initial),
    jvp=NoForwardAD("segment_reduce"),
)


def _integral(t: Tensor, kernel: str) -> np.ndarray:
    if t.dtype not in (_dtype.int64, _dtype.int32):
        raise NotImplementedError(f"\"_segment_reduce_{kernel}_cpu_kernel1\" not implemented for '{t.dtype.scalar_name}'")
    return t._data.astype(np.int64)


def segment_reduce(data: Tensor, reduce: str, *, lengths: Tensor | None = None, indices: Tensor | None = None,
                   offsets: Tensor | None = None, axis: int = 0, unsafe: bool = False, initial: Any = None) -> Tensor:
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if reduce not in _REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if not data.dtype.is_floating_point:
        raise NotImplementedError(f"\"_segment_reduce_cpu\" not implemented for '{data.dtype.scalar_name}'")
    if offsets is not None:  # offsets win when both are given, as in PyTorch
        bounds = _integral(offsets, "offsets")
        if bounds.ndim and (np.diff(bounds, axis=-1) < 0).any():
            raise RuntimeError("Expected segment_length >= 0 to be true, but got false.")
    else:
        sizes = _integral(lengths, "lengths")  # type: ignore[arg-type]
        bounds = np.concatenate([np.zeros((*sizes.shape[:-1], 1), np.int64), np.cumsum(sizes, axis=-1)], axis=-1) \
            if sizes.ndim else sizes
    axis = axis + data.ndim if axis < 0 else axis
    if data.ndim < bounds.ndim:
        raise RuntimeError("Expected data.dim() >= lengths_value.dim() to be true, but got false.")
    if axis != bounds.ndim - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of lengths but got {axis}.")
    if offsets is not None and bounds.size and (bounds.min() < 0 or bounds.max() > data.shape[axis]):
        # PyTorch reads past the data here (undefined behaviour; it can crash the process): glassgrad refuses.
        raise RuntimeError(
            f"segment_reduce(): offsets must lie in [0, {data.shape[axis]}] (the size of the reduced axis), but "
            f"range over [{bounds.min()}, {bounds.max()}]."
        )
    if offsets is None:
        if (sizes < 0).any():
            raise RuntimeError("lengths contains negative value!")
        if not unsafe and (sizes.sum(-1) != data.shape[axis]).any():
            raise RuntimeError(
                "segment_reduce(): Expected all rows of lengths along axis to sum to data.size(lengths.dim()-1) when "
                "!unsafe."
            )
    values, kind = _flat(data._data, axis), _REDUCES[reduce]
    count = bounds.shape[-1] - 1
    out = np.empty((values.shape[0], count, values.shape[2]), dtype=values.dtype)
    for row, segment, start, stop in _segments(bounds, values.shape[0]):
        out[row, segment] = _reduced(values[row, start:max(start, stop)], kind, initial)
    shape = (*data.shape[:axis], count, *data.shape[axis + 1:])
    return SegmentReduceBackward0.record(out.reshape(shape), (data,), bounds=bounds, axis=axis, reduce=kind,
                                         initial=initial)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {"segment_reduce": segment_reduce}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
