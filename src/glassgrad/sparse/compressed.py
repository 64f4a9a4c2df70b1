"""Compressed sparse matrices (layouts CSR, CSC, BSR, BSC): conversions every way with PyTorch 2.13's gradients.

A CompressedTensor is a 2-D matrix kept as PyTorch keeps it: compressed indices (where each row's entries
start, or each column's, or each row or column of blocks'; one more than there are), plain indices (each
entry's column, or row) and values (one per entry, or one block per entry for BSR and BSC). Its `_data` is a
coo.Pattern whose parts list every element the values hold (element indices, and the values flattened as a
view), so what the pattern computes densely for COO (torch.sum, dense + sparse) and gradcheck's perturbation
of the values see its elements too.

What an element is specified by does not depend on the layout, so every conversion goes through one form: the
dense values and a mask of the specified elements (a dense tensor's nonzeros, a sparse one's entries). Each
conversion records a node whose formula converts the gradient back to the source's layout, as PyTorch's
to_sparse_backward does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _layout
from .._format import format_sparse
from ..ops.table import Derivative
from ..tensor import Tensor, TensorBase
from .coo import densify, layout_name, make_sparse, pattern

COMPRESSED = (_layout.sparse_csr, _layout.sparse_csc, _layout.sparse_bsr, _layout.sparse_bsc)
_BLOCKED = (_layout.sparse_bsr, _layout.sparse_bsc)
_BY_ROW = (_layout.sparse_csr, _layout.sparse_bsr)  # the others compress columns


class CompressedTensor(Tensor):
    """A sparse matrix in a compressed layout; make one with Tensor.to_sparse_csr() and its kin."""

    __slots__ = ("_compressed_indices", "_plain_indices", "_sparse_layout", "_sparse_values")

    @property
    def layout(self) -> _layout.layout:
        return self._sparse_layout

    @property
    def is_sparse_csr(self) -> bool:
        return self._sparse_layout is _layout.sparse_csr

    def sparse_dim(self) -> int:
        return 2

    def dense_dim(self) -> int:
        return 0

    def _nnz(self) -> int:
        return self._plain_indices.shape[0]

    def _blocksize(self) -> tuple[int, int] | None:
        return tuple(self._sparse_values.shape[1:]) if self._sparse_layout in _BLOCKED else None  # type: ignore[return-value]

    def _index_array(self, name: str, by_row: bool) -> Tensor:
        if (self._sparse_layout in _BY_ROW) != by_row:
            kind = "row" if by_row else "column"
            raise RuntimeError(
                f"{name} expected sparse {kind} compressed tensor layout but got {layout_name(self._sparse_layout)}"
            )
        array = self._compressed_indices if name in ("crow_indices", "ccol_indices") else self._plain_indices
        return Tensor._wrap(array)

    def crow_indices(self) -> Tensor:
        return self._index_array("crow_indices", True)

    def col_indices(self) -> Tensor:
        return self._index_array("col_indices", True)

    def ccol_indices(self) -> Tensor:
        return self._index_array("ccol_indices", False)

    def row_indices(self) -> Tensor:
        return self._index_array("row_indices", False)

    def values(self) -> Tensor:
        """The values, differentiable back into this tensor (ValuesBackward0)."""
        return ValuesBackward0.record(self._sparse_values, (self,), structure=self)

    def _values(self) -> Tensor:
        return Tensor._wrap(self._sparse_values)

    def indices(self) -> Tensor:
        raise RuntimeError(f"indices expected sparse coordinate tensor layout but got {layout_name(self._sparse_layout)}")

    def to_dense(self, dtype: Any = None, *, masked_grad: bool | None = None) -> Tensor:
        indices, values = self._data.parts
        dense = ToDenseBackward0.record(densify(indices, values, self._data.shape), (self,), structure=self)
        return dense if dtype is None else dense.to(dtype)

    def to_sparse(self, *args: Any, layout: Any = None, blocksize: Any = None, dense_dim: int | None = None) -> Tensor:
        if blocksize is not None and layout in (None, self._sparse_layout):
            raise RuntimeError(
                f"to_sparse: conversion from {layout_name(self._sparse_layout)} to {layout_name(self._sparse_layout)} "
                "with blocksize argument given is not supported"
            )
        return convert(self, layout or _layout.sparse_coo, blocksize)

    def to_sparse_coo(self, sparse_dim: int | None = None) -> Tensor:
        return convert(self, _layout.sparse_coo, None)

    def detach(self) -> CompressedTensor:
        alias = _like(self, self._sparse_values)
        alias._version_counter = self._version_counter
        return alias

    @property
    def data(self) -> CompressedTensor:
        return _like(self, self._sparse_values)

    def numpy(self, *, force: bool = False) -> np.ndarray:
        raise TypeError(f"can't convert {layout_name(self._sparse_layout)} layout tensor to numpy. Use Tensor.to_dense() first.")

    def __repr__(self) -> str:
        compressed, plain = ("crow_indices", "col_indices") if self._sparse_layout in _BY_ROW else ("ccol_indices", "row_indices")
        arrays = ((compressed, self._compressed_indices), (plain, self._plain_indices), ("values", self._sparse_values))
        return format_sparse(self, arrays, self._nnz())


def _make(layout: _layout.layout, compressed: np.ndarray, plain: np.ndarray, values: np.ndarray, shape: tuple[int, ...]) -> CompressedTensor:
    """A CompressedTensor around these arrays (values made contiguous, so the pattern's flat view is theirs)."""
    values = np.ascontiguousarray(values)
    t = TensorBase.__new__(CompressedTensor)
    t._init(pattern(_element_indices(layout, compressed, plain, values), values.reshape(-1), shape))
    t._sparse_layout, t._compressed_indices, t._plain_indices, t._sparse_values = layout, compressed, plain, values
    return t


def _like(structure: CompressedTensor, values: np.ndarray) -> CompressedTensor:
    return _make(structure._sparse_layout, structure._compressed_indices, structure._plain_indices, values, structure._data.shape)


def _element_indices(layout: _layout.layout, compressed: np.ndarray, plain: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The (row, column) of every element the values hold, in the order of values.reshape(-1)."""
    outer = np.repeat(np.arange(compressed.size - 1), np.diff(compressed))
    rows, cols = (outer, plain) if layout in _BY_ROW else (plain, outer)
    block_rows, block_cols = values.shape[1:] if layout in _BLOCKED else (1, 1)
    inner_rows = np.arange(block_rows)[None, :, None]
    inner_cols = np.arange(block_cols)[None, None, :]
    element_rows = rows[:, None, None] * block_rows + inner_rows + 0 * inner_cols
    element_cols = cols[:, None, None] * block_cols + inner_cols + 0 * inner_rows
    return np.stack([element_rows.reshape(-1), element_cols.reshape(-1)]).astype(np.int64)


# -- conversions -------------------------------------------------------------------------------------------
def _specified(t: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """t's elements densely, and which of them t specifies (a dense tensor specifies its nonzeros)."""
    if t.layout is _layout.strided:
        return t._data, t._data != 0
    indices, values = t._data.parts
    mask = np.zeros(t._data.shape, bool)
    mask[tuple(indices)] = True
    return densify(indices, values, t._data.shape), mask


def _compress(dense: np.ndarray, mask: np.ndarray, layout: _layout.layout, blocksize: tuple[int, int]) -> CompressedTensor:
    """The matrix in a compressed layout: a block is specified where any of its elements is."""
    rows, cols = dense.shape
    block_rows, block_cols = blocksize
    blocks = dense.reshape(rows // block_rows, block_rows, cols // block_cols, block_cols).swapaxes(1, 2)
    specified = mask.reshape(blocks.shape[0], block_rows, blocks.shape[1], block_cols).any(axis=(1, 3))
    by_row = layout in _BY_ROW
    outer, plain = np.nonzero(specified if by_row else specified.T)
    values = blocks[(outer, plain) if by_row else (plain, outer)]
    if layout not in _BLOCKED:
        values = values.reshape(-1)
    counts = np.bincount(outer, minlength=specified.shape[0 if by_row else 1])
    compressed = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return _make(layout, compressed, plain.astype(np.int64), values, dense.shape)


def _check_conversion(t: Tensor, layout: _layout.layout, blocksize: Any) -> tuple[int, int]:
    """PyTorch's refusals for a conversion to a compressed layout; the blocksize to use."""
    source, target = layout_name(t.layout), layout_name(layout)
    op = f"sparse_compressed_to_{layout.name}" if t.layout in COMPRESSED else f"to_{layout.name}"
    if t.ndim != 2:
        raise NotImplementedError(
            f"{op}: glassgrad has compressed sparse matrices only (2-D, no batch or dense dims), got {t.ndim} dims"
        )
    if layout not in _BLOCKED:
        if t.layout in _BLOCKED:
            raise RuntimeError(f"{op}: expected SparseCsr or SparseCsc layout but got {source}")
        return (1, 1)
    if blocksize is None:
        kind = "dense" if t.layout is _layout.strided else "sparse"
        raise RuntimeError(f"{kind}_to_sparse: conversion from {source} to {target} without blocksize argument given is not supported")
    blocksize = (blocksize, blocksize) if isinstance(blocksize, int) else tuple(int(b) for b in blocksize)
    old = t._blocksize() if isinstance(t, CompressedTensor) else None
    if old is not None and old != blocksize:
        raise RuntimeError(
            f"{op}: conversion from {source} to {target} with blocksize changed from {list(old)} to {list(blocksize)} is "
            "not supported"
        )
    if t.shape[0] % blocksize[0] or t.shape[1] % blocksize[1]:
        kind = "dense" if t.layout is _layout.strided else "sparse_compressed"
        raise RuntimeError(
            f"{kind}_to_{layout.name}: tensor sparse size ({t.shape[0]},{t.shape[1]}) must be divisible by given "
            f"blocksize ({blocksize[0]},{blocksize[1]})"
        )
    return blocksize


def converted(t: Tensor, layout: _layout.layout, blocksize: Any) -> Tensor:
    """t's elements in `layout`, with no history."""
    if layout is _layout.strided:
        return Tensor._wrap(_specified(t)[0].copy())
    if layout is _layout.sparse_coo:
        if isinstance(t, CompressedTensor):  # every element its values hold, in their order (zeros in a block too)
            indices, values = t._data.parts
            return make_sparse(indices, values.copy(), t._data.shape, t._sparse_layout is _layout.sparse_csr)
        dense, mask = _specified(t)
        indices = np.array(np.nonzero(mask), np.int64).reshape(2, -1)
        return make_sparse(indices, dense[tuple(indices)], dense.shape, True)
    blocksize = _check_conversion(t, layout, blocksize)
    return _compress(*_specified(t), layout, blocksize)


def convert(t: Tensor, layout: _layout.layout, blocksize: Any) -> Tensor:
    """Tensor.to_sparse(layout=...) and its kin, from any layout to any other, recording the node PyTorch names (a
    tensor already in the layout, and blocksize, is returned as it is)."""
    result = converted(t, layout, blocksize)
    if t.layout is layout and (layout not in _BLOCKED or t._blocksize() == result._blocksize()):
        return t
    entry = _CONVERSIONS[layout.name]
    blocks = t._blocksize() if isinstance(t, CompressedTensor) else None
    return entry.record_onto(result, (t,), layout=t.layout, blocksize=blocks)


def to_layout(layout: _layout.layout, blocked: bool) -> Any:
    """Tensor.to_sparse_csr() and its kin (to_sparse_bsr(blocksize) for the blocked layouts)."""
    if blocked:
        def method(self: Tensor, blocksize: Any, dense_dim: int | None = None) -> Tensor:
            return convert(self, layout, blocksize)
    else:
        def method(self: Tensor, dense_dim: int | None = None) -> Tensor:  # type: ignore[misc]
            return convert(self, layout, None)
    method.__name__ = method.__qualname__ = f"to_{layout.name}"
    return method


def _back_to(grad: Tensor, layout: _layout.layout, blocksize: Any) -> Tensor:
    """A conversion's gradient: grad in the layout (and blocksize) of the conversion's input, as PyTorch's is."""
    if grad.layout is layout and (layout not in _BLOCKED or grad._blocksize() == blocksize):
        return grad
    if layout is _layout.strided:
        return grad.to_dense()
    return convert(grad, layout, blocksize)


_CONVERSIONS = {
    name: Derivative(node, ("self",), {"self": _back_to}, complex=True)
    for name, node in (("sparse_coo", "ToSparseBackward1"), ("sparse_csr", "ToSparseCsrBackward0"),
                       ("sparse_csc", "ToSparseCscBackward0"), ("sparse_bsr", "ToSparseBsrBackward0"),
                       ("sparse_bsc", "ToSparseBscBackward0"))
}


def _values_of(grad: Tensor, structure: CompressedTensor) -> Tensor:
    """The entries of grad (dense, or compressed like structure) at structure's elements, shaped as its values."""
    if isinstance(grad, CompressedTensor):
        grad = grad.to_dense()
    rows, cols = (Tensor._wrap(index) for index in structure._data.parts[0])
    return grad[rows, cols].reshape(structure._sparse_values.shape)


def _with_values(values: Tensor, structure: CompressedTensor) -> CompressedTensor:
    """structure's indices with these values, differentiably (SparseCompressedTensorBackward0)."""
    return SparseCompressedTensorBackward0.record_onto(_like(structure, values._data), (values,), structure=structure)


# Linear in the gradient and reading no input values: each holds for complex tensors as written.
ToDenseBackward0 = Derivative(
    "ToDenseBackward0", ("self",), {"self": lambda grad, structure: _with_values(_values_of(grad, structure), structure)},
    complex=True,
)
ValuesBackward0 = Derivative(
    "ValuesBackward0", ("self",), {"self": lambda grad, structure: _with_values(grad, structure)}, complex=True
)
SparseCompressedTensorBackward0 = Derivative(
    "SparseCompressedTensorBackward0", ("values",), {"values": _values_of}, complex=True
)
