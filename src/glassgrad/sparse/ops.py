"""What COO tensors compute: arithmetic, transposes, products with dense matrices, sums and softmaxes.

Ops that map values to values are written on the values (coo.map_values), so they differentiate through
the values' pair of nodes; the others have a derivative entry of their own, named as PyTorch names it. The
SparseTensor methods are installed at the end, as the dense ops install theirs on Tensor.
"""

from __future__ import annotations

import numbers
import operator
from typing import Any

import numpy as np

from .._dtype import result_type
from ..autograd.grad_mode import no_grad
from ..ops import embedding
from ..ops.table import Derivative
from ..tensor import Tensor
from .coo import (
    Mask,
    SparseTensor,
    from_values,
    make_sparse,
    map_values,
    merged,
    no_sparse_kernel,
    scaled,
    sparse_mask,
    to_sparse,
    tracked_values,
    values_at,
)


# -- arithmetic -------------------------------------------------------------------------------------------
def _is_scalar(x: Any) -> bool:
    return isinstance(x, numbers.Number) or (isinstance(x, Tensor) and not x.is_sparse and x.ndim == 0)


def _same_size(self: Tensor, other: Tensor, op: str) -> None:
    if tuple(self.shape) != tuple(other.shape):
        raise RuntimeError(
            f"{op}: expected sizes of 'self' and 'other' to match, but {list(self.shape)} != {list(other.shape)}"
        )


def add(self: SparseTensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """sparse + sparse is sparse (coalesced when both are); sparse + dense is refused, as in PyTorch."""
    if not isinstance(other, Tensor) or not other.is_sparse:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    _same_size(self, other, "add")
    indices = np.concatenate([self._sparse_indices, other._sparse_indices], axis=1)
    values = np.concatenate([self._sparse_values, other._sparse_values * alpha]).astype(
        np.result_type(self._sparse_values, other._sparse_values)
    )
    shape = self._data.shape
    result = make_sparse(*merged(indices, values, shape), shape, True)
    AddBackward0.record_onto(result, (self, other), alpha=alpha)
    return result


def sub(self: SparseTensor, other: Any, *, alpha: Any = 1) -> Tensor:
    return add(self, other, alpha=-alpha)


def dense_add(dense: Any, sparse: SparseTensor, alpha: Any = 1) -> Tensor:
    """dense + alpha * sparse, a dense tensor whose gradient for the sparse input is dense, as in PyTorch."""
    if not isinstance(dense, Tensor):
        raise no_sparse_kernel("add")
    _same_size(dense, sparse, "add")
    out = (dense._data + alpha * sparse.to_dense()._data).astype(result_type(dense, sparse).np, copy=False)
    return AddBackward0.record(out, (dense, sparse), alpha=alpha)


AddBackward0 = Derivative(
    "AddBackward0", ("self", "other"), {"self": lambda grad: grad, "other": lambda grad, alpha: grad * alpha},
    complex=True,
)


def mul(self: SparseTensor, other: Any) -> SparseTensor:
    """sparse * scalar and sparse * tensor (dense or sparse): sparse, at self's indices."""
    if _is_scalar(other):
        return scaled(self, _scalar_op(operator.mul, self, other), MulBackward0, other=other)
    if not isinstance(other, Tensor):
        raise no_sparse_kernel("mul")
    _same_size(self, other, "mul")
    self = self.coalesce()
    factors = values_at(other, self._sparse_indices)
    return map_values(self, lambda v: v * factors)


def div(self: SparseTensor, other: Any) -> SparseTensor:
    if not _is_scalar(other):
        shape = list(other.shape) if isinstance(other, Tensor) else []
        raise RuntimeError(
            f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape {shape} for divisor)"
        )
    return scaled(self, _scalar_op(operator.truediv, self, other), DivBackward0, other=other)


def _scalar_op(op: Any, self: SparseTensor, scalar: Any) -> np.ndarray:
    """The values times (or over) a Python or 0-d tensor scalar, promoted as the dense op promotes."""
    with no_grad():
        return op(self._values(), scalar)._data


MulBackward0 = Derivative("MulBackward0", ("self",), {"self": lambda grad, other: grad * other}, complex=True)
DivBackward0 = Derivative("DivBackward0", ("self",), {"self": lambda grad, other: grad / other}, complex=True)
NegBackward0 = Derivative("NegBackward0", ("self",), {"self": lambda grad: -grad}, complex=True)


def transpose(self: SparseTensor, dim0: int, dim1: int) -> SparseTensor:
    """Sparse dims swap their rows of indices; dense dims swap in the values."""
    sparse_dim = self.sparse_dim()
    d0, d1 = self._wrap_dim(dim0), self._wrap_dim(dim1)
    if (d0 < sparse_dim) != (d1 < sparse_dim):
        raise RuntimeError(
            f"transpose(): can't transpose sparse dim with dense dim, got dim0={dim0} and dim1={dim1}"
        )
    shape = list(self._data.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    if d0 >= sparse_dim:
        return from_values(*_dense_dims_swapped(self.coalesce(), d0 - sparse_dim + 1, d1 - sparse_dim + 1), shape, True)
    indices = self._sparse_indices.copy()
    indices[[d0, d1]] = indices[[d1, d0]]
    result = make_sparse(indices, self._sparse_values, shape, self._nnz() <= 1)
    TransposeBackward0.record_onto(result, (self,), dim0=d0, dim1=d1)
    return result


def _dense_dims_swapped(self: SparseTensor, dim0: int, dim1: int) -> tuple[np.ndarray, Tensor]:
    return self._sparse_indices, tracked_values(self).transpose(dim0, dim1)


def t(self: SparseTensor) -> SparseTensor:
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got {self.ndim} dimensions")
    return transpose(self, 0, 1) if self.ndim == 2 else self


TransposeBackward0 = Derivative(
    "TransposeBackward0", ("self",), {"self": lambda grad, dim0, dim1: grad.transpose(dim0, dim1)}, complex=True
)


def select(self: SparseTensor, index: Any) -> Tensor:
    """s[i]: the entries in row i of the first dim; sparse while sparse dims remain, else the dense row."""
    if not isinstance(index, int) or isinstance(index, bool):
        raise no_sparse_kernel("index")
    size = self.shape[0]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension 0 with size {size}")
    at = self._sparse_indices[0] == index % size
    values = self._sparse_values[at]
    if self.sparse_dim() == 1:  # no sparse dim left: the row is dense (zeros where it had no entry)
        return SelectBackward0.record(values.sum(0), (self,))
    result = make_sparse(self._sparse_indices[1:, at], values, self.shape[1:], self._coalesced or values.shape[0] <= 1)
    return SelectBackward0.record_onto(result, (self,))


def _no_select_backward(grad: Tensor) -> Tensor:
    raise no_sparse_kernel("select_backward")


# PyTorch records the node and refuses when a backward reaches it
SelectBackward0 = Derivative("SelectBackward0", ("self",), {"self": _no_select_backward}, complex=True)


# -- products with dense matrices ---------------------------------------------------------------------------
def _product(indices: np.ndarray, values: np.ndarray, rows: int, dense: np.ndarray) -> np.ndarray:
    """A 2-D COO matrix times a dense matrix: each entry adds its value times a row of `dense` to its row."""
    out = np.zeros((rows, dense.shape[1]), np.result_type(values, dense))
    np.add.at(out, indices[0], values[:, None] * dense[indices[1]])
    return out


def _check_mm(self: Tensor, mat2: Tensor) -> None:
    if self.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError("self must be a matrix" if self.ndim != 2 else "mat2 must be a matrix")
    if self.is_sparse and self.dense_dim():
        raise no_sparse_kernel("mm")
    if self.shape[1] != mat2.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({self.shape[0]}x{self.shape[1]} and "
            f"{mat2.shape[0]}x{mat2.shape[1]})"
        )
    if self.dtype is not mat2.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {self.dtype.name} != {mat2.dtype.name}")


def _transposed_times(grad: Tensor, entries: tuple[np.ndarray, np.ndarray, tuple[int, ...]]) -> Tensor:
    """mat1ᵀ @ grad for the sparse mat1 whose indices, values and shape are `entries` (recorded, for double
    backward)."""
    indices, values, shape = entries
    return _sparse_times_dense(make_sparse(indices[::-1].copy(), values, shape[::-1], False), grad, MmBackward0)


def _masked_product(grad: Tensor, mat2: Tensor, mask: Mask) -> Tensor:
    """(grad @ mat2ᵀ) at mat1's indices only: the gradient torch.sparse.mm gives its sparse input."""
    indices, shape, coalesced = mask
    rows, cols = (Tensor._wrap(row) for row in indices)
    return from_values(indices, (grad[rows] * mat2[cols]).sum(1), shape, coalesced)


# torch.sparse.mm: the sparse input's gradient is masked to its indices. Tensor.mm and @: it is dense.
SparseAddmmBackward0 = Derivative(
    "SparseAddmmBackward0", ("self", "mat2"),
    {"self": _masked_product, "mat2": _transposed_times},
)
MmBackward0 = Derivative(
    "MmBackward0", ("self", "mat2"),
    {"self": lambda grad, mat2: grad.mm(mat2.t()), "mat2": _transposed_times},
)


def _sparse_times_dense(self: SparseTensor, mat2: Tensor, entry: Derivative) -> Tensor:
    out = _product(self._sparse_indices, self._sparse_values, self.shape[0], mat2._data)
    entries = (self._sparse_indices, self._sparse_values, tuple(self.shape))
    return entry.record(out, (self, mat2), mask=self._grad_mask(), entries=entries)


def mm(mat1: Tensor, mat2: Tensor) -> Tensor:
    """torch.sparse.mm: sparse @ dense is dense, sparse @ sparse is sparse; sparse inputs get masked gradients."""
    if not mat1.is_sparse:
        raise no_sparse_kernel("_sparse_mm")
    _check_mm(mat1, mat2)
    if mat2.is_sparse:
        return to_sparse(_sparse_times_dense(mat1, mat2.to_dense(), SparseAddmmBackward0))
    return _sparse_times_dense(mat1, mat2, SparseAddmmBackward0)


def matmul(self: SparseTensor, other: Tensor) -> Tensor:
    """Tensor.mm, Tensor.matmul and @ with a sparse left operand: dense, with a dense gradient (MmBackward0)."""
    _check_mm(self, other)
    if other.is_sparse:
        return mm(self, other)
    return _sparse_times_dense(self, other, MmBackward0)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """torch.sparse.addmm: beta * input + alpha * (mat1 @ mat2), mat1 sparse."""
    return beta * input + alpha * mm(mat1, mat2)


def smm(input: Tensor, mat: Tensor) -> Tensor:
    """torch.smm: sparse @ dense, returned as a sparse tensor."""
    return to_sparse(mm(input, mat))


# -- reductions --------------------------------------------------------------------------------------------
def _dims(self: SparseTensor, dim: Any) -> list[int]:
    dims = [dim] if isinstance(dim, int) else list(dim)
    return sorted({self._wrap_dim(d) for d in dims})


def sparse_sum(input: SparseTensor, dim: Any = None, dtype: Any = None) -> Tensor:
    """torch.sparse.sum: every element (a 0-d dense tensor), or over `dim`: sparse while sparse dims remain."""
    input = input.coalesce()  # each element's gradient once, as PyTorch gives it
    values = tracked_values(input) if dtype is None else tracked_values(input).to(dtype)
    if dim is None:
        return values.sum()
    sparse_dim = input.sparse_dim()
    dims = _dims(input, dim)
    dense_dims = [d - sparse_dim + 1 for d in dims if d >= sparse_dim]
    if dense_dims:
        values = values.sum(dense_dims)
    kept = [d for d in range(sparse_dim) if d not in dims]
    if not kept:
        return values.sum(0)
    shape = [n for d, n in enumerate(input.shape) if d not in dims]
    return from_values(input._sparse_indices[kept], values, shape, False).coalesce()


SumBackward0 = Derivative("SumBackward0", ("self",), {"self": lambda grad, shape: grad.expand(shape)}, complex=True)


def tensor_sum(self: SparseTensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Tensor.sum of a sparse tensor: all of it is a dense 0-d tensor with a dense gradient, as in PyTorch."""
    if dim is None:
        total = self._sparse_values.sum(dtype=None if dtype is None else dtype.np)
        return SumBackward0.record(np.asarray(total), (self,), shape=tuple(self.shape))
    if keepdim:
        raise no_sparse_kernel("sum.dim_IntList")
    return sparse_sum(self, dim, dtype)


def _grouped_softmax(input: SparseTensor, dim: int, log: bool) -> SparseTensor:
    """Softmax along `dim` among the specified elements only (the unspecified ones count as -inf)."""
    input = input.coalesce()
    dim = input._wrap_dim(dim)
    sparse_dim = input.sparse_dim()
    values = tracked_values(input)
    if dim >= sparse_dim:  # along a dense dim: within each entry's values
        reduce = values.log_softmax if log else values.softmax
        return from_values(input._sparse_indices, reduce(dim - sparse_dim + 1), input.shape, True)
    others = np.delete(input._sparse_indices, dim, axis=0)
    _, group = np.unique(others, axis=1, return_inverse=True)
    group = group.reshape(-1)
    peaks = np.full((group.max() + 1 if group.size else 0, *values.shape[1:]), -np.inf, values._data.dtype)
    np.maximum.at(peaks, group, values._data)
    index = Tensor._wrap(group)
    shifted = values - Tensor._wrap(peaks[group])
    exps = shifted.exp()
    totals = exps.new_zeros(peaks.shape).index_add(0, index, exps)
    out = shifted - totals.log()[index] if log else exps / totals[index]
    return from_values(input._sparse_indices, out, input.shape, True)


def softmax(input: SparseTensor, dim: int, dtype: Any = None) -> SparseTensor:
    return _grouped_softmax(input if dtype is None else input.to(dtype), dim, log=False)


def log_softmax(input: SparseTensor, dim: int, dtype: Any = None) -> SparseTensor:
    return _grouped_softmax(input if dtype is None else input.to(dtype), dim, log=True)


# -- SparseTensor's methods --------------------------------------------------------------------------------
def _reflected_add(self: SparseTensor, other: Any) -> Tensor:
    return dense_add(other, self)


def _reflected_sub(self: SparseTensor, other: Any) -> Tensor:
    return dense_add(other, self, -1)


def _inplace(op: Any) -> Any:
    """An in-place form that rebinds self's elements to op's result (no history: for no_grad updates)."""

    def method(self: SparseTensor, *args: Any, **kwargs: Any) -> SparseTensor:
        if self._requires_grad:
            raise no_sparse_kernel(f"{op.__name__}_ with autograd")
        result = op(self, *args, **kwargs)
        self._sparse_indices, self._sparse_values, self._coalesced = (
            result._sparse_indices, result._sparse_values.astype(self._sparse_values.dtype), result._coalesced,
        )
        self._data.parts = (self._sparse_indices, self._sparse_values)
        self._version_counter.value += 1
        return self

    return method


# Elementwise ops that keep zeros zero, so PyTorch computes them on the values alone.
_ZERO_PRESERVING = (
    "abs", "neg", "sgn", "sign", "sin", "sinh", "tan", "tanh", "asin", "asinh", "atan", "atanh", "sqrt", "relu",
    "floor", "ceil", "round", "trunc", "frac", "expm1", "log1p", "square", "erf", "deg2rad", "rad2deg", "nan_to_num",
)



def _on_values(name: str) -> Any:
    def method(self: SparseTensor) -> SparseTensor:
        return map_values(self, lambda v: getattr(v, name)())

    method.__name__ = name
    return method


METHODS: dict[str, Any] = {
    "__add__": add, "add": add, "__sub__": sub, "sub": sub, "__radd__": _reflected_add,
    "__rsub__": _reflected_sub, "__mul__": mul, "__rmul__": mul, "mul": mul, "__truediv__": div, "div": div,
    "__neg__": lambda self: scaled(self, -self._sparse_values, NegBackward0),
    "__pow__": lambda self, exponent: map_values(self, lambda v: v**exponent),
    "pow": lambda self, exponent: map_values(self, lambda v: v**exponent),
    "transpose": transpose, "t": t, "__getitem__": select, "mm": matmul, "matmul": matmul, "__matmul__": matmul, "smm": smm,
    "sum": tensor_sum,
    "sparse_mask": lambda self, mask: sparse_mask(self.to_dense(), mask._mask()),
    **{name: _on_values(name) for name in _ZERO_PRESERVING},
}
for _name, _op in METHODS.items():
    setattr(SparseTensor, _name, _op)
for _name, _op in {"add_": add, "sub_": sub, "mul_": mul, "div_": div}.items():
    setattr(SparseTensor, _name, _inplace(_op))


# -- embedding's sparse gradient ---------------------------------------------------------------------------
def _embedding_sparse_backward(grad: Tensor, indices: Tensor, num_weights: int, padding_idx: int, by_freq: bool) -> Tensor:
    """One entry per looked-up row, in lookup order and uncoalesced, none for padding_idx (as PyTorch's)."""
    if by_freq:
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
    rows = indices._data.reshape(-1)
    kept = rows != padding_idx
    values = grad.reshape(-1, grad.shape[-1])[Tensor._wrap(kept)]
    return from_values(rows[kept].reshape(1, -1).astype(np.int64), values, (num_weights, grad.shape[-1]), kept.sum() <= 1)


EmbeddingBackward0 = Derivative(
    "EmbeddingBackward0", ("weight",), {"weight": _embedding_sparse_backward}
)


def embedding_rows(weight: Tensor, indices: Tensor, padding_idx: int, by_freq: bool) -> Tensor:
    """F.embedding(..., sparse=True): the rows of weight, whose gradient is a sparse tensor."""
    attrs = {"indices": indices, "num_weights": weight.shape[0], "padding_idx": padding_idx, "by_freq": by_freq}
    return EmbeddingBackward0.record(weight._data[indices._data], (weight,), **attrs)


embedding.sparse_rows = embedding_rows
