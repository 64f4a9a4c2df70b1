"""`t[index]`, `t[index] = value` and index_put, read as PyTorch reads them.

PyTorch applies an index in two passes (python_variable_indexing.cpp and ATen/TensorIndexing.h). The first
walks the index left to right applying every int, slice, None and Ellipsis as a view (select, slice,
unsqueeze; a 0-d integer tensor counts as an int), and sets tensors, lists and bools aside with the dim they
index. The second, only if something was set aside, is one advanced-indexing op (at::index) on that view,
which copies. So x[1, :, [0, 3]] on a (3, 4, 5) tensor selects first and gives (4, 2), where NumPy, for whom
the 1 is advanced too, gives (2, 4).

A Plan records both passes as NumPy indices on the original array: a basic index (a view), then optionally
an advanced one of full slices and integer arrays (masks already expanded to their nonzero positions), which
NumPy places exactly as at::index does (the indexed dims stay where they are when adjacent, else go first).
A plan depends only on the shape it was made for, so it also serves to replay views and in the backward.
"""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import _dtype
from ..autograd.forward_ad import state as forward_state
from ..autograd.grad_mode import state as mode_state
from ..autograd.inplace import apply_inplace
from ..tensor import Size, Tensor
from .shape import expand, mark_view, reshape
from .table import derivative

Index = Any


class Plan(NamedTuple):
    basic: tuple[Any, ...]  # ints, slices, None and an Ellipsis (with one, NumPy always returns a view)
    advanced: tuple[Any, ...] | None  # full slices and integer arrays on the basic view, or None
    view: str | None  # the node of the basic pass's last effective link (SelectBackward0...), None if it changed nothing


ZERO_DIM = (
    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim "
    "tensor to a number"
)
TUPLE_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch 2.9; use "
    "x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
    "which will result either in an error or a different result"
)
_MASK_DTYPES = (np.dtype(np.bool_), np.dtype(np.uint8))
_POSITION_DTYPES = (np.dtype(np.int64), np.dtype(np.int32))
_INDEX_DTYPES = (*_MASK_DTYPES, *_POSITION_DTYPES)


# -- the first pass ------------------------------------------------------------------------------------------------
def plan(shape: tuple[int, ...], index: Index) -> Plan:
    """How PyTorch applies `index` to a tensor of `shape` (raising its errors, in its order)."""
    kind = type(index)
    if kind is int or (isinstance(index, np.integer) and kind is not bool):  # the hot case: one int
        return Plan((_checked_select(shape, 0, int(index), 0), Ellipsis), None, "SelectBackward0")
    if kind is slice:  # a lone slice is always a SliceBackward0 view, even when it covers everything
        if not shape:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        return Plan((_normalized(index)[0], Ellipsis), None, "SliceBackward0")
    if index is None:
        return Plan((None, Ellipsis), None, "UnsqueezeBackward0")
    if index is Ellipsis:
        return Plan((Ellipsis,), None, None)
    if kind is bool:  # a new dim of size 1, kept (True) or emptied (False) by an advanced index
        return Plan((None, Ellipsis), (_bool_positions(index),), "UnsqueezeBackward0")
    if kind is Tensor and index._data.ndim and shape:  # the hot cases: one index tensor, one mask that fits
        data = index._data
        if data.dtype in _POSITION_DTYPES:
            return Plan((Ellipsis,), (data,), None)
        if data.dtype == np.bool_ and data.shape == shape[: data.ndim]:
            return Plan((Ellipsis,), np.nonzero(data), None)
    if kind is tuple:
        return _plan_basic(shape, index) or _plan_positions(shape, index) or _plan_items(shape, index)
    return _plan_items(shape, _as_tuple(index))


def _plan_basic(shape: tuple[int, ...], items: tuple[Any, ...]) -> Plan | None:
    """The common tuple, of ints, plain slices, None and at most one Ellipsis, all in bounds: NumPy's basic indexing
    reads it as PyTorch does. None for anything else, which _plan_items reads (and raises PyTorch's errors for)."""
    specified = 0
    ellipsis = False
    for item in items:
        kind = type(item)
        if kind is int or kind is slice:
            specified += 1
        elif item is Ellipsis and not ellipsis:
            ellipsis = True
        elif item is not None:
            return None
    if specified > len(shape):
        return None
    view = None
    dim = 0  # the input's dim the item applies to (None inserts a dim and applies to none)
    for item in items:
        kind = type(item)
        if kind is int:
            if not -shape[dim] <= item < shape[dim]:
                return None
            view = "SelectBackward0"
            dim += 1
        elif kind is slice:
            start, stop, step = item.start, item.stop, item.step
            if not (_plain(start) and _plain(stop) and (step is None or (type(step) is int and step > 0))):
                return None
            if step not in (None, 1) or start or (stop is not None and stop < shape[dim]):
                view = "SliceBackward0"
            dim += 1
        elif item is None:
            view = "UnsqueezeBackward0"
        else:
            dim += len(shape) - specified
    return Plan(items if ellipsis else (*items, Ellipsis), None, view)


def _plan_positions(shape: tuple[int, ...], items: tuple[Any, ...]) -> Plan | None:
    """The other common tuple, tensors of positions (int64 or int32, not 0-d) for the leading dims, as in
    `logits[rows, targets]`: at::index reads it as NumPy does. None for anything else."""
    if len(items) > len(shape):
        return None
    for item in items:
        if type(item) is not Tensor or not item._data.ndim or item._data.dtype not in _POSITION_DTYPES:
            return None
    return Plan((*(_WHOLE,) * len(items), Ellipsis), tuple(item._data for item in items), None)


_WHOLE = slice(None)


def _plain(bound: Any) -> bool:
    return bound is None or type(bound) is int


def _as_tuple(index: Index) -> tuple[Any, ...]:
    """NumPy's old heuristic, which PyTorch keeps (with a warning): a short list holding a sequence, tensor,
    slice, None or Ellipsis is a tuple of indices; anything else is one index."""
    if isinstance(index, (list, str)) and len(index) < 32:
        for item in index:
            if isinstance(item, (Tensor, list, tuple, np.ndarray, str, slice)) or item is None or item is Ellipsis:
                warnings.warn(TUPLE_WARNING, UserWarning, stacklevel=4)
                return tuple(index)
    return (index,)


def _specified(items: tuple[Any, ...]) -> int:
    """The dims an index names: masks name one per dim, None, Ellipsis and bools none, everything else one."""
    count = 0
    for item in items:
        if isinstance(item, Tensor):
            count += item.ndim if item._data.dtype in _MASK_DTYPES else 1
        elif item is not None and item is not Ellipsis and not isinstance(item, bool):
            count += 1
    return count


def _plan_items(shape: tuple[int, ...], items: tuple[Any, ...]) -> Plan:
    specified = _specified(items)
    if specified > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    sizes = list(shape)  # the shape of the view so far
    basic: list[Any] = []
    indexed: list[tuple[int, Any]] = []  # what at::index gets, by the dim of the view it starts at
    dim = 0
    view = None
    for position, raw in enumerate(items):
        item = raw if type(raw) is int or type(raw) is slice else _index_value(raw)
        if type(item) is int:
            basic.append(_checked_select(sizes, dim, item, position))
            del sizes[dim]
            view = "SelectBackward0"
        elif type(item) is slice:
            if dim >= len(sizes):  # only after several Ellipses, whose dim count runs past the end: PyTorch 2.13 then
                part, covers_all = _normalized(item, 0)  # reads the size there as 0, and slices a dim that is not
                if not covers_all:
                    raise _dim_out_of_range(dim, len(sizes))
                dim += 1
                continue
            part, covers_all = _normalized(item, sizes[dim])
            basic.append(part)
            if not covers_all:
                sizes[dim] = len(range(*part.indices(sizes[dim])))
                view = "SliceBackward0"
            dim += 1
        elif item is None or type(item) is bool:  # a bool is an unsqueeze that an advanced index keeps or empties
            if dim > len(sizes):
                raise _dim_out_of_range(dim, len(sizes) + 1)
            basic.append(None)
            sizes.insert(dim, 1)
            view = "UnsqueezeBackward0"
            if item is not None:
                indexed.append((dim, _bool_positions(item)))
            dim += 1
        elif item is Ellipsis:
            skipped = len(shape) - specified
            basic.extend([slice(None)] * min(skipped, len(sizes) - dim))
            dim += skipped
        else:  # a tensor of indices or a mask: the basic pass keeps the dims it indexes
            dims = item.ndim if item._data.dtype in _MASK_DTYPES else 1
            basic.extend([slice(None)] * min(dims, len(sizes) - dim))  # a mask too long fails at::index's check later
            indexed.append((dim, item))
            dim += dims
    basic.append(Ellipsis)
    return Plan(tuple(basic), advanced_index(tuple(sizes), indexed) if indexed else None, view)


def _dim_out_of_range(dim: int, ndim: int) -> IndexError:
    return IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")


def _index_value(item: Any) -> Any:
    """One part of an index as PyTorch sees it: an int, a slice, None, Ellipsis, a bool, or a Tensor of indices."""
    if type(item) is int or type(item) is slice or item is None or item is Ellipsis or type(item) is bool:
        return item
    if isinstance(item, np.integer):
        return int(item)
    if isinstance(item, (list, tuple, np.ndarray, range, str)):
        item = _sequence_index(item)
    if isinstance(item, Tensor):
        if item.ndim == 0 and item._data.dtype.kind in "biu":  # a 0-d integer tensor is an int, a 0-d bool a bool
            return bool(item._data) if item._data.dtype in _MASK_DTYPES else int(item._data)
        return item
    try:
        return operator.index(item)
    except TypeError:
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
            f"(got {type(item).__name__})"
        ) from None


def _sequence_index(data: Any) -> Tensor:
    """A list (or array) in an index becomes a tensor: bool or uint8 stay masks, everything else is int64."""
    from .creation import tensor

    t = tensor(data)
    return t if t._data.dtype in _MASK_DTYPES or t.dtype is _dtype.int64 else Tensor._wrap(t._data.astype(np.int64))


def _checked_select(shape: Sequence[int], dim: int, index: int, position: int) -> int:
    if not shape and index == 0 and dim == 0:
        raise IndexError(ZERO_DIM)
    size = shape[dim] if dim < len(shape) else 0  # PyTorch reads a 0-d tensor's missing size as 0
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {position} with size {size}")
    return index


def _normalized(part: slice, size: int = -1) -> tuple[slice, bool]:
    """The slice with int bounds (tensors and NumPy ints allowed), and whether it covers a dim of `size` whole."""
    start, stop, step = part.start, part.stop, part.step
    if start is None and stop is None and step is None:
        return part, True
    try:
        start, stop, step = (None if b is None else operator.index(b) for b in (start, stop, step))
    except TypeError:
        raise TypeError("slice indices must be integers or None or have an __index__ method") from None
    step = 1 if step is None else step
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    return slice(start, stop, step), step == 1 and not start and (stop is None or stop >= size)


def _bool_positions(value: bool) -> np.ndarray:
    return np.zeros(1 if value else 0, dtype=np.int64)


# -- the second pass: at::index's checks, masks expanded ------------------------------------------------------------
def advanced_index(shape: tuple[int, ...], indexed: list[tuple[int, Any]]) -> tuple[Any, ...]:
    """at::index's index on a tensor of `shape`, from (dim, index tensor, mask or array of positions) pairs: full
    slices and integer arrays, masks expanded. Bounds and broadcasting are left to NumPy (see `_read`)."""
    for _, entry in indexed:
        if isinstance(entry, Tensor) and entry._data.dtype not in _INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    arrays: list[Any] = [slice(None)] * len(shape)
    end = 0
    for at, entry in indexed:
        data = entry._data if isinstance(entry, Tensor) else entry
        if data.dtype not in _MASK_DTYPES:
            parts: tuple[np.ndarray, ...] = (data,)
        else:
            if data.dtype == np.uint8:
                warnings.warn(
                    "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                    UserWarning, stacklevel=5,
                )
            for j, size in enumerate(data.shape):
                if at + j >= len(shape) or size != shape[at + j]:
                    raise IndexError(
                        f"The shape of the mask {list(data.shape)} at index {j} does not match the shape of the indexed "
                        f"tensor {list(shape)} at index {at + j}"
                    )
            parts = np.nonzero(data)
        end = at + len(parts)
        if end > len(shape):
            raise IndexError(f"too many indices for tensor of dimension {len(shape)} (got {end})")
        arrays[at:end] = parts
    return tuple(arrays[:end])


def _checked_shape(shape: tuple[int, ...], advanced: tuple[Any, ...]) -> tuple[int, ...]:
    """The shape `advanced` indexes out of `shape`, after at::index's early checks: that the index arrays broadcast
    and, unless they are empty, index no dim of size 0. (Bounds are checked later, and only when there is something to read or
    write: in PyTorch, x[[5]] of a (1, 0) tensor is empty, not an error.)"""
    positions = [(at, a) for at, a in enumerate(advanced) if type(a) is not slice]
    try:
        block = positions[0][1].shape if len(positions) == 1 else np.broadcast_shapes(*(a.shape for _, a in positions))
    except ValueError:
        raise IndexError(
            "shape mismatch: indexing tensors could not be broadcast together with shapes "
            + ", ".join(str(list(a.shape)) for _, a in positions)
        ) from None
    if 0 not in block and any(shape[at] == 0 for at, _ in positions):  # no position exists to be indexed
        raise IndexError("index is out of bounds for dimension with size 0")
    return indexed_shape(shape, advanced)


def _out_of_bounds(shape: tuple[int, ...], advanced: tuple[Any, ...]) -> IndexError:
    """PyTorch's error for the first index out of bounds (after NumPy found one)."""
    for ordinal, (at, a) in enumerate((at, a) for at, a in enumerate(advanced) if type(a) is not slice):
        size = shape[at]
        bad = a[(a < -size) | (a >= size)]
        if bad.size:
            return IndexError(f"index {bad.flat[0]} is out of bounds for dimension {ordinal} with size {size}")
    raise AssertionError("NumPy rejected an index that is in bounds")


def _read(array: np.ndarray, advanced: tuple[Any, ...]) -> np.ndarray:
    try:
        return array[advanced]
    except IndexError:
        shape = _checked_shape(array.shape, advanced)
        if math.prod(shape):
            raise _out_of_bounds(array.shape, advanced) from None
        return np.empty(shape, dtype=array.dtype)  # nothing read, so nothing out of bounds


def indexed_shape(shape: tuple[int, ...], advanced: tuple[Any, ...]) -> tuple[int, ...]:
    """The shape of `array[advanced]` for an array of `shape`, without indexing anything."""
    at = [i for i, a in enumerate(advanced) if type(a) is not slice]
    block = advanced[at[0]].shape if len(at) == 1 else np.broadcast_shapes(*(advanced[i].shape for i in at))
    first, last = at[0], at[-1]
    if last - first + 1 == len(at):  # adjacent: the indexed dims are replaced where they stand
        return (*shape[:first], *block, *shape[last + 1 :])
    return (*block, *(size for i, size in enumerate(shape) if i not in at))


# -- t[index] -----------------------------------------------------------------------------------------------------
def getitem(input: Tensor, index: Index) -> Tensor:
    return take(input, plan(input._data.shape, index))


def take(input: Tensor, p: Plan) -> Tensor:
    """input indexed by a plan: a view when it is all basic, else a copy (IndexBackward0)."""
    out = input._data[p.basic]
    if p.advanced is not None:
        return IndexBackward0.record(_read(out, p.advanced), (input,), self_shape=input.shape, **_saved(p, input))
    result = VIEWS[p.view or "AliasBackward0"].record(out, (input,), self_shape=input.shape, plan=p)
    return mark_view(result, input, take, p)


def _saved(p: Plan, *inputs: Tensor) -> dict[str, Any]:
    """What a node of an advanced index keeps, when one of `inputs` requires grad: the plan's layout, and its index
    arrays as one saved tensor.

    As PyTorch saves `indices`, so the arrays are freed with the node's other buffers (a second backward fails,
    the memory accounting sees them) instead of living as long as the graph.
    """
    assert p.advanced is not None
    if not forward_state.propagating and not (mode_state.grad_enabled and any(t._requires_grad for t in inputs)):
        return {}  # no node will keep them (a tangent rule needs them too)
    arrays = [a for a in p.advanced if type(a) is not slice]
    if len(arrays) == 1:
        stacked = arrays[0][None]
    elif all(a.shape == arrays[0].shape for a in arrays):  # np.array stacks them a tenth as slowly as np.stack
        stacked = np.array(arrays)
    else:
        stacked = np.stack(np.broadcast_arrays(*arrays))
    rows = iter(range(len(arrays)))
    layout = tuple(a if type(a) is slice else next(rows) for a in p.advanced)
    return {"plan": p._replace(advanced=layout), "indices": Tensor._wrap(stacked)}


def _restored(layout: Plan, indices: Tensor) -> Plan:
    assert layout.advanced is not None
    return layout._replace(advanced=tuple(a if type(a) is slice else indices._data[a] for a in layout.advanced))


def _scatter(grad: Tensor, shape: Size, p: Plan) -> Tensor:
    """Zeros of `shape` with grad put back where `p` took it from (repeated positions add up)."""
    out = np.zeros(shape, dtype=grad._data.dtype)
    region = out[p.basic]
    if p.advanced is None:
        region[...] = grad._data
        return BasicScatterBackward0.record(out, (grad,), plan=p)
    if grad._data.size:  # an empty read may hold indices out of bounds (PyTorch does not check them)
        np.add.at(region, p.advanced, grad._data)
    return IndexScatterBackward0.record(out, (grad,), **_saved(p, grad))


# Basic indexing is one node here but a chain in PyTorch, whose last link names it.
VIEWS = {
    name: derivative(name, self=lambda grad, self_shape, plan: _scatter(grad, self_shape, plan))
    for name in ("SelectBackward0", "SliceBackward0", "UnsqueezeBackward0", "AliasBackward0")
}
IndexBackward0 = derivative(
    "IndexBackward0", self=lambda grad, self_shape, plan, indices: _scatter(grad, self_shape, _restored(plan, indices))
)
BasicScatterBackward0 = derivative("BasicScatterBackward0", self=lambda grad, plan: take(grad, plan))
IndexScatterBackward0 = derivative("IndexScatterBackward0", self=lambda grad, plan, indices: take(grad, _restored(plan, indices)))


# -- t[index] = value, and index_put --------------------------------------------------------------------------------
def setitem(input: Tensor, index: Index, value: Tensor | float) -> None:
    """As in PyTorch: copy_ (or fill_) into the basic view, or into input itself when the view would be all of it;
    index_put_ on that view when the index has an advanced part."""
    source = _value_tensor(input, value)
    if index is False:
        return  # PyTorch skips a lone False before anything else: not even the version moves
    if index is True:
        index = None  # as a lone index, True is a basic unsqueeze when assigning
    elif type(index) is slice:
        index = (index,)  # unlike reading, assigning skips a lone slice that covers everything
    p = plan(input._data.shape, index)
    target = input if p.view is None else take(input, Plan(p.basic, None, p.view))
    if p.advanced is None:
        _copy_to(target, source)
    else:
        adv = Plan((Ellipsis,), p.advanced, None)
        apply_inplace(target, lambda x: _put(x, adv, _without_leading_ones(source)), any_cast=True)


def _value_tensor(input: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float, np.number)):
        return Tensor._wrap(np.asarray(value).astype(input._data.dtype))
    raise TypeError(
        f"can't assign a {type(value).__module__ + '.' if type(value).__module__ != 'builtins' else ''}"
        f"{type(value).__name__} to a {input.type()}"
    )


def _without_leading_ones(t: Tensor) -> Tensor:
    """NumPy's leniency, kept by PyTorch's setitem: a value may have extra leading dims of size 1."""
    shape = t._data.shape
    lead = 0
    while lead < len(shape) and shape[lead] == 1:
        lead += 1
    return reshape(t, shape[lead:]) if lead else t


def _copy_to(target: Tensor, source: Tensor) -> None:
    if target._data.shape == source._data.shape:
        target.copy_(source)
    elif source.ndim == 0:
        target.fill_(source)
    else:
        target.copy_(expand(_without_leading_ones(source), target.shape))


IndexPutBackward0 = derivative(
    "IndexPutBackward0", ("self", "values"),
    self=lambda grad, plan, indices, accumulate: grad if accumulate else _put(grad, _restored(plan, indices), _zero(grad)),
    values=lambda grad, plan, indices: take(grad, _restored(plan, indices)),
)


def _zero(like: Tensor) -> Tensor:
    return Tensor._wrap(np.zeros((), dtype=like._data.dtype))


def _put(input: Tensor, p: Plan, values: Tensor, accumulate: bool = False) -> Tensor:
    """Out of place `input[p] = values` (or `+=`, repeated positions adding up, when accumulating)."""
    if values.dtype is not input.dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got {input.dtype.scalar_name} for the "
            f"destination and {values.dtype.scalar_name} for the source."
        )
    assert p.advanced is not None, "index_put needs an advanced index"
    shape = _checked_shape(input._data.shape, p.advanced)
    if not _broadcasts_to(values._data.shape, shape):
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to indexing result of shape "
            f"{list(shape)}"
        )
    out = input._data.copy()
    if math.prod(shape):  # nothing to write, nothing checked: PyTorch's kernel does not run
        source = np.broadcast_to(values._data, shape)
        try:
            if accumulate:
                np.add.at(out, p.advanced, source)
            else:
                out[p.advanced] = source
        except IndexError:
            raise _out_of_bounds(out.shape, p.advanced) from None
    return IndexPutBackward0.record(out, (input, values), accumulate=accumulate, **_saved(p, input, values))


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    lead = len(target) - len(shape)
    return lead >= 0 and all(s in (1, t) for s, t in zip(shape, target[lead:], strict=True))


def index_put(input: Tensor, indices: tuple[Tensor, ...], values: Tensor, accumulate: bool = False) -> Tensor:
    """Out of place `input[indices] = values` (or `+=` with repeats summed when `accumulate`)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position 1) must be tuple of Tensors, not {type(indices).__name__}")
    for k, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got {type(t).__name__}")
    if not indices:
        raise RuntimeError("index_put needs at least one index tensor (an empty tuple of indices selects nothing)")
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    indexed, dim = [], 0
    for t in indices:
        indexed.append((dim, t))
        dim += t.ndim if t._data.dtype in _MASK_DTYPES else 1
    return _put(input, Plan((Ellipsis,), advanced_index(input._data.shape, indexed), None), values, accumulate)
