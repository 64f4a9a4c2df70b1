"""Views by strides: as_strided, Tensor.unfold (sliding windows), ravel, and the unsafe splits.

as_strided reads PyTorch's storage, which for glassgrad is the NumPy buffer that owns the tensor's memory: its
storage_offset counts from there, and its bounds are that buffer's. Views whose elements may share memory (unfold
with step < size, as_strided with overlapping strides) are read-only: an in-place op on one raises PyTorch's
overlap error rather than write an order-dependent result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..autograd.inplace import has_internal_overlap, strides_overlap
from ..storage import untyped_storage
from ..tensor import Size, Tensor
from .creation import _finish, _float_or, _size, zeros
from .shape import as_view, chunk, reshape, split, split_entry, split_with_sizes, unbind
from .subscript import getitem, index_put
from .table import derivative, for_complex


# -- storage -------------------------------------------------------------------------------------------
def storage_of(data: np.ndarray) -> tuple[np.ndarray, int]:
    """The flat buffer that `data` lives in (PyTorch's storage) in data's dtype, and data's offset into it."""
    owner = data
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        raise RuntimeError(
            "as_strided: glassgrad cannot see this tensor's storage (its NumPy array is a strided view of memory that "
            "NumPy does not own); call .contiguous() on it first"
        )
    itemsize = data.itemsize
    flat = np.ndarray((owner.nbytes // itemsize,), data.dtype, owner.reshape(-1, order="A").view(np.uint8))
    if not owner.flags.writeable:
        flat.flags.writeable = False
    start = data.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    return flat, start // itemsize


def positions(shape: Sequence[int], stride: Sequence[int], offset: int) -> np.ndarray:
    """The storage position of every element of a tensor of this geometry, in its (C) order."""
    out = np.full(tuple(shape), offset, dtype=np.int64)
    for axis, (size, step) in enumerate(zip(shape, stride, strict=True)):
        out += (np.arange(size, dtype=np.int64) * step).reshape((-1,) + (1,) * (len(shape) - axis - 1))
    return out


def strided_view(flat: np.ndarray, shape: tuple[int, ...], stride: tuple[int, ...], offset: int) -> np.ndarray:
    """The view of `flat` with this geometry (in elements); read-only where its elements may overlap."""
    itemsize = flat.itemsize
    start = min(offset, flat.size) * itemsize  # an empty view may start past the end (PyTorch checks no bounds then)
    # np.ndarray over the buffer: a tenth of np.lib.stride_tricks.as_strided's cost, and flat's writeability
    return _guarded(np.ndarray(shape, flat.dtype, flat, start, tuple(s * itemsize for s in stride)))


def _guarded(view: np.ndarray) -> np.ndarray:
    """`view`, made read-only if two of its elements may share memory, so that in-place ops refuse it."""
    if view.flags.writeable and has_internal_overlap(view):
        view.flags.writeable = False
    return view


def check_geometry(size: Sequence[int], stride: Sequence[int], offset: int, storage_size: int, itemsize: int) -> None:
    """PyTorch's checks of an as_strided geometry against a storage of `storage_size` elements."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    if 0 in size:
        return
    needed = offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True)) + 1
    if needed > storage_size:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize {itemsize} "
            f"requiring a storage size of {needed * itemsize} are out of bounds for storage of size {storage_size * itemsize}"
        )


# -- as_strided ----------------------------------------------------------------------------------------
def _as_strided_backward(grad: Tensor, self_geometry: tuple[Any, ...], size: tuple[int, ...], stride: tuple[int, ...],
                         storage_offset: int | None, storage_size: int) -> Tensor:
    """The output's gradient summed into storage, read back at the input's elements (PyTorch's as_strided_backward);
    an input whose elements share memory (an expanded tensor) takes each location's gradient once, shared evenly.
    `storage_offset` is the one the call gave (None: the input's own, the last of self_geometry), as PyTorch saves it."""
    offset = self_geometry[2] if storage_offset is None else storage_offset
    read = positions(*self_geometry).reshape(-1)
    written = Tensor._wrap(positions(size, stride, offset).reshape(-1))
    # Accumulating (np.add.at) is many times slower than writing: only an overlapping output needs it.
    storage = index_put(zeros(storage_size, dtype=grad.dtype), (written,), reshape(grad, -1),
                        accumulate=strides_overlap(size, stride))
    g = getitem(storage, Tensor._wrap(read))
    if strides_overlap(self_geometry[0], self_geometry[1]):
        counts = np.bincount(read, minlength=storage_size)[read]
        if (counts > 1).any():
            g = g / Tensor._wrap(counts.astype(grad._data.dtype))
    return reshape(g, self_geometry[0])


AsStridedBackward0 = derivative("AsStridedBackward0", self=_as_strided_backward)


def _geometry(t: Tensor, offset: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    return tuple(t.shape), t.stride(), offset


def as_strided(input: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    flat, own_offset = storage_of(input._data)
    offset = own_offset if storage_offset is None else int(storage_offset)
    check_geometry(size, stride, offset, flat.size, flat.itemsize)
    out = strided_view(flat, size, stride, offset)
    result = AsStridedBackward0.record(
        out, (input,), self_geometry=_geometry(input, own_offset), size=size, stride=stride,
        storage_offset=None if storage_offset is None else offset, storage_size=flat.size,
    )
    return as_view(result, input, as_strided, size, stride, offset)  # the offset is the storage's: replays unchanged


# -- unfold: sliding windows along one dim ----------------------------------------------------------------
def _unfold_backward(grad: Tensor, self_shape: tuple[int, ...], dim: int, size: int, step: int) -> Tensor:
    out = np.zeros(self_shape, dtype=grad._data.dtype)
    lifted = out.reshape(-1) if not self_shape else out
    windows = grad.shape[dim] if self_shape else 1
    g = grad._data if self_shape else grad._data.reshape(1, -1)
    for k in range(size):  # the k-th element of every window, added back where it came from
        target = (slice(None),) * dim + (slice(k, k + step * (windows - 1) + 1, step),)
        lifted[target] += g[..., k]
    return UnfoldBackwardBackward0.record(out, (grad,), dim=dim, size=size, step=step)


UnfoldBackward0 = derivative("UnfoldBackward0", self=_unfold_backward)
UnfoldBackwardBackward0 = derivative(
    "UnfoldBackwardBackward0", self=lambda grad, dim, size, step: unfold(grad, dim, size, step)
)
for _linear in (UnfoldBackward0, UnfoldBackwardBackward0):  # reading no input values: they hold for complex tensors
    for_complex(_linear, **_linear.formulas)


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Every window of `size` elements along `dimension`, `step` apart, as a new last dim: a view."""
    d = input._wrap_dim(dimension)
    data = input._data.reshape(1) if input.ndim == 0 else input._data
    length = data.shape[d]
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    windows = (length - size) // step + 1
    shape = (*data.shape[:d], windows, *data.shape[d + 1 :], size)
    strides = (*data.strides[:d], data.strides[d] * step, *data.strides[d + 1 :], data.strides[d])
    out = _guarded(np.lib.stride_tricks.as_strided(data, shape, strides, writeable=data.flags.writeable))
    if input.ndim == 0:
        out = out.reshape(size)
    result = UnfoldBackward0.record(out, (input,), self_shape=tuple(input.shape), dim=d, size=size, step=step)
    return as_view(result, input, unfold, d, size, step)


# -- ravel and the unsafe splits ---------------------------------------------------------------------------
def ravel(input: Tensor) -> Tensor:
    return reshape(input, -1)


def _unsafe(pieces: tuple[Tensor, ...], input: Tensor, dim: int, entry_name: str, **attrs: Any) -> tuple[Tensor, ...]:
    """split's pieces as PyTorch's unsafe forms make them: sharing input's memory but not marked as its views, so an
    in-place op on one is not tracked through input (the point, and the danger, of the unsafe forms); one node."""
    entry = split_entry(entry_name, len(pieces))
    return entry.record_all([p._data for p in pieces], (input,), self_sym_sizes=input.shape, dim=input._wrap_dim(dim), **attrs)


def unsafe_split(tensor: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    if not isinstance(split_size, int):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 1) must be int, not {type(split_size).__name__}")
    with no_grad():  # only the pieces' arrays are wanted: no view nodes
        pieces = split(tensor, split_size, dim)
    return _unsafe(pieces, tensor, dim, "UnsafeSplitBackward0", split_size=split_size)


def unsafe_split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    with no_grad():
        pieces = split_with_sizes(input, split_sizes, dim)
    return _unsafe(pieces, input, dim, "UnsafeSplitWithSizesBackward0", split_sizes=tuple(split_sizes))


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    with no_grad():
        pieces = chunk(input, chunks, dim)
    d = input._wrap_dim(dim)
    if not input.shape[d]:  # chunk made them with split_with_sizes
        return _unsafe(pieces, input, d, "UnsafeSplitWithSizesBackward0", split_sizes=(0,) * len(pieces))
    return _unsafe(pieces, input, d, "UnsafeSplitBackward0", split_size=pieces[0].shape[d])


# -- unravel_index: flat positions to coordinates ------------------------------------------------------------
def unravel_index(indices: Tensor, shape: int | Sequence[int]) -> tuple[Tensor, ...]:
    """Each flat index as coordinates in `shape`, by floor division and modulo as PyTorch computes them (so an index
    out of range wraps around rather than fails)."""
    if indices.dtype.is_floating_point or indices.dtype.name == "bool":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    sizes = (shape,) if isinstance(shape, int) else tuple(shape)
    for size in sizes:
        if not isinstance(size, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(size)}")
    if any(size < 0 for size in sizes):
        raise ValueError(f"'shape' cannot have negative values, but got {sizes}")
    steps = np.cumprod((1, *sizes[:0:-1]), dtype=np.int64)[::-1]
    flat = indices._data.astype(np.int64)[..., None]
    with np.errstate(divide="ignore"):
        coordinates = np.floor_divide(flat, steps) % np.asarray(sizes, dtype=np.int64)
    return unbind(Tensor._wrap(coordinates), -1)


# -- empty tensors of a given memory layout ------------------------------------------------------------------
def _int_tuple(values: Any, op: str, name: str, position: int) -> tuple[int, ...]:
    if not isinstance(values, (tuple, list, Size)):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be tuple of ints, not {type(values).__name__}")
    for i, v in enumerate(values):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"{op}(): argument '{name}' (position {position}) must be tuple of ints, but found element "
                            f"of type {type(v).__name__} at pos {i}")
    return tuple(int(v) for v in values)


def empty_strided(size: Sequence[int], stride: Sequence[int], *, dtype: Any = None, layout: Any = None,
                  device: Any = None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor with these strides, over a buffer just large enough for them (read-only where the
    strides make elements share memory, as as_strided's views are)."""
    shape = _size((_int_tuple(size, "empty_strided", "size", 1),))
    strides = _int_tuple(stride, "empty_strided", "stride", 2)
    if len(shape) != len(strides):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality of strides ({len(strides)})")
    if any(s < 0 for s in strides):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)} and strides={list(strides)}")
    return _empty(shape, strides, dtype, requires_grad, device)


def _empty(shape: tuple[int, ...], strides: tuple[int, ...], dtype: Any, requires_grad: bool, device: Any) -> Tensor:
    storage = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
    flat = np.empty(storage, dtype=_float_or(dtype))
    return _finish(strided_view(flat, shape, strides, 0), requires_grad, device)


def empty_permuted(size: Sequence[int], physical_layout: Sequence[int], *, dtype: Any = None, layout: Any = None,
                   device: Any = None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor whose dims lie in memory in the order `physical_layout` (outermost first)."""
    shape = _int_tuple(size, "empty_permuted", "size", 1)
    order = _int_tuple(physical_layout, "empty_permuted", "physical_layout", 2)
    if len(shape) != len(order):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; i.e. len(size) = "
            f"{len(shape)} is not equal to len(physical_layout) = {len(order)}"
        )
    for i, dim in enumerate(order):
        if not 0 <= dim < len(shape):
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {len(shape) - 1}, but got {dim} at index {i}).  "
                "NB: negative dims not currently supported; file an issue if you want it."
            )
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    _size(([shape[d] for d in order],))  # a negative size is reported in physical order, as PyTorch does
    strides, step = [0] * len(shape), 1
    for d in reversed(order):  # innermost first; a dim of size 0 steps as if it had size 1, as in PyTorch
        strides[d], step = step, step * max(shape[d], 1)
    return _empty(shape, tuple(strides), dtype, requires_grad, device)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
_BOTH: dict[str, Callable[..., Any]] = {
    "as_strided": as_strided, "ravel": ravel, "unsafe_split": unsafe_split, "unsafe_chunk": unsafe_chunk,
    "unsafe_split_with_sizes": unsafe_split_with_sizes,
}
FUNCTIONS = {**_BOTH, "unravel_index": unravel_index, "empty_strided": empty_strided, "empty_permuted": empty_permuted}
METHODS = {**_BOTH, "unfold": unfold, "untyped_storage": untyped_storage}
INPLACE: tuple[str, ...] = ()
