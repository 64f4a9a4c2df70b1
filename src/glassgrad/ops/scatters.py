"""The inverses of views, out of place: select_scatter, slice_scatter, diagonal_scatter, as_strided_scatter (a copy
of input with src written into one view of it), and index_reduce and put (whole slices, flat positions).

Each *_scatter's derivative is the view for src and the scatter of zeros for input, so it differentiates again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from .creation import zeros, zeros_like
from .indexing import _scatter_reduce_backward, check_flat_index, scatter_reduce, take
from .rearrange import _diagonal_dims, diagonal
from .shape import narrow, reshape, select
from .strided import as_strided, check_geometry, positions
from .subscript import getitem
from .table import NoForwardAD, derivative


def _write_into(input: Tensor, src: Tensor, region: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """A copy of input with src (cast to input's dtype) written into `region` of it."""
    out = input._data.copy()
    target = region(out)
    _check_src(src, target.shape)
    target[...] = src._data
    return out


def _check_src(src: Tensor, shape: tuple[int, ...]) -> None:
    if tuple(src.shape) != tuple(shape):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, slice size = {list(shape)}"
        )


# -- select_scatter -----------------------------------------------------------------------------------
SelectScatterBackward0 = derivative(
    "SelectScatterBackward0", ("self", "src"),
    self=lambda grad, dim, index: select_scatter(grad, zeros_like(select(grad, dim, index)), dim, index),
    src=lambda grad, dim, index: select(grad, dim, index),
)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    out = _write_into(input, src, lambda a: select(Tensor._wrap(a), dim, index)._data)  # select's checks and errors
    d = input._wrap_dim(dim)
    return SelectScatterBackward0.record(out, (input, src), dim=d, index=index % input.shape[d])


# -- slice_scatter ------------------------------------------------------------------------------------
def _slice(t: Tensor, dim: int, start: int, stop: int, step: int) -> Tensor:
    return narrow(t, dim, start, stop - start) if step == 1 else getitem(t, (slice(None),) * dim + (slice(start, stop, step),))


SliceScatterBackward0 = derivative(
    "SliceScatterBackward0", ("self", "src"),
    self=lambda grad, dim, start, stop, step: slice_scatter(grad, zeros_like(_slice(grad, dim, start, stop, step)), dim, start, stop, step),
    src=lambda grad, dim, start, stop, step: _slice(grad, dim, start, stop, step),
)


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> Tensor:
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    d = input._wrap_dim(dim)
    size = input.shape[d] if input.ndim else 1
    first, stop, _ = slice(start, end).indices(size)
    stop = max(stop, first)
    out = _write_into(input, src, lambda a: _slice(Tensor._wrap(a), d, first, stop, step)._data)
    return SliceScatterBackward0.record(out, (input, src), dim=d, start=first, stop=stop, step=step)


# -- diagonal_scatter ---------------------------------------------------------------------------------
DiagonalScatterBackward0 = derivative(
    "DiagonalScatterBackward0", ("self", "src"),
    self=lambda grad, offset, dim1, dim2: diagonal_scatter(grad, zeros_like(diagonal(grad, offset, dim1, dim2)), offset, dim1, dim2),
    src=lambda grad, offset, dim1, dim2: diagonal(grad, offset, dim1, dim2),
)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    d1, d2 = _diagonal_dims(input.ndim, input, dim1, dim2)
    out = _write_into(input, src, lambda a: diagonal(Tensor._wrap(a), offset, d1, d2)._data)
    return DiagonalScatterBackward0.record(out, (input, src), offset=offset, dim1=d1, dim2=d2)


# -- as_strided_scatter -------------------------------------------------------------------------------
def _as_strided_scatter_self(grad: Tensor, size: tuple[int, ...], stride: tuple[int, ...], offset: int) -> Tensor:
    return as_strided_scatter(grad, zeros_like(as_strided(grad, size, stride, offset)), size, stride, offset)


AsStridedScatterBackward0 = derivative(
    "AsStridedScatterBackward0", ("self", "src"),
    self=_as_strided_scatter_self,
    src=lambda grad, size, stride, offset: as_strided(grad, size, stride, offset),
)


def as_strided_scatter(input: Tensor, src: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """A contiguous copy of input with src written into its as_strided view (offsets count from the copy's start).

    Where that view's elements overlap, the later write wins, as in PyTorch's forward; PyTorch 2.13's derivative for
    input is wrong (it keeps the gradient of the written positions and drops the others'): glassgrad's is the true
    one, the gradient with the written positions zeroed.
    """
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    offset = 0 if storage_offset is None else int(storage_offset)
    out = np.array(input._data, order="C")
    flat = out.reshape(-1)
    check_geometry(size, stride, offset, flat.size, flat.itemsize)
    _check_src(src, size)
    # element by element in C order, so that where positions repeat the last write wins, as in PyTorch's copy
    flat[positions(size, stride, offset).reshape(-1)] = src._data.reshape(-1)
    return AsStridedScatterBackward0.record(out, (input, src), size=size, stride=stride, offset=offset)


# -- index_reduce: slices of source reduced into input's slices at index ------------------------------
def _index_reduce_grad(which: int) -> Callable[..., Tensor]:
    """PyTorch's index_reduce_backward is scatter_reduce's with the index spread over source's shape."""
    def formula(grad: Tensor, self: Tensor, source: Tensor, result: Tensor, dim: int, index: Tensor, reduce: str,
                include_self: bool) -> Tensor:
        return _scatter_reduce_backward(
            grad, self, source, result, dim, index, reduce, include_self, ("index_reduce", "source")
        )[which]

    return formula


IndexReduceBackward0 = derivative("IndexReduceBackward0", ("self", "source"), jvp=NoForwardAD("index_reduce"), self=_index_reduce_grad(0), source=_index_reduce_grad(1))


def _check_index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str) -> int:
    """PyTorch's checks, in its order (index_func_meta_impl, then the kernel's bounds)."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = input._wrap_dim(dim)
    if index.ndim > 1:
        raise IndexError(
            f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
            f"{index.dtype.scalar_name} and size: {list(index.shape)}"
        )
    if index.dtype.name not in ("int64", "int32"):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {index.dtype.scalar_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({input.dtype.scalar_name}) and source ({source.dtype.scalar_name}) must have the "
            "same scalar type"
        )
    slices = source.shape[source._wrap_dim(d)] if source.ndim else 1
    if index.numel() != slices:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to source.size(dim): ({slices}), "
            f"for dim: {d}"
        )
    if source.ndim != input.ndim or any(a != b for i, (a, b) in enumerate(zip(input.shape, source.shape, strict=True)) if i != d):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = "
            f"{list(input.shape)} source.shape = {list(source.shape)}"
        )
    idx = index._data
    if idx.size and (idx.min() < 0 or idx.max() >= input.shape[d]):
        raise IndexError("index out of range in self")
    return d


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
    d = _check_index_reduce(input, dim, index, source, reduce)
    spread = np.broadcast_to(index._data.astype(np.int64).reshape([-1 if a == d else 1 for a in range(source.ndim)]), source.shape)
    spread_index = Tensor._wrap(np.ascontiguousarray(spread))
    with no_grad():
        out = scatter_reduce(input, d, spread_index, source, reduce, include_self=include_self)._data
    return IndexReduceBackward0.record(
        out, (input, source), dim=d, index=spread_index, reduce=reduce, include_self=include_self
    )


# -- put: source at flat positions --------------------------------------------------------------------
PutBackward0 = derivative(
    "PutBackward0", ("self", "source"),
    self=lambda grad, index, accumulate: grad if accumulate else put(grad, index, zeros(index.shape, dtype=grad.dtype)),
    source=lambda grad, index, source_shape: reshape(take(grad, index), source_shape),
)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    for position, (name, value) in enumerate((("index", index), ("source", source)), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"put(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")
    if index.dtype.name != "int64":
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index.dtype.scalar_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got self.dtype = {input.dtype.scalar_name} "
            f"and source.dtype = {source.dtype.scalar_name}"
        )
    if source.numel() != index.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got source.numel() = "
            f"{source.numel()}, index.numel() = {index.numel()}"
        )
    if input.numel() == 0 and index.numel():
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    idx = index._data.reshape(-1)
    check_flat_index(idx, input.numel())
    out = input._data.copy()
    flat, values = out.reshape(-1), source._data.reshape(-1)
    if accumulate:
        np.add.at(flat, idx, values)
    else:
        flat[idx] = values
    return PutBackward0.record(out, (input, source), index=index, accumulate=accumulate, source_shape=source.shape)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
_BOTH: dict[str, Callable[..., Any]] = {
    "select_scatter": select_scatter, "slice_scatter": slice_scatter, "diagonal_scatter": diagonal_scatter,
    "as_strided_scatter": as_strided_scatter, "index_reduce": index_reduce,
}
FUNCTIONS = {**_BOTH, "put": put}
METHODS = {**_BOTH, "put": put}
INPLACE = ("index_reduce", "put")
