"""Sorting, selection, searching and counting: sort, argsort, msort, topk, kthvalue, median, mode, unique,
unique_consecutive, searchsorted, bucketize, argwhere, nonzero_static, bincount.

Which of several equal elements an op returns follows PyTorch's CPU kernels. Where the answer
is unique (no ties in a slice) NumPy computes it; slices with ties replay the very algorithm
PyTorch runs (libstdc++'s introsort/introselect, PyTorch's quickselect) on that slice alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from .elementwise import _not_implemented, as_tensor_operand, not_implemented_for, require_tensor
from .indexing import nonzero
from .reduction import check_nonempty_dim, evenly_distribute, record_selection, return_type, selecting_entry
from .table import derivative, refuse_forward_ad

Item = tuple[Any, int]  # (value, original index)
Less = Callable[[Item, Item], bool]

sort_result, topk_result = return_type("sort"), return_type("topk")
kthvalue_result, median_result, mode_result = return_type("kthvalue"), return_type("median"), return_type("mode")
nanmedian_result = return_type("nanmedian")


# -- the comparisons PyTorch's kernels use ------------------------------------------------------
def _nan(v: Any) -> bool:
    return v != v


def _nan_largest_less(x: Item, y: Item) -> bool:
    return (not _nan(x[0]) and _nan(y[0])) or x[0] < y[0]


def _nan_largest_greater(x: Item, y: Item) -> bool:
    return (_nan(x[0]) and not _nan(y[0])) or x[0] > y[0]


def _plain_less(x: Item, y: Item) -> bool:
    return x[0] < y[0]


# -- libstdc++'s std::sort, std::nth_element and std::partial_sort, step for step -------------
def _insertion_sort(q: list[Item], first: int, last: int, less: Less) -> None:
    for i in range(first + 1, last):
        value = q[i]
        if less(value, q[first]):
            q[first + 1 : i + 1] = q[first:i]
            q[first] = value
        else:
            _linear_insert(q, i, less)


def _linear_insert(q: list[Item], i: int, less: Less) -> None:
    value = q[i]
    while less(value, q[i - 1]):
        q[i] = q[i - 1]
        i -= 1
    q[i] = value


def _median_to_first(q: list[Item], result: int, a: int, b: int, c: int, less: Less) -> None:
    if less(q[a], q[b]):
        pick = b if less(q[b], q[c]) else c if less(q[a], q[c]) else a
    else:
        pick = a if less(q[a], q[c]) else c if less(q[b], q[c]) else b
    q[result], q[pick] = q[pick], q[result]


def _partition_pivot(q: list[Item], first: int, last: int, less: Less) -> int:
    _median_to_first(q, first, first + 1, first + (last - first) // 2, last - 1, less)
    pivot, lo, hi = first, first + 1, last
    while True:
        while less(q[lo], q[pivot]):
            lo += 1
        hi -= 1
        while less(q[pivot], q[hi]):
            hi -= 1
        if lo >= hi:
            return lo
        q[lo], q[hi] = q[hi], q[lo]
        lo += 1


def _sift_down(q: list[Item], base: int, hole: int, length: int, value: Item, less: Less) -> None:
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(q[base + child], q[base + child - 1]):
            child -= 1
        q[base + hole] = q[base + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        q[base + hole] = q[base + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(q[base + parent], value):
        q[base + hole] = q[base + parent]
        hole, parent = parent, (parent - 1) // 2
    q[base + hole] = value


def _partial_sort(q: list[Item], first: int, middle: int, last: int, less: Less) -> None:
    length = middle - first
    for parent in range((length - 2) // 2, -1, -1):
        _sift_down(q, first, parent, length, q[first + parent], less)
    for i in range(middle, last):
        if less(q[i], q[first]):
            value, q[i] = q[i], q[first]
            _sift_down(q, first, 0, length, value, less)
    for end in range(middle - 1, first, -1):
        value, q[end] = q[end], q[first]
        _sift_down(q, first, 0, end - first, value, less)


def _std_sort(q: list[Item], first: int, last: int, less: Less) -> None:
    if last - first < 2:
        return
    _introsort(q, first, last, 2 * int(math.log2(last - first)), less)
    if last - first > 16:
        _insertion_sort(q, first, first + 16, less)
        for i in range(first + 16, last):
            _linear_insert(q, i, less)
    else:
        _insertion_sort(q, first, last, less)


def _introsort(q: list[Item], first: int, last: int, depth: int, less: Less) -> None:
    while last - first > 16:
        if depth == 0:
            _partial_sort(q, first, last, last, less)
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, less)
        _introsort(q, cut, last, depth, less)
        last = cut


def _nth_element(q: list[Item], nth: int, less: Less) -> None:
    first, last = 0, len(q)
    depth = 2 * int(math.log2(last)) if last else 0
    while last - first > 3:
        if depth == 0:
            _partial_sort(q, first, nth + 1, last, less)
            q[first], q[nth] = q[nth], q[first]
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last, less)


def _quick_select(q: list[Item], k: int) -> None:
    """PyTorch's own quickselect (kthvalue): q[k] ends up the k-th smallest, NaN largest."""
    greater = _nan_largest_greater
    lo, hi = 0, len(q) - 1
    while hi > lo:
        if hi == lo + 1:
            if greater(q[lo], q[hi]):
                q[lo], q[hi] = q[hi], q[lo]
            return
        mid = (lo + hi) >> 1
        q[mid], q[lo + 1] = q[lo + 1], q[mid]
        for a, b in ((lo + 1, hi), (lo, hi), (lo + 1, lo)):
            if greater(q[a], q[b]):
                q[a], q[b] = q[b], q[a]
        i, j, pivot = lo + 1, hi, q[lo]
        while True:
            i += 1
            while greater(pivot, q[i]):
                i += 1
            j -= 1
            while greater(q[j], pivot):
                j -= 1
            if j < i:
                break
            q[i], q[j] = q[j], q[i]
        q[lo], q[j] = q[j], q[lo]
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1


# -- slices: NumPy where the answer is unique, the replayed kernel where ties make it a choice ----
def _rows(data: np.ndarray, dim: int) -> np.ndarray:
    """The slices along dim as rows of a 2-D array."""
    moved = np.moveaxis(data.reshape(-1) if data.ndim == 0 else data, dim, -1)
    return moved.reshape(math.prod(moved.shape[:-1]), moved.shape[-1])


def _unrows(rows: np.ndarray, data: np.ndarray, dim: int) -> np.ndarray:
    """The inverse of _rows, for a result with rows.shape[1] entries along dim."""
    shape = list(data.reshape(-1).shape if data.ndim == 0 else data.shape)
    shape.pop(dim)
    return np.moveaxis(rows.reshape((*shape, rows.shape[-1])), -1, dim)


def _has_ties(rows: np.ndarray) -> np.ndarray:
    ordered = np.sort(rows, axis=-1)
    same = ordered[:, 1:] == ordered[:, :-1]
    if _dtype.is_floating(ordered.dtype):
        same |= np.isnan(ordered[:, 1:]) & np.isnan(ordered[:, :-1])
    return same.any(axis=-1)


def _items(row: np.ndarray) -> list[Item]:
    return list(zip(row.tolist(), range(len(row)), strict=True))


def _argsort(data: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """A stable argsort with NaN as the largest value."""
    if not descending:
        return np.argsort(data, axis=dim, kind="stable")
    if _dtype.is_floating(data.dtype):
        return np.lexsort((-data, ~np.isnan(data)), axis=dim)
    return np.argsort(~data, axis=dim, kind="stable")  # ~ reverses the order of ints and bools


def _topk_indices(data: np.ndarray, k: int, dim: int, largest: bool, is_sorted: bool) -> np.ndarray:
    rows = _rows(data, dim)
    n = rows.shape[1]
    out = _argsort(rows, -1, largest)[:, :k]
    partial = k * 64 <= n  # PyTorch's choice between std::partial_sort and std::nth_element
    replay = _has_ties(rows) if is_sorted or partial else np.ones(len(rows), dtype=bool)
    less = _nan_largest_greater if largest else _nan_largest_less
    for r in np.flatnonzero(replay if k else []):
        q = _items(rows[r])
        if partial:
            _partial_sort(q, 0, k, n, less)
        else:
            _nth_element(q, k - 1, less)
            if is_sorted:
                _std_sort(q, 0, k - 1, less)
        out[r] = [i for _, i in q[:k]]
    return _unrows(out, data, dim)


def _kth_indices(data: np.ndarray, k: int, dim: int) -> np.ndarray:
    rows = _rows(data, dim)
    out = _argsort(rows, -1, False)[:, k - 1 : k]
    for r in np.flatnonzero(_has_ties(rows)):
        q = _items(rows[r])
        _quick_select(q, k - 1)
        out[r, 0] = q[k - 1][1]
    return _unrows(out, data, dim)


def _mode_indices(data: np.ndarray, dim: int) -> np.ndarray:
    rows = _rows(data, dim)
    out = np.argmin(rows, axis=-1)[:, None]  # all values distinct: the smallest is the mode
    replay = _has_ties(rows) | (np.isnan(rows).any(axis=-1) if _dtype.is_floating(rows.dtype) else False)
    for r in np.flatnonzero(replay):
        q = _items(rows[r])
        _std_sort(q, 0, len(q), _plain_less)
        best, run = 0, 0
        for i, (value, index) in enumerate(q):
            run += 1
            if i == len(q) - 1 or value != q[i + 1][0]:
                if run > best:
                    best, out[r, 0] = run, index
                run = 0
    return _unrows(out, data, dim)


# -- the ops ----------------------------------------------------------------------------------
SortBackward0 = selecting_entry("SortBackward0")
TopkBackward0 = selecting_entry("TopkBackward0")
KthvalueBackward0 = selecting_entry("KthvalueBackward0")
MedianBackward1 = selecting_entry("MedianBackward1")
ModeBackward0 = selecting_entry("ModeBackward0")
MedianBackward0 = derivative("MedianBackward0", self=lambda grad, self, result: evenly_distribute(grad, self, result))
NanmedianBackward0 = derivative("NanmedianBackward0", self=lambda grad, self, result: evenly_distribute(grad, self, result))
NanmedianBackward1 = selecting_entry("NanmedianBackward1")


def _no_bool(input: Tensor, kernel: str) -> None:
    if input.dtype.name == "bool":
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Any:
    # Unstable sorts of more than 16 elements with ties order them as x86-simd-sort happens to; this
    # sort is stable, which is what PyTorch does up to 16 elements and with stable=True.
    d = input._wrap_dim(dim)
    data = input._data.reshape(-1) if input.ndim == 0 else input._data
    return record_selection(SortBackward0, input, d, True, _argsort(data, d, descending), sort_result)


def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    return sort(input, dim, descending, stable=stable).indices


def msort(input: Tensor) -> Tensor:
    return sort(require_tensor("msort", "input", 1, input), 0).values


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    if input.dtype.name == "bool":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    d = input._wrap_dim(dim)
    size = input.shape[d] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    indices = _topk_indices(input._data, k, d, largest, sorted)
    return record_selection(TopkBackward0, input, d, True, indices, topk_result)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    _no_bool(input, "kthvalue_cpu")
    d = check_nonempty_dim(input, dim, "kthvalue")
    if not 1 <= k <= (input.shape[d] if input.ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return record_selection(KthvalueBackward0, input, d, keepdim, _kth_indices(input._data, k, d), kthvalue_result)


def median(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    _no_bool(input, "median_cpu")
    flat = input._data.reshape(-1)
    if dim is None:
        is_float = _dtype.is_floating(flat.dtype)
        if is_float and (flat.size == 0 or np.isnan(flat).any()):
            value = np.asarray(np.nan, dtype=flat.dtype)
        else:
            value = np.asarray(np.partition(flat, (flat.size - 1) // 2)[(flat.size - 1) // 2])
        return MedianBackward0.record(value, (input,))
    d = check_nonempty_dim(input, dim, "median")
    data = flat if input.ndim == 0 else input._data
    # PyTorch partitions (value, index) pairs: the lower median in a stable order; else the first NaN
    indices = np.take(_argsort(data, d, False), [(data.shape[d] - 1) // 2], axis=d)
    if _dtype.is_floating(data.dtype) and data.size:
        nan_at = np.isnan(data)
        first_nan = np.argmax(nan_at, axis=d, keepdims=True)
        indices = np.where(nan_at.any(axis=d, keepdims=True), first_nan, indices)
    return record_selection(MedianBackward1, input, d, keepdim, indices, median_result)


def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """median of the values that are not NaN; NaN where every value is."""
    _no_bool(input, "median_out")
    data = input._data
    if dim is None:
        flat = data.reshape(-1)
        kept = flat[~np.isnan(flat)] if _dtype.is_floating(flat.dtype) else flat
        middle = (kept.size - 1) // 2
        value = np.partition(kept, middle)[middle] if kept.size else np.nan
        return NanmedianBackward0.record(np.asarray(value, dtype=data.dtype), (input,))
    d = check_nonempty_dim(input, dim, "median")
    rows = _rows(data, d)
    counts = (~np.isnan(rows)).sum(-1) if _dtype.is_floating(rows.dtype) else np.full(len(rows), rows.shape[-1])
    # The lower median of the values in a stable order, NaN last. A row of NaN only: where PyTorch's nth_element,
    # asked for position 0 among values that all compare equal, leaves an index.
    picked = np.take_along_axis(_argsort(rows, -1, False), np.maximum(counts - 1, 0)[:, None] // 2, -1)
    for r in np.flatnonzero(counts == 0):
        q = _items(rows[r])
        _nth_element(q, 0, lambda a, b: False)
        picked[r, 0] = q[0][1]
    return record_selection(NanmedianBackward1, input, d, keepdim, _unrows(picked, data, d), nanmedian_result)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    d = check_nonempty_dim(input, dim, "mode")
    return record_selection(ModeBackward0, input, d, keepdim, _mode_indices(input._data, d), mode_result)


# PyTorch records unique's output with a node whose backward is not implemented.
Unique2Backward0 = derivative("Unique2Backward0", self=_not_implemented("_unique2"))
UniqueDimBackward0 = derivative("UniqueDimBackward0", self=_not_implemented("unique_dim"))


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None) -> Any:
    if dim is None:
        values, inverse, counts = np.unique(input._data.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
        inverse = inverse.reshape(input.shape)
        entry = Unique2Backward0
    else:
        d = input._wrap_dim(dim)
        if _selects_the_empty_dim(input, d):
            return _no_slices(UniqueDimBackward0, input, return_inverse, return_counts)
        values, inverse, counts = np.unique(input._data, return_inverse=True, return_counts=True, axis=d)
        inverse = inverse.reshape(-1)
        entry = UniqueDimBackward0
    return _unique_outputs(entry, input, values, inverse, counts, return_inverse, return_counts)


def _selects_the_empty_dim(input: Tensor, d: int) -> bool:
    """unique(dim=d) of a tensor with a zero-size dim: fine when that dim is d, PyTorch's error otherwise."""
    empty = [i for i, size in enumerate(input.shape) if size == 0]
    if len(empty) > 1:
        raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
    if empty and empty != [d]:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    return bool(empty)


def _no_slices(entry: Any, input: Tensor, return_inverse: bool, return_counts: bool) -> Any:
    none = np.zeros(0, np.int64)
    return _unique_outputs(entry, input, input._data, none, none, return_inverse, return_counts)


def _no_unique_consecutive_derivative(grad: Tensor) -> Tensor:
    raise NotImplementedError("the derivative for 'unique_consecutive' is not implemented.")


UniqueConsecutiveBackward0 = derivative("UniqueConsecutiveBackward0", self=_no_unique_consecutive_derivative)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None) -> Any:
    """The first of each run of equal elements (of equal slices along dim); NaN equals nothing, as in PyTorch."""
    data = require_tensor("unique_consecutive", "input", 1, input)._data
    if dim is None:
        runs = data.reshape(-1)
    else:
        if input.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = input._wrap_dim(dim)
        if _selects_the_empty_dim(input, d):
            return _no_slices(UniqueConsecutiveBackward0, input, return_inverse, return_counts)
        runs = np.moveaxis(data, d, 0).reshape(data.shape[d], -1)
    starts = np.ones(len(runs), np.bool_)
    changed = runs[1:] != runs[:-1]
    starts[1:] = changed if dim is None else changed.any(axis=1)
    first = np.flatnonzero(starts)
    values = runs[first] if dim is None else np.take(data, first, axis=d)
    inverse = np.cumsum(starts) - 1
    counts = np.diff(np.append(first, len(runs)))
    return _unique_outputs(UniqueConsecutiveBackward0, input, values, inverse.reshape(input.shape) if dim is None else inverse,
                           counts, return_inverse, return_counts)


def _unique_outputs(entry: Any, input: Tensor, values: np.ndarray, inverse: np.ndarray, counts: np.ndarray,
                    return_inverse: bool, return_counts: bool) -> Any:
    out = [entry.record(values, (input,))]
    if return_inverse:
        out.append(Tensor._wrap(inverse.astype(np.int64)))
    if return_counts:
        out.append(Tensor._wrap(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


# -- nonzero positions -------------------------------------------------------------------------------
def argwhere(input: Tensor) -> Tensor:
    return nonzero(require_tensor("argwhere", "input", 1, input))


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """nonzero's (n, ndim) positions cut or padded with fill_value to exactly `size` rows."""
    require_tensor("nonzero_static", "input", 1, input)
    for name, value in (("size", size), ("fill_value", fill_value)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"nonzero_static(): argument '{name}' must be int, not {type(value).__name__}")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = nonzero(input)._data[:size]
    out = np.full((size, found.shape[1]), fill_value, np.int64)
    out[: len(found)] = found
    return Tensor._wrap(out)


# -- searchsorted, bucketize ----------------------------------------------------------------------
def _bisect(boundaries: np.ndarray, values: np.ndarray, right: bool, sorter: np.ndarray | None) -> np.ndarray:
    """PyTorch's lower (upper) bound, step for step, for all values at once: its tests `!(b >= v)` (`!(b > v)`)
    decide where NaNs land, which NumPy's searchsorted (NaN sorted last) answers differently.

    `boundaries` (and `sorter`) hold one row per row of `values`, or a single row that serves them all.
    """
    n = boundaries.shape[-1]
    rows = np.arange(len(values))[:, None] if len(boundaries) > 1 else np.zeros((1, 1), np.int64)
    start = np.zeros(values.shape, np.int64)
    end = np.full(values.shape, n, np.int64)
    while (searching := start < end).any():
        mid = start + ((end - start) >> 1)
        at = np.minimum(mid, n - 1)  # a finished search may sit at n; it reads any element and ignores it
        mid_value = boundaries[rows, at if sorter is None else sorter[rows, at]]
        go_right = ~(mid_value > values) if right else ~(mid_value >= values)
        start = np.where(searching & go_right, mid + 1, start)
        end = np.where(searching & ~go_right, mid, end)
    return start


def _check_searchsorted(boundaries: Tensor, input: Tensor, right: bool, side: str | None, sorter: Tensor | None) -> None:
    """PyTorch's searchsorted_pre_check, in its order."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side != "right":
            raise RuntimeError(
                f"torch.searchsorted(): side and right can't be set to opposites, got side of {side} while right was True"
            )
    if sorter is not None:
        if require_tensor("searchsorted", "sorter", 3, sorter).shape != boundaries.shape:
            raise RuntimeError(
                "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor "
                f"{list(boundaries.shape)}and got sorter tensor {list(sorter.shape)}"
            )
        if sorter.dtype is not _dtype.int64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype {sorter.dtype.scalar_name}")
        if sorter.numel() and (sorter._data.max() >= sorter.shape[-1] or sorter._data.min() < 0):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    if input.ndim == 0 and boundaries.ndim != 1:
        raise RuntimeError(
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, but we got "
            f"boundaries tensor dim({boundaries.ndim}) and input value's dim({input.ndim}) numel({input.numel()})"
        )
    if boundaries.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension")
    if boundaries.ndim != 1 and (boundaries.ndim != input.ndim or boundaries.shape[:-1] != input.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
            f"tensor and input value tensor must match, but we got boundaries tensor {list(boundaries.shape)} and input "
            f"value tensor {list(input.shape)}"
        )


def searchsorted(sorted_sequence: Tensor, input: Tensor | float, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    """Where each value would go in the sorted innermost rows of `sorted_sequence` (through `sorter` if given)."""
    if not isinstance(sorted_sequence, Tensor):
        raise TypeError(f"searchsorted(): argument 'sorted_sequence' must be Tensor, not {type(sorted_sequence).__name__}")
    values = input if isinstance(input, Tensor) else as_tensor_operand(input, sorted_sequence.dtype)  # a wrapped number
    _check_searchsorted(sorted_sequence, values, right, side, sorter)
    out_dtype = np.int32 if out_int32 else np.int64
    if values.numel() == 0:
        return Tensor._wrap(np.zeros(values.shape, out_dtype))
    common = _dtype.result_type(sorted_sequence, input)  # a Python number promotes as in a binary op
    if common is _dtype.bool_:
        raise not_implemented_for("searchsorted_out_cpu", common)
    boundaries = sorted_sequence._data.astype(common.np, copy=False)
    rows = 1 if boundaries.ndim == 1 else values.numel() // values.shape[-1]
    found = _bisect(
        boundaries.reshape(rows, -1), values._data.astype(common.np, copy=False).reshape(rows, -1),
        right or side == "right", None if sorter is None else sorter._data.reshape(rows, -1),
    )
    return Tensor._wrap(found.reshape(values.shape).astype(out_dtype))


def bucketize(input: Tensor | float, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    if isinstance(boundaries, Tensor) and boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# -- bincount ---------------------------------------------------------------------------------
# PyTorch records the weighted count and raises only when backward reaches it.
BincountBackward = derivative("NotImplemented", ("self", "weights"), weights=_not_implemented("bincount"))


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    require_tensor("bincount", "input", 1, input)
    refuse_forward_ad("aten::bincount", weights)
    if weights is not None:
        require_tensor("bincount", "weights", 2, weights)
    if input.dtype.is_floating_point or input.dtype is _dtype.bool_:
        raise not_implemented_for("bincount_cpu", input.dtype)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.ndim == 1 and input.numel() == 0:
        return Tensor._wrap(np.zeros(minlength, np.int64))  # int64 counts, weights or not, as in PyTorch
    data = input._data
    if input.ndim != 1 or data.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    bins = max(int(data.max()) + 1, minlength)
    if weights is None:
        return Tensor._wrap(np.bincount(data, minlength=bins).astype(np.int64, copy=False))
    # float32 weights sum in float32, any others in float64; added in input order, as PyTorch's loop does
    out = np.zeros(bins, np.float32 if weights.dtype is _dtype.float32 else np.float64)
    np.add.at(out, data, weights._data.astype(out.dtype, copy=False))
    return BincountBackward.record(out, (input, weights))


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sort": sort, "argsort": argsort, "topk": topk, "kthvalue": kthvalue, "median": median, "nanmedian": nanmedian,
    "mode": mode, "unique": unique, "bincount": bincount, "searchsorted": searchsorted, "bucketize": bucketize,
    "msort": msort, "unique_consecutive": unique_consecutive, "argwhere": argwhere, "nonzero_static": nonzero_static,
}
METHODS: dict[str, Callable[..., Any]] = {name: fn for name, fn in FUNCTIONS.items() if name not in ("searchsorted", "bucketize")}
INPLACE: tuple[str, ...] = ()
