"""glassgrad.linalg ops that PyTorch composes from the decompositions: matrix_rank, cond, tensorinv, tensorsolve,
and torch.svd (the old interface: `some`, `compute_uv`, and V rather than Vh).

Each is PyTorch's composition (BatchLinearAlgebra.cpp, LinearAlgebra.cpp) in glassgrad ops, so values, graphs and
gradients are those of the decompositions under them.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from .creation import zeros
from .elementwise import masked_fill, nan_to_num, reciprocal
from .linalg_decomp import LinAlgError, _check_matrix, _tolerance, eigvalsh, matrix_norm, solve, svd, svdvals
from .linalg_lu import inv_ex
from .reduction import sum as reduce_sum
from .shape import movedim, narrow, reshape, squeeze, unsqueeze

NAMESPACE = "glassgrad.linalg"

svd_result = collections.namedtuple("svd", ("U", "S", "V"), module="glassgrad.return_types")


# -- matrix_rank -------------------------------------------------------------------------------------------
def matrix_rank(A: Tensor, tol: float | None = None, hermitian: bool = False, *, atol: Any = None, rtol: Any = None) -> Tensor:
    """The number of singular values (|eigenvalues| if hermitian) above max(atol, rtol * the largest); with neither
    given, rtol is eps * max(m, n); `tol`, the old name, is atol with rtol 0. Tolerances may be tensors, one per
    matrix of the batch."""
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if A.dtype not in (_dtype.float32, _dtype.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    atol, rtol = (t._data if isinstance(t, Tensor) else t for t in (atol, rtol))
    values = np.abs(eigvalsh(A)._data) if hermitian else svdvals(A)._data
    return Tensor._wrap(np.asarray((values > _tolerance(values, A.shape, atol, rtol)).sum(-1), dtype=np.int64))


# -- cond ----------------------------------------------------------------------------------------------------
_COND_ORDS = (2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc")


def cond(A: Tensor, p: float | str | None = None) -> Tensor:
    """The condition number in norm p: the ratio of extreme singular values for 2 and -2 (the default), else
    norm(A) * norm(inverse of A), infinite for singular matrices; 0 for empty ones."""
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    ord_ = 2 if p is None else p
    if ord_ not in _COND_ORDS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {ord_}")
    if isinstance(ord_, str) or abs(ord_) != 2:  # PyTorch names the order as C++'s to_string writes it
        name = f"{ord_:f}" if isinstance(ord_, float) else str(ord_)
        _check_matrix(A, f"linalg.cond(ord={name})", floating=False)
    if A.numel() == 0:
        return zeros(A.shape[:-2], dtype=A.dtype)
    if not isinstance(ord_, str) and abs(ord_) == 2:
        values = svdvals(A)
        largest, smallest = narrow(values, -1, 0, 1), narrow(values, -1, values.shape[-1] - 1, 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return squeeze(smallest / largest if ord_ == -2 else largest / smallest, -1)
    if ord_ == "nuc":  # the sums of the singular values and of their reciprocals: infinite where one is 0
        values = svdvals(A)
        with np.errstate(divide="ignore", invalid="ignore"):
            return reduce_sum(values, -1) * reduce_sum(reciprocal(values), -1)
    inverse, info = inv_ex(A)
    inverse = masked_fill(inverse, unsqueeze(unsqueeze(info > 0, -1), -1), math.inf)
    with np.errstate(invalid="ignore"):
        return nan_to_num(matrix_norm(A, ord_) * matrix_norm(inverse, ord_), math.inf, math.inf, -math.inf)


# -- tensorinv, tensorsolve ----------------------------------------------------------------------------------
def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The inverse of A seen as a matrix of prod(shape[:ind]) rows, shaped shape[ind:] + shape[:ind]."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = A.shape[:ind], A.shape[ind:]
    n = math.prod(cols)
    if math.prod(rows) != n:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got "
            f"{n} != {math.prod(rows)}"
        )
    inverse, info = inv_ex(reshape(A, (n, n)))
    if info._data.any():
        i = int(info._data.max())
        raise LinAlgError(
            f"inv: The diagonal element {i} is zero, the inversion could not be completed because the input matrix is singular."
        )
    return reshape(inverse, (*cols, *rows))


def tensorsolve(A: Tensor, B: Tensor, dims: Sequence[int] | None = None) -> Tensor:
    """X with tensordot(A, X, X.ndim) = B: A (its `dims` moved last) seen as a square matrix."""
    if dims is not None:
        A = movedim(A, tuple(dims), tuple(range(A.ndim - len(dims), A.ndim)))
    result_shape = A.shape[B.ndim :]
    n, m = math.prod(result_shape), B.numel()
    if n != m:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
            f"but got {n} != {m}"
        )
    return reshape(solve(reshape(A, (n, n)), reshape(B, -1)), result_shape)


# -- torch.svd -----------------------------------------------------------------------------------------------
def torch_svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> Any:
    """U, S, V with input = U diag(S) V^T (linalg.svd's factors, V = Vh^T); without compute_uv, U and V are zeros
    of the full sizes and only S is differentiable."""
    if input.ndim < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has {input.ndim} dimensions instead")
    if compute_uv:
        U, S, Vh = svd(input, full_matrices=not some)
        return svd_result(U, S, Vh.mT)
    S = svdvals(input)
    m, n = input.shape[-2:]
    batch = tuple(input.shape[:-2])
    return svd_result(zeros((*batch, m, m), dtype=input.dtype), S, zeros((*batch, n, n), dtype=input.dtype).mT)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "matrix_rank": matrix_rank, "cond": cond, "tensorinv": tensorinv, "tensorsolve": tensorsolve,
}
ALSO = {"glassgrad": {"svd": torch_svd}}
METHODS: dict[str, Callable[..., Any]] = {"svd": torch_svd}
INPLACE: tuple[str, ...] = ()
