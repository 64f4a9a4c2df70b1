"""Indexing: `t[index]`, `t[index] = value`, and the gather/scatter pair used by reductions.

Basic indexing (ints, slices, None, Ellipsis) is a view and saves nothing;
advanced indexing (integer or boolean tensors) copies and saves its index
tensors, as PyTorch's IndexBackward0 does. Repeated indices accumulate.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Size, Tensor
from .shape import as_view
from .table import Derivative, derivative

Index = Any


def _is_advanced(part: Any) -> bool:
    return isinstance(part, (Tensor, np.ndarray, list, bool))


def _parts(index: Index) -> tuple[Any, ...]:
    return index if isinstance(index, tuple) else (index,)


def _to_numpy_index(index: Index) -> Any:
    """Tensors in an index become NumPy arrays; everything else passes through."""
    converted = []
    for part in _parts(index):
        if isinstance(part, Tensor):
            if part.dtype.is_floating_point:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            converted.append(part._data)
        elif isinstance(part, list):
            converted.append(np.asarray(part))
        elif isinstance(part, (float, np.floating)):
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
                f"(got {type(part).__name__})"
            )
        else:
            converted.append(part)
    return tuple(converted)


def _checked(array: np.ndarray, index: tuple[Any, ...], dims: Size) -> np.ndarray:
    try:
        return array[index]
    except IndexError as err:
        message = str(err)
        if "out of bounds" in message:
            raise IndexError(f"{message.split(' with size')[0].replace('is out of bounds', 'is out of bounds for dimension')} "
                             f"with size {message.rsplit('size ', 1)[-1]}") from None
        raise IndexError(f"{message} (tensor of shape {list(dims)})") from None


IndexBackward0 = derivative("IndexBackward0", self=lambda grad, self_shape, indices: _index_scatter(grad, self_shape, indices))
# Basic indexing is one node here but a chain in PyTorch, whose last link names it.
BASIC_INDEX_ENTRIES = {
    name: derivative(name, self=lambda grad, self_shape, indices: _index_scatter(grad, self_shape, indices))
    for name in ("SelectBackward0", "SliceBackward0", "UnsqueezeBackward0", "AliasBackward0")
}
IndexScatterBackward = derivative("IndexScatterBackward0", self=lambda grad, indices: getitem(grad, indices))


def _basic_entry(index: Index) -> Derivative:
    for part in reversed(_parts(index)):
        if part is None:
            return BASIC_INDEX_ENTRIES["UnsqueezeBackward0"]
        if isinstance(part, slice) and part != slice(None):
            return BASIC_INDEX_ENTRIES["SliceBackward0"]
        if not isinstance(part, slice) and part is not Ellipsis:
            return BASIC_INDEX_ENTRIES["SelectBackward0"]
    return BASIC_INDEX_ENTRIES["AliasBackward0"]


def getitem(input: Tensor, index: Index) -> Tensor:
    np_index = _to_numpy_index(index)
    if any(_is_advanced(p) for p in _parts(index)):
        out = _checked(input._data, np_index, input.shape)
        return IndexBackward0.record(out, (input,), self_shape=input.shape, indices=index)
    if Ellipsis not in np_index:
        np_index = (*np_index, Ellipsis)  # so that an index of all ints gives a 0-d view, not a copied scalar
    out = _checked(input._data, np_index, input.shape)
    result = _basic_entry(index).record(out, (input,), self_shape=input.shape, indices=index)
    return as_view(result, input, getitem, index)


def _index_scatter(grad: Tensor, shape: Size, indices: Index) -> Tensor:
    """Zeros of `shape` with `grad` summed in at `indices` (repeats accumulate)."""
    out = np.zeros(shape, dtype=grad._data.dtype)
    np_index = _to_numpy_index(indices)
    if any(_is_advanced(p) for p in _parts(indices)):
        np.add.at(out, np_index, grad._data)
    else:
        out[np_index] = grad._data
    return IndexScatterBackward.record(out, (grad,), indices=indices)


IndexPutBackward0 = derivative(
    "IndexPutBackward0", ("self", "values"),
    self=lambda grad, indices: index_put(grad, indices, 0.0),
    values=lambda grad, indices: getitem(grad, indices),
)


def index_put(input: Tensor, indices: Index, values: Tensor | float) -> Tensor:
    """Out of place `input[indices] = values` (the last write wins on repeated indices)."""
    from .elementwise import as_tensor_operand

    values_t = as_tensor_operand(values, input.dtype)
    out = input._data.copy()
    np_index = _to_numpy_index(indices)
    region = _checked(out, np_index, input.shape)
    try:
        out[np_index] = np.broadcast_to(values_t._data.astype(out.dtype, copy=False), region.shape)
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values_t.shape)} cannot be broadcast to indexing result "
            f"of shape {list(region.shape)}"
        ) from None
    return IndexPutBackward0.record(out, (input, values_t), indices=indices)


def setitem(input: Tensor, index: Index, value: Tensor | float) -> None:
    """As in PyTorch: index_put_ for advanced indices, else copy_ into the view (a CopySlices node)."""
    from ..autograd.inplace import apply_inplace, copy_

    if any(_is_advanced(p) for p in _parts(index)):
        apply_inplace(input, lambda x: index_put(x, index, value), any_cast=True)
    else:
        copy_(getitem(input, index), value)


GatherBackward0 = derivative(
    "GatherBackward0", self=lambda grad, self_shape, dim, index: scatter_into_zeros(grad, self_shape, dim, index)
)
ScatterIntoZerosBackward = derivative(
    "ScatterAddBackward0", ("src",), src=lambda grad, dim, index: gather(grad, dim, index)
)


def gather(input: Tensor, dim: int, index: Tensor) -> Tensor:
    d = input._wrap_dim(dim)
    if index.dtype.name != "int64":
        raise RuntimeError("gather(): Expected dtype int64 for index")
    out = np.take_along_axis(input._data, index._data, axis=d)
    return GatherBackward0.record(out, (input,), self_shape=input.shape, dim=d, index=index)


def scatter_into_zeros(src: Tensor, shape: Size, dim: int, index: Tensor) -> Tensor:
    """Zeros of `shape` with src added at index along dim: the adjoint of gather."""
    out = np.zeros(shape, dtype=src._data.dtype)
    grid = list(np.indices(index.shape, sparse=True))
    grid[dim] = index._data
    np.add.at(out, tuple(grid), src._data)
    return ScatterIntoZerosBackward.record(out, (src,), dim=dim, index=index)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS = {"gather": gather, "index_put": index_put}
METHODS = dict(FUNCTIONS)
INPLACE = ("index_put",)
