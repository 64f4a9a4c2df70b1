"""glassgrad.linalg's factorizations with pivots or info codes, and their solves: lu_factor(_ex), lu, lu_unpack,
lu_solve; inv_ex and solve_ex (an LU and its solve, as PyTorch builds them); cholesky_ex, cholesky_solve and
cholesky_inverse; ldl_factor(_ex) and ldl_solve (LAPACK's Bunch-Kaufman sytrf and sytrs, not differentiable in
PyTorch either).

The factorization is LAPACK's getrf (through SciPy, one matrix at a time), so pivots are PyTorch's: 1-based int32,
row i swapped with row pivots[i]. Solves substitute through the triangles as LAPACK's getrs does, so a singular
matrix gives the infinities and NaNs PyTorch's _ex functions return beside their info codes. The derivatives are
PyTorch's (FunctionsManual.cpp's linalg_lu_backward, lu_factor_ex_backward, linalg_lu_solve_LU, lu_unpack_backward)
in glassgrad ops, so they differentiate again.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._quiet import quietly
from ..tensor import Tensor
from .creation import zeros
from .elementwise import _not_implemented
from .linalg_decomp import (
    LinalgCholeskyExBackward0,
    LinAlgError,
    LinalgInvExBackward0,
    LinalgSolveExBackward0,
    _broadcast_batch,
    _check_matrix,
    _is_vector_rhs,
)
from .matrix_functions import _substitute, solve_triangular
from .rearrange import tril, triu
from .shape import cat, narrow
from .table import MultiOutput, derivative

NAMESPACE = "glassgrad.linalg"


def _result(name: str, fields: str) -> Any:
    return collections.namedtuple(name, fields.split(), module="glassgrad.return_types")


LuFactorResult = _result("linalg_lu_factor", "LU pivots")
LuFactorExResult = _result("linalg_lu_factor_ex", "LU pivots info")
LuResult = _result("linalg_lu", "P L U")
LuUnpackResult = _result("lu_unpack", "P L U")
InvExResult = _result("linalg_inv_ex", "inverse info")
SolveExResult = _result("linalg_solve_ex", "result info")
CholeskyExResult = _result("linalg_cholesky_ex", "L info")


# -- the factorization and its pieces, in NumPy -----------------------------------------------------------
def _per_matrix(routine: str, a: np.ndarray, *others: np.ndarray, **options: Any) -> list[tuple[Any, ...]]:
    """A LAPACK routine (through SciPy) on each matrix of a batch; empty matrices are skipped (None)."""
    from scipy.linalg import lapack

    fn = lapack.get_lapack_funcs(routine, dtype=a.dtype)
    count = math.prod(a.shape[:-2])
    flat = a.reshape(count, *a.shape[-2:])
    rest = [o.reshape(count, *o.shape[len(a.shape) - 2 :]) for o in others]
    # LAPACK is not asked about empty matrices (SciPy's wrappers can crash on them): their results stay as made
    return [fn(m, *(r[i] for r in rest), **options) if m.size and all(r[i].size for r in rest) else None
            for i, m in enumerate(flat)]


def _getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK's LU with partial pivoting of every matrix in the batch: packed LU, 1-based int32 pivots, info."""
    m, n = a.shape[-2:]
    count = math.prod(a.shape[:-2])
    lu, pivots, info = np.zeros((count, m, n), a.dtype), np.zeros((count, min(m, n)), np.int32), np.zeros(count, np.int32)
    for i, r in enumerate(_per_matrix("getrf", a)):
        if r is not None:
            lu[i], pivots[i], info[i] = r[0], r[1] + 1, r[2]
    return lu.reshape(a.shape), pivots.reshape((*a.shape[:-2], min(m, n))), info.reshape(a.shape[:-2])


def _permutation(pivots: np.ndarray, m: int) -> np.ndarray:
    """perm with A[perm] = L U: the row swaps of `pivots` applied in order to 0 .. m-1."""
    perm = np.broadcast_to(np.arange(m), (*pivots.shape[:-1], m)).copy()
    if not perm.size:
        return perm
    rows = np.arange(perm[..., 0].size)
    flat, swaps = perm.reshape(-1, m), pivots.reshape(-1, pivots.shape[-1]).astype(np.int64) - 1
    for i in range(swaps.shape[-1]):
        j = swaps[:, i]
        flat[rows, i], flat[rows, j] = flat[rows, j], flat[rows, i].copy()
    return perm


def _permutation_matrix(pivots: np.ndarray, m: int, dtype: np.dtype) -> np.ndarray:
    """P with A = P L U: P[perm[i], i] = 1."""
    perm = _permutation(pivots, m)
    p = np.zeros((*perm.shape, m), dtype=dtype)
    np.put_along_axis(p, perm[..., None], 1, axis=-1)
    return np.swapaxes(p, -1, -2)


def _lu_solve_array(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray, adjoint: bool) -> np.ndarray:
    """X with A X = B (A^T X = B if adjoint) for A = P L U packed in `lu`, by substitution as getrs."""
    n = lu.shape[-1]
    batch = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    lu = np.broadcast_to(lu, (*batch, n, n))
    perm = np.broadcast_to(_permutation(pivots, n), (*batch, n))[..., None]
    b = np.broadcast_to(b, (*batch, *b.shape[-2:]))
    if not adjoint:  # U^-1 L^-1 P^T B
        return quietly(_substitute, lu, _substitute(lu, np.take_along_axis(b, perm, -2), False, True), True, False)
    z = quietly(_substitute, np.swapaxes(lu, -1, -2), b, False, False)  # U^T y = B, then L^T z = y, X = P z
    z = _substitute(np.swapaxes(lu, -1, -2), z, True, True)
    x = np.empty_like(z)
    np.put_along_axis(x, np.broadcast_to(perm, z.shape), z, axis=-2)
    return x


def _inverse(lu: np.ndarray, pivots: np.ndarray) -> np.ndarray:
    eye = np.broadcast_to(np.eye(lu.shape[-1], dtype=lu.dtype), lu.shape)
    return _lu_solve_array(lu, pivots, eye, False)


# -- lu_unpack -------------------------------------------------------------------------------------------
def _lu_unpack_backward(grads: tuple[Tensor | None, ...], m: int, n: int) -> Tensor | None:
    """PyTorch's lu_unpack_backward: L's gradient below the diagonal, U's on and above it, in LU's place."""
    _, gL, gU = grads
    if gL is None and gU is None:
        return None
    k = min(m, n)
    low = None if gL is None else tril(gL, -1)
    high = None if gU is None else triu(gU)
    if m == n:
        return high if low is None else low if high is None else low + high
    dtype = (gL if gL is not None else gU).dtype  # type: ignore[union-attr]
    batch = (gL if gL is not None else gU).shape[:-2]  # type: ignore[union-attr]
    if m < n:  # wide: U is LU's shape, L its first k columns
        out = high if high is not None else zeros((*batch, m, n), dtype=dtype)
        return out if low is None else out + cat([low, zeros((*batch, m, n - k), dtype=dtype)], -1)
    out = low if low is not None else zeros((*batch, m, n), dtype=dtype)  # tall: L is LU's shape, U its first k rows
    return out if high is None else out + cat([high, zeros((*batch, m - k, n), dtype=dtype)], -2)


LuUnpackBackward0 = MultiOutput(
    "LuUnpackBackward0", ("LU_data",), ("P", "L", "U"), LU_data=lambda grads, m, n: _lu_unpack_backward(grads, m, n)
)


def _unpacked(lu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m, n = lu.shape[-2:]
    k = min(m, n)
    low = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    return low, np.triu(lu[..., :k, :])


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True) -> Any:
    """P, L, U of a packed LU (empty where not asked for); L and U differentiate back to LU_data."""
    if LU_pivots.dtype.name != "int32":
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype. Note: this function "
            "is intended to be used with the output produced by torch.linalg.lu_factor"
        )
    _check_matrix(LU_data, "torch.lu_unpack", square=False)
    lu = LU_data._data
    m, n = lu.shape[-2:]
    empty = np.zeros(0, dtype=lu.dtype)
    p = _permutation_matrix(LU_pivots._data, m, lu.dtype) if unpack_pivots else empty
    low, high = _unpacked(lu) if unpack_data else (empty, empty)
    p_t, low_t, high_t = LuUnpackBackward0.record_all((p, low, high), (LU_data,), m=m, n=n)
    return LuUnpackResult(p_t.detach(), low_t, high_t)


# -- lu, lu_factor ---------------------------------------------------------------------------------------
def _lu_backward(gL: Tensor | None, gU: Tensor | None, P: Tensor, L: Tensor, U: Tensor) -> Tensor | None:
    """PyTorch's linalg_lu_backward for A = P L U (L m x k, U k x n), by cases square, wide and tall."""
    if gL is None and gU is None:
        return None
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        inner = _sum(None if gL is None else tril(L.mT @ gL, -1), None if gU is None else triu(gU @ U.mT))
        inner = solve_triangular(U.mT, inner, upper=False, left=False)
        return P @ solve_triangular(L.mT, inner, upper=True, unitriangular=True)
    if m < n:
        U1 = narrow(U, -1, 0, k)
        inner = _sum(None if gL is None else L.mT @ gL, None if gU is None else -(triu(gU) @ U.mT))
        inner = solve_triangular(U1.mT, tril(inner, -1), upper=False, left=False)
        if gU is not None:
            inner = cat([inner + triu(narrow(gU, -1, 0, k)), narrow(gU, -1, k, n - k)], -1)
        grad = solve_triangular(L.mT, inner, upper=True, unitriangular=True)
        if gU is None:
            grad = cat([grad, zeros((*grad.shape[:-1], n - k), dtype=grad.dtype)], -1)
        return P @ grad
    L1 = narrow(L, -2, 0, k)
    inner = _sum(None if gU is None else gU @ U.mT, None if gL is None else -(L.mT @ tril(gL, -1)))
    inner = solve_triangular(L1.mT, triu(inner), upper=True, unitriangular=True)
    if gL is not None:
        inner = cat([inner + tril(narrow(gL, -2, 0, k), -1), narrow(gL, -2, k, m - k)], -2)
    grad = solve_triangular(U.mT, inner, upper=False, left=False)
    if gL is None:
        grad = cat([grad, zeros((*grad.shape[:-2], m - k, grad.shape[-1]), dtype=grad.dtype)], -2)
    return P @ grad


def _sum(a: Tensor | None, b: Tensor | None) -> Tensor:
    return b if a is None else a if b is None else a + b  # type: ignore[return-value]


LinalgLuBackward0 = MultiOutput(
    "LinalgLuBackward0", ("A",), ("L", "U"), A=lambda grads, L, U, P: _lu_backward(grads[0], grads[1], P, L, U)
)


def _lu_factor_backward(grads: tuple[Tensor | None, ...], LU: Tensor, pivots: Tensor) -> Tensor | None:
    grad = grads[0]
    if grad is None:
        return None
    P, L, U = lu_unpack(LU, pivots)
    k = min(LU.shape[-2:])
    return _lu_backward(tril(narrow(grad, -1, 0, k), -1), triu(narrow(grad, -2, 0, k)), P, L, U)


LinalgLuFactorExBackward0 = MultiOutput(
    "LinalgLuFactorExBackward0", ("A",), ("LU", "pivots", "info"), A=_lu_factor_backward
)


def _check_pivot(op: str, pivot: bool) -> None:
    if not pivot:
        raise RuntimeError(f"{op}: LU without pivoting is not implemented on the CPU")


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> Any:
    _check_matrix(A, "torch.linalg.lu_factor_ex", square=False)
    _check_pivot("linalg.lu_factor", pivot)
    lu, pivots, info = _getrf(A._data)
    if check_errors and info.any():
        raise LinAlgError(f"torch.linalg.lu_factor_ex: U[{info.max()},{info.max()}] is zero and using it on lu_solve would result in a division by zero.")
    return LuFactorExResult(*LinalgLuFactorExBackward0.record_all((lu, pivots, info), (A,)))


def lu_factor(A: Tensor, *, pivot: bool = True) -> Any:
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    if info._data.any():
        i = int(info._data.max())
        raise RuntimeError(
            f"torch.linalg.lu_factor: U[{i},{i}] is zero and using it on lu_solve would result in a division by zero. "
            "If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
            "linalg.lu_factor_ex(A, pivot)"
        )
    return LuFactorResult(LU, pivots)


def lu(A: Tensor, *, pivot: bool = True) -> Any:
    """P, L, U with A = P L U, L unit lower triangular (m x k) and U upper triangular (k x n)."""
    _check_matrix(A, "linalg.lu", square=False)
    _check_pivot("linalg.lu", pivot)
    lu_data, pivots, _ = _getrf(A._data)
    low, high = _unpacked(lu_data)
    P = Tensor._wrap(_permutation_matrix(pivots, A.shape[-2], lu_data.dtype))
    L, U = LinalgLuBackward0.record_all((low, high), (A,), P=P)
    return LuResult(P, L, U)


# -- lu_solve ----------------------------------------------------------------------------------------------
def _lu_solve_LU_grad(grad: Tensor, LU: Tensor, pivots: Tensor, result: Tensor, left: bool, adjoint: bool) -> Tensor:
    """PyTorch's linalg_lu_solve_LU: the gradient for the packed factors, via the right-hand-side-on-the-left form."""
    if not left:  # X A = B is A^T X^T = B^T: the same solve, transposed and with the adjoint flipped
        grad, result, adjoint = grad.mT, result.mT, not adjoint
    P, L, U = lu_unpack(LU, pivots)
    if not adjoint:
        gR = solve_triangular(U.mT, -(grad @ result.mT), upper=False)
        gL = tril(solve_triangular(L.mT, gR @ U.mT, upper=True, unitriangular=True), -1)
        return gL + triu(gR)
    gR = -(P.mT @ result @ grad.mT @ P)
    gR = solve_triangular(L.mT, gR, upper=True, left=False, unitriangular=True)
    gU = triu(solve_triangular(U.mT, L.mT @ gR, upper=False, left=False))
    return tril(gR, -1) + gU


LinalgLuSolveBackward0 = derivative(
    "LinalgLuSolveBackward0", ("LU", "pivots", "B"),
    LU=_lu_solve_LU_grad,
    B=lambda grad, LU, pivots, left, adjoint: lu_solve(LU, pivots, grad, left=left, adjoint=not adjoint),
)


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """X with A X = B (X A = B if not left; A^T in place of A if adjoint), A given by lu_factor's LU and pivots."""
    op = "linalg.lu_solve"
    _check_matrix(LU, op)
    _check_matrix(B, op, square=False, name="B")
    if LU.dtype is not B.dtype:
        raise RuntimeError(
            f"{op}: Expected LU and B to have the same dtype, but found LU of type {LU.dtype.scalar_name} and B of type "
            f"{B.dtype.scalar_name} instead"
        )
    n = LU.shape[-1]
    if B.shape[-2 if left else -1] != n:
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
            f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    if pivots.dtype.name != "int32" or tuple(pivots.shape) != (*LU.shape[:-2], n):
        raise RuntimeError(f"{op}: Expected pivots to be an int32 tensor of shape {[*LU.shape[:-2], n]}")
    _broadcast_batch(op, LU.shape[:-2], B.shape[:-2])
    b = B._data if left else np.swapaxes(B._data, -1, -2)
    x = _lu_solve_array(LU._data, pivots._data, b, adjoint if left else not adjoint)
    x = x if left else np.swapaxes(x, -1, -2)
    return LinalgLuSolveBackward0.record(x, (LU, pivots, B), left=left, adjoint=adjoint)


# -- inv_ex, solve_ex, cholesky_ex -----------------------------------------------------------------------
def _raise_singular(op: str, info: np.ndarray) -> None:
    if info.any():
        i = int(info.max())
        raise LinAlgError(
            f"{op}: The diagonal element {i} is zero, the inversion could not be completed because the input matrix "
            "is singular."
        )


def inv_ex(A: Tensor, *, check_errors: bool = False) -> Any:
    """The inverse and, per matrix, LAPACK's info (0, or the 1-based index of a zero pivot, where the inverse is inf)."""
    _check_matrix(A, "linalg.inv_ex")
    lu_data, pivots, info = _getrf(A._data)
    if check_errors:
        _raise_singular("linalg.inv_ex", info)
    inverse = LinalgInvExBackward0.record(_inverse(lu_data, pivots), (A,))
    return InvExResult(inverse, Tensor._wrap(info))


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False) -> Any:
    """solve's result and, per matrix, LAPACK's info; a singular A gives the infinities of substituting through its LU."""
    from .linalg_decomp import solve

    _check_matrix(A, "linalg.solve_ex")
    lu_data, pivots, info = _getrf(A._data)
    if check_errors:
        _raise_singular("linalg.solve_ex", info)
    try:
        return SolveExResult(solve(A, B, left=left), Tensor._wrap(info))
    except LinAlgError:  # singular, and the caller reads info instead
        pass
    a, b = (A, B) if left else (A.mT, B.mT)  # X A = B is A^T X^T = B^T
    vector = left and _is_vector_rhs(A, B)
    x = _lu_solve_array(lu_data, pivots, b._data[..., None] if vector else b._data, not left)
    result = LinalgSolveExBackward0.record(x[..., 0] if vector else x, (a, b), vector=vector)
    return SolveExResult(result if left else result.mT, Tensor._wrap(info))


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> Any:
    """L (upper: L^T) with A = L L^T, and LAPACK's info: 0, or the order of the first leading minor that is not
    positive-definite, where the factor holds what potrf left."""
    _check_matrix(A, "linalg.cholesky_ex")
    a = A._data
    count = math.prod(a.shape[:-2])
    out, info = np.zeros((count, *a.shape[-2:]), a.dtype), np.zeros(count, np.int32)
    for i, r in enumerate(_per_matrix("potrf", a, lower=1, clean=1)):
        if r is not None:
            out[i], info[i] = r
    info = info.reshape(a.shape[:-2])
    if check_errors and info.any():
        raise LinAlgError(
            f"linalg.cholesky_ex: The factorization could not be completed because the input is not positive-definite "
            f"(the leading minor of order {int(info.max())} is not positive-definite)."
        )
    factor = out.reshape(a.shape)
    L = LinalgCholeskyExBackward0.record(np.swapaxes(factor, -1, -2) if upper else factor, (A,), upper=upper)
    return CholeskyExResult(L, Tensor._wrap(info))


# -- cholesky_solve, cholesky_inverse --------------------------------------------------------------------------
def _cholesky_solve_backward(grad: Tensor, self: Tensor, input2: Tensor, result: Tensor, upper: bool) -> tuple[Tensor, Tensor]:
    """PyTorch's cholesky_solve_backward: (gradient for B, gradient for the factor)."""
    grad_self = cholesky_solve(grad, input2, upper)
    common = grad_self @ result.mT
    common = common + common.mT
    return grad_self, -(input2 @ common) if upper else -(common @ input2)


CholeskySolveBackward0 = derivative(
    "CholeskySolveBackward0", ("self", "input2"),
    self=lambda grad, input2, result, upper: _cholesky_solve_backward(grad, grad, input2, result, upper)[0],
    input2=lambda grad, input2, result, upper: _cholesky_solve_backward(grad, grad, input2, result, upper)[1],
)


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    """X with A X = input for A = L L^T, L = input2's lower (upper: U^T U, its upper) triangle."""
    if input.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {input.ndim} dimensions instead")
    _check_matrix(input2, "cholesky_solve", name="A")
    if input.dtype is not input2.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {input.dtype.scalar_name} and A of type "
            f"{input2.dtype.scalar_name} instead."
        )
    n = input2.shape[-1]
    if input.shape[-2] != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for cholesky_solve: each A matrix is {n} by {n} but each b matrix is "
            f"{input.shape[-2]} by {input.shape[-1]}"
        )
    batch = _broadcast_batch("cholesky_solve", input.shape[:-2], input2.shape[:-2])
    low = np.broadcast_to(np.swapaxes(input2._data, -1, -2) if upper else input2._data, (*batch, n, n))
    b = np.broadcast_to(input._data, (*batch, *input.shape[-2:]))
    y = quietly(_substitute, low, b, False, False)
    x = quietly(_substitute, np.swapaxes(low, -1, -2), y, True, False)
    return CholeskySolveBackward0.record(x, (input, input2), upper=upper)


def _cholesky_inverse_backward(grad: Tensor, self: Tensor, result: Tensor, upper: bool) -> Tensor:
    common = result @ (grad + grad.mT) @ result
    return -(self @ common) if upper else -(common @ self)


CholeskyInverseBackward0 = derivative("CholeskyInverseBackward0", self=_cholesky_inverse_backward)


def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:
    """(L L^T)^-1 for L = input's lower (upper: (U^T U)^-1, its upper) triangle."""
    if input.ndim < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    _check_matrix(input, "cholesky_inverse")
    low = np.tril(np.swapaxes(input._data, -1, -2) if upper else input._data)
    diagonal = np.diagonal(low, axis1=-2, axis2=-1)
    if (diagonal == 0).any():
        i = int(np.argmax((diagonal == 0).reshape(-1, low.shape[-1]).any(0))) + 1
        raise LinAlgError(
            f"cholesky_inverse: The diagonal element {i} is zero, the inversion could not be completed because the "
            "input matrix is singular."
        )
    eye = np.broadcast_to(np.eye(low.shape[-1], dtype=low.dtype), low.shape)
    low_inverse = quietly(_substitute, low, eye, False, False)
    return CholeskyInverseBackward0.record(np.swapaxes(low_inverse, -1, -2) @ low_inverse, (input,), upper=upper)


# -- ldl_factor, ldl_solve -------------------------------------------------------------------------------------
LdlFactorExResult = _result("linalg_ldl_factor_ex", "LD pivots info")
LdlFactorResult = _result("linalg_ldl_factor", "LD pivots")
_LDL_ENTRIES = {
    inputs: derivative("NotImplemented", inputs, **dict.fromkeys(inputs[:1] + inputs[2:], _not_implemented(op)))
    for inputs, op in ((("self",), "linalg_ldl_factor_ex"), (("LD", "pivots", "B"), "linalg_ldl_solve"))
}


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False) -> Any:
    """The Bunch-Kaufman factorization of the symmetric A (its lower triangle read; for a real matrix, symmetric and
    Hermitian are one, so `hermitian` changes nothing): LD packs L and the 1x1 and 2x2 blocks of D; pivots are
    LAPACK's (negative for a 2x2 block); info > 0 where D is singular."""
    _check_matrix(A, "torch.linalg.ldl_factor_ex")
    a = A._data
    n = a.shape[-1]
    count = math.prod(a.shape[:-2])
    ld, pivots, info = np.zeros((count, n, n), a.dtype), np.zeros((count, n), np.int32), np.zeros(count, np.int32)
    for i, r in enumerate(_per_matrix("sytrf", a, lower=1)):
        if r is not None:
            ld[i], pivots[i], info[i] = np.tril(r[0]), r[1], r[2]
    info = info.reshape(a.shape[:-2])
    if check_errors and info.any():
        raise LinAlgError(f"torch.linalg.ldl_factor_ex: The factorization could not be completed because the input is singular (info = {int(info.max())}).")
    outs = (ld.reshape(a.shape), pivots.reshape(*a.shape[:-2], a.shape[-1]), info)
    LD = _LDL_ENTRIES[("self",)].record(outs[0], (A,))
    return LdlFactorExResult(LD, Tensor._wrap(outs[1]), Tensor._wrap(outs[2]))


def ldl_factor(A: Tensor, *, hermitian: bool = False) -> Any:
    LD, pivots, info = ldl_factor_ex(A, hermitian=hermitian)
    if info._data.any():
        raise RuntimeError(f"torch.linalg.ldl_factor: the factorization failed: D is singular (LAPACK's info = {int(info._data.max())})")
    return LdlFactorResult(LD, pivots)


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:
    """X with A X = B, A given by ldl_factor's LD and pivots."""
    _check_matrix(LD, "torch.linalg.ldl_solve")
    if B.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(B.ndim, 1)}, {max(B.ndim, 1) - 1}], but got -2)")
    if B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(
            f"torch.linalg.ldl_solve: Incompatible shapes of A and B for the equation AX = B ({LD.shape[-1]}x{LD.shape[-1]} "
            f"and {B.shape[-2]}x{B.shape[-1]})"
        )
    batch = _broadcast_batch("torch.linalg.ldl_solve", LD.shape[:-2], B.shape[:-2])
    n = LD.shape[-1]
    ld = np.broadcast_to(LD._data, (*batch, n, n))
    piv = np.broadcast_to(pivots._data, (*batch, n))
    b = np.broadcast_to(B._data, (*batch, *B.shape[-2:]))
    x = np.zeros(b.shape, dtype=ld.dtype)
    flat_x = x.reshape(math.prod(batch), *b.shape[-2:])
    for i, r in enumerate(_per_matrix("sytrs", ld, piv, b, lower=1)):
        if r is not None:
            flat_x[i] = r[0]
    return _LDL_ENTRIES[("LD", "pivots", "B")].record(x, (LD, pivots, B))


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "lu_factor": lu_factor, "lu_factor_ex": lu_factor_ex, "lu": lu, "lu_solve": lu_solve, "inv_ex": inv_ex,
    "solve_ex": solve_ex, "cholesky_ex": cholesky_ex, "ldl_factor": ldl_factor, "ldl_factor_ex": ldl_factor_ex,
    "ldl_solve": ldl_solve,
}
ALSO = {"glassgrad": {"lu_unpack": lu_unpack, "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse}}
METHODS: dict[str, Callable[..., Any]] = {"cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse}
INPLACE: tuple[str, ...] = ()
