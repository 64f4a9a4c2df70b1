"""Sparse COO tensors (layout torch.sparse_coo): indices, values and a size, with PyTorch 2.13's autograd.

A SparseTensor is a Tensor whose elements live in `indices` (sparse_dim x nnz, int64) and `values`
(nnz x the dense dims). Its `_data`, which the engine and every dense op read, is a Pattern: a read-only
array of zeros with the tensor's shape and dtype that takes no memory, so the engine checks a sparse
gradient's shape and dtype as it checks a dense one, and dense tensors pay nothing for sparse ones existing.

Autograd goes through the values, as PyTorch's does: `values()` and the constructor are a pair of nodes
(ValuesBackward0 and SparseCooTensorWithDimsAndTensorsBackward0), so an op that maps values to values is
written once on dense values and differentiates (twice, too) for free. `to_dense()`'s backward masks the
gradient with the input's indices, which is how a sparse leaf gets a sparse `.grad`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _dtype, _layout
from .._format import format_sparse
from ..ops.creation import tensor as make_tensor
from ..ops.table import Derivative
from ..tensor import Tensor, TensorBase

Mask = tuple[np.ndarray, tuple[int, ...], bool]  # a sparse tensor's indices, shape and coalesced flag


def no_sparse_kernel(op: str) -> NotImplementedError:
    return NotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the 'SparseCPU' backend. glassgrad runs this op on dense "
        "tensors only: call .to_dense() first, or use the torch.sparse function for it."
    )


class Pattern(np.ndarray):
    """A sparse tensor's `_data`: zeros of its shape and dtype, broadcast from one scalar.

    A few NumPy calls see the sparse elements, for the dense results PyTorch gives: add and subtract with a
    dense array (`dense += sparse` in AccumulateGrad and the engine's sums), a sum of all of it (torch.sum), and
    a matrix product with a sparse matrix or its transpose (torch.mm with one sparse operand, whose backward
    reads the transpose; it costs the memory of the dense matrix). Every other NumPy function refuses, as
    PyTorch's SparseCPU backend refuses an op it has no kernel for, and so does any other view of the pattern
    (a reshape, an index), which no longer stands for the sparse elements.
    """

    parts: tuple[np.ndarray, np.ndarray] | None

    def __array_finalize__(self, obj: Any) -> None:
        self.parts = None

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, out: Any = None, **kwargs: Any) -> Any:
        patterns = [x for x in inputs if isinstance(x, Pattern)]
        if len(patterns) == 1 and patterns[0].parts is not None and not any(isinstance(o, Pattern) for o in out or ()):
            whole = kwargs.get("axis") is None or _every_axis(kwargs["axis"], self.ndim)
            if (
                (method == "__call__" and ufunc in (np.add, np.subtract, np.matmul))
                or (method == "reduce" and ufunc is np.add and whole)
            ):
                arrays = [densify(*x.parts, x.shape) if isinstance(x, Pattern) else x for x in inputs]
                return getattr(ufunc, method)(*arrays, out=out, **kwargs)
        raise no_sparse_kernel(ufunc.__name__)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        raise no_sparse_kernel(func.__name__)

    def swapaxes(self, axis1: int, axis2: int) -> np.ndarray:
        """A sparse matrix's transpose still stands for its elements (a matrix product's backward reads it)."""
        if self.parts is None or self.ndim != 2 or {axis1 % 2, axis2 % 2} != {0, 1} or self.parts[0].shape[0] != 2:
            return super().swapaxes(axis1, axis2)
        indices, values = self.parts
        return pattern(indices[::-1], values, self.shape[::-1])

    @property
    def T(self) -> np.ndarray:
        return self.swapaxes(0, 1) if self.ndim == 2 else super().T


def pattern(indices: np.ndarray, values: np.ndarray, shape: Sequence[int]) -> Pattern:
    """The zero-memory `_data` of a sparse tensor with these entries."""
    zeros = np.broadcast_to(np.zeros((), values.dtype), tuple(shape)).view(Pattern)
    zeros.parts = (indices, values)
    return zeros


def merged(indices: np.ndarray, values: np.ndarray, shape: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The entries coalesced: duplicate indices summed into one, in row-major order of the sparse dims."""
    sparse_shape = tuple(shape[: indices.shape[0]])
    if not sparse_shape:  # no sparse dims: every entry is the whole tensor, so they sum into one
        count = min(indices.shape[1], 1)
        return np.zeros((0, count), np.int64), values.sum(axis=0, keepdims=True)[:count]
    flat = np.ravel_multi_index(tuple(indices), sparse_shape)
    unique, inverse = np.unique(flat, return_inverse=True)
    summed = np.zeros((unique.size, *values.shape[1:]), values.dtype)
    np.add.at(summed, inverse.reshape(-1), values)
    return np.array(np.unravel_index(unique, sparse_shape), np.int64).reshape(len(sparse_shape), unique.size), summed


def _every_axis(axis: Any, ndim: int) -> bool:
    axes = axis if isinstance(axis, tuple) else (axis,)
    return sorted(a % ndim for a in axes) == list(range(ndim)) if ndim else True


def densify(indices: np.ndarray, values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The dense array of a COO tensor: duplicates summed, unspecified elements zero."""
    if indices.shape[0] == 0:
        return values.sum(axis=0).astype(values.dtype).reshape(shape)
    out = np.zeros(shape, values.dtype)
    np.add.at(out, tuple(indices), values)
    return out


class SparseTensor(Tensor):
    """A sparse COO tensor; build one with torch.sparse_coo_tensor or Tensor.to_sparse()."""

    __slots__ = ("_coalesced", "_sparse_indices", "_sparse_values")

    # -- what a COO tensor is -----------------------------------------------------------------------------
    @property
    def is_sparse(self) -> bool:
        return True

    @property
    def layout(self) -> _layout.layout:
        return _layout.sparse_coo

    def sparse_dim(self) -> int:
        return self._sparse_indices.shape[0]

    def dense_dim(self) -> int:
        return self._sparse_values.ndim - 1

    def _nnz(self) -> int:
        return self._sparse_indices.shape[1]

    def is_coalesced(self) -> bool:
        return self._coalesced

    def _mask(self) -> Mask:
        return self._sparse_indices, self._data.shape, self._coalesced

    def _indices(self) -> Tensor:
        return Tensor._wrap(self._sparse_indices)

    def _values(self) -> Tensor:
        """The values, not differentiable (PyTorch's `_values()`): see values()."""
        return Tensor._wrap(self._sparse_values)

    def indices(self) -> Tensor:
        self._require_coalesced("indices")
        return self._indices()

    def values(self) -> Tensor:
        self._require_coalesced("values")
        return tracked_values(self)

    def _require_coalesced(self, what: str) -> None:
        if not self._coalesced:
            raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first")

    def _grad_mask(self) -> Mask:
        """Where a gradient for this tensor has entries: each element once, as PyTorch masks it (with the coalesced
        indices, flagged coalesced only when this tensor was)."""
        indices = self._sparse_indices
        if not self._coalesced:
            indices = merged(indices, self._sparse_values, self._data.shape)[0]
        return indices, self._data.shape, self._coalesced

    def coalesce(self) -> SparseTensor:
        if self._coalesced:
            return self
        result = make_sparse(*merged(self._sparse_indices, self._sparse_values, self._data.shape), self._data.shape, True)
        return CoalesceBackward0.record_onto(result, (self,))

    def to_dense(self, dtype: _dtype.dtype | None = None, *, masked_grad: bool | None = None) -> Tensor:
        dense_array = densify(self._sparse_indices, self._sparse_values, self._data.shape)
        dense = ToDenseBackward0.record(dense_array, (self,), mask=self._grad_mask())
        return dense if dtype is None else dense.to(dtype)

    def to_sparse(self, *args: Any, layout: Any = None, blocksize: Any = None, **kwargs: Any) -> Tensor:
        if layout not in (None, _layout.sparse_coo):
            return _compressed(self, layout, blocksize)
        return self

    to_sparse_coo = to_sparse

    # -- copies and aliases --------------------------------------------------------------------------------
    def detach(self) -> SparseTensor:
        alias = make_sparse(self._sparse_indices, self._sparse_values, self._data.shape, self._coalesced)
        alias._version_counter = self._version_counter
        return alias

    @property
    def data(self) -> SparseTensor:
        return make_sparse(self._sparse_indices, self._sparse_values, self._data.shape, self._coalesced)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not value.is_sparse:
            raise RuntimeError(
                "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have incompatible tensor type."
            )
        self._sparse_indices, self._sparse_values, self._coalesced = value._sparse_indices, value._sparse_values, value._coalesced
        self._data = value._data

    def clone(self, *, memory_format: Any = None) -> SparseTensor:
        return scaled(self, self._sparse_values.copy(), CloneBackward0)

    def to(self, *args: Any, **kwargs: Any) -> SparseTensor:
        values = self._values().to(*args, **kwargs)._data
        if values is self._sparse_values:
            return self
        return scaled(self, values, ToCopyBackward0, dtype=self.dtype)

    def zero_(self) -> SparseTensor:
        """No specified elements left (the size stays), as PyTorch empties a sparse tensor."""
        self._sparse_indices = np.zeros((self.sparse_dim(), 0), np.int64)
        self._sparse_values = np.zeros((0, *self._sparse_values.shape[1:]), self._sparse_values.dtype)
        self._coalesced = True
        self._data.parts = (self._sparse_indices, self._sparse_values)
        return self

    def numpy(self, *, force: bool = False) -> np.ndarray:
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return self.numpy()

    def tolist(self) -> Any:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def __repr__(self) -> str:
        return format_sparse(self, (("indices", self._sparse_indices), ("values", self._sparse_values)), self._nnz())

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild, (self._sparse_indices, self._sparse_values, tuple(self._data.shape), self._requires_grad))

    def __deepcopy__(self, memo: dict[int, Any]) -> SparseTensor:
        copy = make_sparse(self._sparse_indices.copy(), self._sparse_values.copy(), self._data.shape, self._coalesced)
        copy._requires_grad = self._requires_grad
        memo[id(self)] = copy
        return copy


def make_sparse(indices: np.ndarray, values: np.ndarray, shape: Sequence[int], coalesced: bool) -> SparseTensor:
    """A SparseTensor around these arrays (no copy), with no autograd history."""
    t = TensorBase.__new__(SparseTensor)
    t._init(pattern(indices, values, shape))
    t._sparse_indices, t._sparse_values, t._coalesced = indices, values, coalesced
    return t


def from_values(indices: np.ndarray, values: Tensor, shape: Sequence[int], coalesced: bool) -> SparseTensor:
    """A sparse tensor of these values at `indices`, recording the constructor's node when the values need grad."""
    result = make_sparse(indices, values._data, shape, coalesced)
    SparseCooTensorWithDimsAndTensorsBackward0.record_onto(result, (values,), indices=indices)
    return result


def tracked_values(sparse: SparseTensor) -> Tensor:
    """The values as a tensor that differentiates back into the sparse tensor (ValuesBackward0)."""
    return ValuesBackward0.record(sparse._sparse_values, (sparse,), mask=sparse._mask())


def scaled(sparse: SparseTensor, values: np.ndarray, entry: Derivative, **attrs: Any) -> SparseTensor:
    """The sparse tensor with new values at the same indices, duplicates kept, for an op linear in each value
    (clone, a cast, a scalar factor): entry's formula maps the result's gradient to the input's, whatever its
    layout, as PyTorch's does."""
    result = make_sparse(sparse._sparse_indices, values, sparse._data.shape, sparse._coalesced)
    return entry.record_onto(result, (sparse,), **attrs)


def map_values(sparse: SparseTensor, op: Any) -> SparseTensor:
    """The sparse tensor with op applied to its values (a dense, differentiable op). The values are the coalesced
    ones: op need not be linear, and each element gets its gradient once, as in PyTorch."""
    sparse = sparse.coalesce()
    return from_values(sparse._sparse_indices, op(tracked_values(sparse)), sparse._data.shape, True)


def values_at(dense: Tensor, indices: np.ndarray) -> Tensor:
    """The elements (rows over the dense dims) of `dense` at each index, differentiably."""
    if dense.is_sparse:
        dense = dense.to_dense()
    if indices.shape[0] == 0:  # no sparse dims: every entry is the whole tensor
        return dense.unsqueeze(0).expand(indices.shape[1], *dense.shape)
    return dense[tuple(Tensor._wrap(row) for row in indices)]


def sparse_mask(dense: Tensor, mask: Mask) -> SparseTensor:
    """dense's elements where the mask has entries, with the mask's indices (PyTorch's Tensor.sparse_mask)."""
    indices, shape, coalesced = mask
    return from_values(indices, values_at(dense, indices), shape, coalesced)


# Linear in the gradient and reading no input values, so each holds for complex tensors as it is (complex=True).
SparseCooTensorWithDimsAndTensorsBackward0 = Derivative(
    "SparseCooTensorWithDimsAndTensorsBackward0", ("values",),
    {"values": lambda grad, indices: values_at(grad, indices)}, complex=True,
)
ValuesBackward0 = Derivative(
    "ValuesBackward0", ("self",),
    {"self": lambda grad, mask: from_values(mask[0], grad, mask[1], mask[2])}, complex=True,
)
CloneBackward0 = Derivative("CloneBackward0", ("self",), {"self": lambda grad: grad}, complex=True)
ToCopyBackward0 = Derivative("ToCopyBackward0", ("self",), {"self": lambda grad, dtype: grad.to(dtype)}, complex=True)
CoalesceBackward0 = Derivative("CoalesceBackward0", ("self",), {"self": lambda grad: grad}, complex=True)
ToDenseBackward0 = Derivative("ToDenseBackward0", ("self",), {"self": sparse_mask}, complex=True)
# A dense tensor made sparse: ToSparseBackward0 with a sparse_dim given, ToSparseBackward1 without (PyTorch's overloads)
ToSparseBackward0, ToSparseBackward1 = (
    Derivative(name, ("self",), {"self": lambda grad: grad.to_dense() if grad.is_sparse else grad}, complex=True)
    for name in ("ToSparseBackward0", "ToSparseBackward1")
)


# -- construction ------------------------------------------------------------------------------------------
def layout_name(layout: Any) -> str:
    return {"sparse_csr": "SparseCsr", "sparse_csc": "SparseCsc", "sparse_bsr": "SparseBsr",
            "sparse_bsc": "SparseBsc", "strided": "Strided"}.get(getattr(layout, "name", ""), str(layout))


def sparse_coo_tensor(
    indices: Any, values: Any, size: Sequence[int] | None = None, *, dtype: _dtype.dtype | None = None,
    device: Any = None, pin_memory: bool | None = False, requires_grad: bool = False,
    check_invariants: bool | None = None, is_coalesced: bool | None = None,
) -> SparseTensor:
    """torch.sparse_coo_tensor: a COO tensor from an index matrix (sparse_dim x nnz) and its values."""
    indices = indices if isinstance(indices, Tensor) else make_tensor(indices, dtype=_dtype.int64)
    values = values if isinstance(values, Tensor) else make_tensor(values, dtype=dtype)
    if dtype is not None and values.dtype is not dtype:
        values = values.to(dtype)
    index = indices._data.astype(np.int64)
    if index.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(index.shape)}")
    if values.ndim == 0:  # one value, as PyTorch reads a 0-d one
        values = values.reshape(1)
    nnz = index.shape[1]
    if values.shape[0] != nnz:
        raise RuntimeError(
            f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from values: {values.shape[0]}"
        )
    shape = _inferred_size(index, values) if size is None else tuple(int(n) for n in size)
    _check_indices(index, shape, values)
    if is_coalesced and nnz > 1 and not _strictly_increasing(index, shape):
        raise RuntimeError("cannot set is_coalesced to true if indices correspond to uncoalesced COO tensor")
    result = from_values(index, values, shape, bool(is_coalesced) or nnz <= 1)
    if requires_grad:
        result.requires_grad_(True)
    return result


def _inferred_size(index: np.ndarray, values: Tensor) -> tuple[int, ...]:
    sparse_sizes = tuple(int(n) + 1 for n in index.max(axis=1)) if index.shape[1] else (0,) * index.shape[0]
    return sparse_sizes + tuple(values.shape[1:])


def _check_indices(index: np.ndarray, shape: tuple[int, ...], values: Tensor) -> None:
    sparse_dim = index.shape[0]
    if len(shape) != sparse_dim + values.ndim - 1:
        raise RuntimeError(
            f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(shape)}, sparse_dim = "
            f"{sparse_dim}, dense_dim = {values.ndim - 1}"
        )
    if tuple(values.shape[1:]) != shape[sparse_dim:]:
        raise RuntimeError(
            f"values has incorrect size, expected {[values.shape[0], *shape[sparse_dim:]]}, got {list(values.shape)}"
        )
    for dim in range(sparse_dim):
        if index.shape[1] == 0:
            break
        low, high = int(index[dim].min()), int(index[dim].max())
        if low < 0:
            raise RuntimeError(f"found negative index {low} for dim {dim}")
        if high >= shape[dim]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {dim}, size is {shape[dim]} but found index {high}")


def _strictly_increasing(index: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether the entries are in row-major order with no index twice (what coalesced means)."""
    if index.shape[0] == 0:  # no sparse dims: every entry is the same element
        return index.shape[1] <= 1
    return bool(np.all(np.diff(np.ravel_multi_index(tuple(index), shape[: index.shape[0]])) > 0))


def to_sparse(self: Tensor, *args: Any, layout: Any = None, blocksize: Any = None, dense_dim: int | None = None) -> Tensor:
    """Tensor.to_sparse(sparse_dim=None, *, layout=None): the nonzero elements (rows, for a hybrid tensor)."""
    if self.is_sparse:
        return self.to_sparse(layout=layout, blocksize=blocksize)
    if layout not in (None, _layout.sparse_coo):
        return _compressed(self, layout, blocksize)
    sparse_dim = args[0] if args else self.ndim if dense_dim is None else self.ndim - dense_dim
    data = self._data
    nonzero = data != 0 if sparse_dim == data.ndim else np.any(data != 0, axis=tuple(range(sparse_dim, data.ndim)))
    index = np.array(np.nonzero(nonzero), np.int64).reshape(sparse_dim, -1)
    result = make_sparse(index, data[tuple(index)], data.shape, True)
    (ToSparseBackward0 if args else ToSparseBackward1).record_onto(result, (self,))
    return result


def _compressed(self: Tensor, layout: Any, blocksize: Any) -> Tensor:
    from .compressed import convert  # compressed.py builds on this module

    return convert(self, layout, blocksize)


def dense_sparse_mask(self: Tensor, mask: Tensor) -> SparseTensor:
    """Tensor.sparse_mask(mask): self's elements at the indices of the sparse tensor `mask`."""
    if not mask.is_sparse:
        raise RuntimeError("sparse_mask expects mask to be sparse")
    if tuple(self.shape) != tuple(mask.shape):
        raise RuntimeError("sparse_mask(): operands have incompatible sizes")
    return sparse_mask(self, mask._mask())


def _rebuild(indices: np.ndarray, values: np.ndarray, shape: tuple[int, ...], requires_grad: bool) -> SparseTensor:
    t = make_sparse(indices, values, shape, False)
    t._requires_grad = requires_grad
    return t
