"""Indexing ops: gather/scatter, index_*, masks, take, nonzero, one_hot (and the rearranging ops of rearrange.py).

`t[index]`, `t[index] = value` and index_put live in subscript.py; index_put is exported from here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtype
from .._C._functions import DelayedError
from ..tensor import Size, Tensor
from . import rearrange
from .shape import expand, flatten, reshape
from .subscript import index_put
from .table import derivative, for_complex


# -- gather and scatter: one index per element, along one dim ----------------------------------
def _index_array(index: Tensor, what: str, allowed: tuple[str, ...] = ("int64",)) -> np.ndarray:
    if not isinstance(index, Tensor) or index.dtype.name not in allowed:
        raise RuntimeError(f"{what}(): Expected dtype {' or '.join(allowed)} for index")
    return index._data


def along(index: np.ndarray, dim: int) -> tuple[np.ndarray, ...]:
    """The advanced index that reads `a[i][j][index[i][j]]` (for dim 2): index along dim, position elsewhere."""
    ndim = index.ndim
    # np.indices(sparse=True) makes the same aranges through several Python layers: 3 us of a 4 us gather
    return tuple(
        index if axis == dim else np.arange(size).reshape((1,) * axis + (size,) + (1,) * (ndim - axis - 1))
        for axis, size in enumerate(index.shape)
    )


def _prefix(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return array[tuple(slice(0, s) for s in shape)]


def _check_dimwise(what: str, input: Tensor, dim: int, index: np.ndarray, src: Tensor | None = None) -> int:
    """PyTorch's gather/scatter shape checks; returns the wrapped dim."""
    d = input._wrap_dim(dim)
    if max(index.ndim, 1) != max(input.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if src is not None and max(index.ndim, 1) != max(src.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    for axis in range(index.ndim):
        too_big = axis != d and index.shape[axis] > input.shape[axis]
        if too_big or (src is not None and index.shape[axis] > src.shape[axis]):
            raise RuntimeError(
                f"Size does not match at dimension {axis} expected index {list(index.shape)} to be no larger than "
                f"self {list(input.shape)} apart from dimension {d}"
                + (f" and to be no larger size than src {list(src.shape)}" if src is not None else "")
            )
    size = input.shape[d] if input.ndim else 1
    bad = index[(index < 0) | (index >= size)]
    if bad.size:
        raise RuntimeError(f"index {bad.flat[0]} is out of bounds for dimension {d} with size {size}")
    return d


def _at_least_1d(array: np.ndarray) -> np.ndarray:
    return array.reshape(1) if array.ndim == 0 else array


GatherBackward0 = derivative(
    "GatherBackward0", self=lambda grad, self_shape, dim, index: scatter_into_zeros(grad, self_shape, dim, index)
)


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    idx = _index_array(index, "gather", ("int64", "int32"))
    return _gather(input, _check_dimwise("gather", input, dim, idx), index)


def _gather(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """gather along a wrapped dim, by an index known to fit: a scatter's backward reads its forward's checked index."""
    idx = index._data
    out = _at_least_1d(input._data)[along(_at_least_1d(idx), dim)].reshape(idx.shape)
    return GatherBackward0.record(out, (input,), self_shape=input.shape, dim=dim, index=index)


def scatter_into_zeros(src: Tensor, shape: Size, dim: int, index: Tensor) -> Tensor:
    """Zeros of `shape` with src added at index along dim: the adjoint of gather."""
    from .creation import zeros

    return scatter_add(zeros(shape, dtype=src.dtype), dim, index, src)


def _scattered(what: str, input: Tensor, dim: int, index: Tensor, src: Tensor | None) -> tuple[np.ndarray, tuple[np.ndarray, ...], int]:
    """A copy of input's data (at least 1-d, sharing the copy's memory), the advanced index of index, the dim."""
    idx = _index_array(index, what, ("int64", "int32"))
    if src is not None and src.dtype is not input.dtype:
        raise RuntimeError(f"{what}(): Expected self.dtype to be equal to src.dtype")
    d = _check_dimwise(what, input, dim, idx, src)
    return _at_least_1d(input._data.copy()), along(_at_least_1d(idx), d), d


ScatterBackward0 = derivative(
    "ScatterBackward0", ("self", "src"),
    self=lambda grad, dim, index: scatter(grad, dim, index, 0.0),
    src=lambda grad, dim, index: _gather(grad, dim, index),
)
ScatterBackward1 = derivative("ScatterBackward1", self=lambda grad, dim, index: scatter(grad, dim, index, 0.0))
ScatterAddBackward0 = derivative(
    "ScatterAddBackward0", ("self", "src"), self=lambda grad: grad, src=lambda grad, dim, index: _gather(grad, dim, index)
)
# gather and scatter_add are linear and their formulas read only the index: they hold for complex tensors as written
for_complex(GatherBackward0, **GatherBackward0.formulas)
for_complex(ScatterAddBackward0, **ScatterAddBackward0.formulas)


def _not_implemented(grad: Tensor) -> Tensor:
    raise RuntimeError("the derivative for 'scatter' with a reduce argument is not implemented")


ScatterReduceNotImplemented = derivative("NotImplemented", ("self", "src"), self=_not_implemented, src=_not_implemented)
_SCATTER_REDUCE = {"add": np.add, "multiply": np.multiply}


def scatter(input: Tensor, dim: int, index: Tensor, src: Tensor | float | None = None, value: float | None = None, *, reduce: str | None = None) -> Tensor:
    source = value if src is None else src
    if source is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    is_tensor = isinstance(source, Tensor)
    out, where, d = _scattered("scatter", input, dim, index, source if is_tensor else None)
    values = _prefix(_at_least_1d(source._data), index._data.shape or (1,)) if is_tensor else source
    if reduce is None:
        out[where] = values
    elif reduce in _SCATTER_REDUCE:
        if is_tensor:
            import warnings

            warnings.warn(
                "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a future "
                "PyTorch release. Use torch.scatter_reduce instead for more reduction options.", UserWarning, stacklevel=2,
            )
        _SCATTER_REDUCE[reduce].at(out, where, values)
    else:
        raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")
    out = out.reshape(input.shape)
    if reduce is not None:
        return ScatterReduceNotImplemented.record(out, (input, source) if is_tensor else (input,))
    if is_tensor:
        return ScatterBackward0.record(out, (input, source), dim=d, index=index)
    return ScatterBackward1.record(out, (input,), dim=d, index=index)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    out, where, d = _scattered("scatter_add", input, dim, index, src)
    np.add.at(out, where, _prefix(_at_least_1d(src._data), index._data.shape or (1,)))
    return ScatterAddBackward0.record(out.reshape(input.shape), (input, src), dim=d, index=index)


_REDUCERS = {"sum": np.add, "prod": np.multiply, "mean": np.add, "amax": np.maximum, "amin": np.minimum}


def _identity(reduce: str, dtype: np.dtype) -> Any:
    """What include_self=False starts each scattered-into position from."""
    if reduce not in ("amax", "amin"):
        return 1 if reduce == "prod" else 0
    floating = _dtype.is_floating(dtype)
    low, high = (-np.inf, np.inf) if floating else (np.iinfo(dtype).min, np.iinfo(dtype).max)
    return low if reduce == "amax" else high


ScatterReduceBackward0 = derivative(
    "ScatterReduceBackward0", ("self", "src"),
    self=lambda grad, self, src, result, dim, index, reduce, include_self: _scatter_reduce_backward(
        grad, self, src, result, dim, index, reduce, include_self)[0],
    src=lambda grad, self, src, result, dim, index, reduce, include_self: _scatter_reduce_backward(
        grad, self, src, result, dim, index, reduce, include_self)[1],
)


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # PyTorch still takes the old names
    if reduce not in _REDUCERS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    out, where, d = _scattered("scatter_reduce", input, dim, index, src)
    if not include_self:
        out[where] = _identity(reduce, out.dtype)
    _REDUCERS[reduce].at(out, where, _prefix(_at_least_1d(src._data), index._data.shape or (1,)))
    if reduce == "mean":
        count = np.full(out.shape, int(include_self))
        np.add.at(count, where, 1)
        count = np.maximum(count, 1)
        out = out / count if _dtype.is_floating(out.dtype) else out // count
    return ScatterReduceBackward0.record(
        out.reshape(input.shape).astype(input._data.dtype, copy=False), (input, src),
        dim=d, index=index, reduce=reduce, include_self=include_self,
    )


def _scatter_reduce_backward(
    grad: Tensor, self: Tensor, src: Tensor, result: Tensor, dim: int, index: Tensor, reduce: str, include_self: bool,
    names: tuple[str, str] = ("scatter_reduce", "src"),
) -> tuple[Tensor, Tensor]:
    """PyTorch's scatter_reduce_backward, term for term (ties in amax/amin share the gradient evenly). names: the op
    and its source argument, as the error of an unsupported double backward names them."""
    from .creation import ones_like, zeros_like
    from .elementwise import where

    if reduce == "sum":
        grad_self, grad_src = grad, gather(grad, dim, index)
    elif reduce == "prod":
        masked_self = where(self == 0, 1.0, self)
        grad_self = grad * scatter_reduce(masked_self, dim, index, src, reduce, include_self=include_self) / masked_self
        src_zero = src == 0
        zeros_hit = gather(scatter_add(zeros_like(self), dim, index, src_zero.to(self.dtype)), dim, index)
        single_zero = src_zero & (zeros_hit == 1)
        without_zero = scatter_reduce(self, dim, index, where(single_zero, 1.0, src), reduce, include_self=include_self)
        grad_src = where(
            single_zero, gather(grad * without_zero, dim, index), gather(grad * result, dim, index) / where(src_zero, 1.0, src)
        )
        if bool((zeros_hit > 1).any()):  # this formula has no derivative there: PyTorch's double backward refuses
            op, source = names
            grad_src = DelayedError(
                f"{op}(): Double backward is unsupported for {source} when >1 zeros in {source} are scattered to the "
                "same position in self", 1,
            )(grad_src)
    elif reduce == "mean":
        count = scatter_add(ones_like(grad) if include_self else zeros_like(grad), dim, index, ones_like(src))
        count = where(count == 0, 1.0, count)
        grad_self, grad_src = grad / count, gather(grad, dim, index) / gather(count, dim, index)
    else:
        self_is_result = (self == result).to(grad.dtype)
        src_is_result = (src == gather(result, dim, index)).to(grad.dtype)
        shared = grad / scatter_add(self_is_result, dim, index, src_is_result)
        grad_self, grad_src = self_is_result * shared, src_is_result * gather(shared, dim, index)
    if not include_self:
        grad_self = scatter(grad_self, dim, index, 0.0)
    return grad_self, grad_src


# -- index_*: whole slices along one dim -----------------------------------------------------------
def _slices_at(what: str, input: Tensor, dim: int, index: Tensor, source: Tensor | None = None) -> tuple[np.ndarray, tuple[Any, ...], int]:
    """Checks shared by index_select/add/copy/fill; returns the index (1-d) and the advanced index of those slices."""
    if not isinstance(index, Tensor) or index.dtype.name not in ("int64", "int32"):
        raise RuntimeError(f"{what}(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        if what == "index_fill_":
            raise RuntimeError("Index has to be a vector/scalar")
        raise IndexError(f"{what}(): Index is supposed to be a vector")
    d = input._wrap_dim(dim)
    idx = index._data.reshape(-1)
    size = input.shape[d] if input.ndim else 1
    if source is not None:
        if source.ndim and source.ndim != max(input.ndim, 1):
            raise IndexError(f"{what}(): Source/destination tensor must have same slice shapes.")
        slices = source.shape[d] if source.ndim else 1
        if idx.size != slices:
            raise RuntimeError(
                f"{what}(): Number of indices ({idx.size}) should be equal to source.size(dim): ({slices}), for dim: {d}"
            )
    bad = idx[(idx < -size) | (idx >= size)] if what != "index_select" else idx[(idx < 0) | (idx >= size)]
    if bad.size:
        message = "index out of range in self" if what == "index_select" else (
            f"{what}(): index {bad[0]} is out of bounds for dimension {d} with size {size}")
        raise IndexError(message)
    return idx, (slice(None),) * d + (idx,), d


IndexSelectBackward0 = derivative(
    "IndexSelectBackward0",
    self=lambda grad, self_shape, dim, index: index_add(_zeros(self_shape, grad), dim, index, grad),
)


def _zeros(shape: Size, like: Tensor) -> Tensor:
    from .creation import zeros

    return zeros(shape, dtype=like.dtype)


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    idx, _, d = _slices_at("index_select", input, dim, index)
    out = np.take(_at_least_1d(input._data), idx, axis=d)
    if input.ndim == 0:
        out = out.reshape(index.shape)
    return IndexSelectBackward0.record(out, (input,), self_shape=input.shape, dim=d, index=index)


def _selected_slices(grad: Tensor, dim: int, index: Tensor, source_shape: Size) -> Tensor:
    return reshape(index_select(grad, dim, index), source_shape)


IndexAddBackward0 = derivative(
    "IndexAddBackward0", ("self", "source"),
    self=lambda grad: grad,
    source=lambda grad, dim, index, source_shape, alpha: _selected_slices(grad, dim, index, source_shape) * alpha,
)
IndexCopyBackward0 = derivative(
    "IndexCopyBackward0", ("self", "source"),
    self=lambda grad, dim, index: index_fill(grad, dim, index, 0.0),
    source=lambda grad, dim, index, source_shape: _selected_slices(grad, dim, index, source_shape),
)
IndexFillBackward0 = derivative("IndexFillBackward0", self=lambda grad, dim, index: index_fill(grad, dim, index, 0.0))
IndexFillBackward1 = derivative(
    "IndexFillBackward1", ("self", "value"),
    self=lambda grad, dim, index: index_fill(grad, dim, index, 0.0),
    # each filled position once, however often the index repeats it
    value=lambda grad, dim, index: (grad - index_fill(grad, dim, index, 0.0)).sum(),
)


def _slice_source(what: str, input: Tensor, source: Tensor) -> np.ndarray:
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"{what}(): self ({input.dtype.name.capitalize()}) and source ({source.dtype.name.capitalize()}) must have "
            "the same scalar type"
        )
    return _at_least_1d(source._data)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: float = 1) -> Tensor:
    _, where, d = _slices_at("index_add_", input, dim, index, source)
    out = _at_least_1d(input._data.copy())
    src = _slice_source("index_add_", input, source)
    np.add.at(out, where, src if alpha == 1 else src * alpha)
    return IndexAddBackward0.record(
        out.reshape(input.shape), (input, source), dim=d, index=index, source_shape=source.shape, alpha=alpha
    )


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    _, where, d = _slices_at("index_copy_", input, dim, index, source)
    out = _at_least_1d(input._data.copy())
    out[where] = _slice_source("index_copy_", input, source)
    return IndexCopyBackward0.record(out.reshape(input.shape), (input, source), dim=d, index=index, source_shape=source.shape)


def index_fill(input: Tensor, dim: int, index: Tensor, value: Tensor | float) -> Tensor:
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(
            f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.ndim} dimension(s)."
        )
    _, where, d = _slices_at("index_fill_", input, dim, index)
    out = _at_least_1d(input._data.copy())
    out[where] = value._data if isinstance(value, Tensor) else value
    out = out.reshape(input.shape)
    if isinstance(value, Tensor):
        return IndexFillBackward1.record(out, (input, value), dim=d, index=index)
    return IndexFillBackward0.record(out, (input,), dim=d, index=index)


# -- masks and flat positions ------------------------------------------------------------------------
def _mask_array(what: str, mask: Tensor) -> np.ndarray:
    if not isinstance(mask, Tensor) or mask.dtype is not _dtype.bool_:
        raise RuntimeError(f"{what}: expected BoolTensor for mask")
    return mask._data


def _broadcast(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    try:
        return np.broadcast_arrays(a, b)  # type: ignore[return-value]
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({a.shape}) must match the size of tensor b ({b.shape})") from None


MaskedSelectBackward0 = derivative(
    "MaskedSelectBackward0",
    self=lambda grad, self_shape, mask: masked_scatter(
        _zeros(np.broadcast_shapes(self_shape, mask.shape), grad), mask, grad),
)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    data, where = _broadcast(input._data, _mask_array("masked_select", mask))
    return MaskedSelectBackward0.record(data[where], (input,), self_shape=input.shape, mask=mask)


def _masked_scatter_source_grad(grad: Tensor, mask: Tensor, source_shape: Size) -> Tensor:
    from .shape import cat

    picked = masked_select(grad, mask)
    missing = int(np.prod(source_shape, dtype=np.int64)) - picked.numel()
    return reshape(cat([picked, _zeros((missing,), grad)]) if missing else picked, source_shape)


MaskedScatterBackward0 = derivative(
    "MaskedScatterBackward0", ("self", "source"),
    self=lambda grad, mask: _where_not(mask, grad),
    source=lambda grad, mask, source_shape: _masked_scatter_source_grad(grad, mask, source_shape),
)


def _where_not(mask: Tensor, grad: Tensor) -> Tensor:
    from .elementwise import where

    return where(mask, 0.0, grad)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    data, where = _broadcast(input._data, _mask_array("masked_scatter_", mask))
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"masked_scatter_: expected self and source to have same dtypes but got {input.dtype.name.capitalize()} "
            f"and {source.dtype.name.capitalize()}"
        )
    count = int(where.sum())
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out = data.copy()
    out[where] = source._data.reshape(-1)[:count]
    return MaskedScatterBackward0.record(out, (input, source), mask=mask, source_shape=source.shape)


TakeBackward0 = derivative(
    "TakeBackward0",
    self=lambda grad, self_shape, index: reshape(
        index_put(_zeros((int(np.prod(self_shape, dtype=np.int64)),), grad), (flatten(index),), flatten(grad), True),
        self_shape,
    ),
)


def check_flat_index(idx: np.ndarray, n: int) -> None:
    bad = idx[(idx < -n) | (idx >= n)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {bad.flat[0]} on a tensor of {n} elements.")


def take(input: Tensor, index: Tensor) -> Tensor:
    idx = _index_array(index, "take")
    check_flat_index(idx, input.numel())
    return TakeBackward0.record(input._data.reshape(-1)[idx], (input,), self_shape=input.shape, index=index)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    if not isinstance(indices, Tensor) or indices.dtype is not _dtype.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {getattr(indices, 'dtype', None)}")
    if dim is None:
        return gather(flatten(input), 0, flatten(indices))
    if input.ndim != indices.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, but got "
            f"{input.ndim} dimensions for input, and {indices.ndim} dimensions for indices"
        )
    d = input._wrap_dim(dim)
    try:
        shape = np.broadcast_shapes(*(tuple(1 if i == d else s for i, s in enumerate(t.shape)) for t in (input, indices)))
    except ValueError:
        raise RuntimeError(
            f"torch.take_along_dim(): shape mismatch: input {list(input.shape)} and indices {list(indices.shape)} "
            f"do not broadcast apart from dimension {d}"
        ) from None
    return gather(
        expand(input, [input.shape[d] if i == d else s for i, s in enumerate(shape)]), d,
        expand(indices, [indices.shape[d] if i == d else s for i, s in enumerate(shape)]),
    )


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    data = _at_least_1d(input._data)
    where = np.nonzero(data)
    if as_tuple:
        return tuple(Tensor._wrap(w.astype(np.int64)) for w in where)
    found = np.stack(where, axis=1).astype(np.int64)
    return Tensor._wrap(found if input.ndim else found[:, :0])


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    if tensor.dtype is not _dtype.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    data = tensor._data
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(data.max()) + 1
    if data.size and data.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if data.size and data.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._wrap((data[..., None] == np.arange(num_classes)).astype(np.int64))


# -- what this module exports (collected by ops/__init__.py) --------------------------------
_BOTH = {
    "gather": gather, "scatter": scatter, "scatter_add": scatter_add, "scatter_reduce": scatter_reduce,
    "index_select": index_select, "index_add": index_add, "index_copy": index_copy, "index_fill": index_fill,
    "index_put": index_put, "masked_select": masked_select, "masked_scatter": masked_scatter, "take": take,
    "take_along_dim": take_along_dim, "nonzero": nonzero,
    **{name: fn for name, fn in rearrange.FUNCTIONS.items() if name != "repeat"},
}
FUNCTIONS = {**_BOTH, **rearrange.PIXEL_SHUFFLE}
METHODS = {**_BOTH, "repeat": rearrange.repeat}
ALSO = {"glassgrad.nn.functional": {"one_hot": one_hot, **rearrange.PIXEL_SHUFFLE}}
INPLACE = (
    "scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_fill", "index_put", "masked_scatter",
    "tril", "triu",
)
