"""glassgrad.linalg: norms, inverses, determinants, solvers and decompositions.

Forwards run numpy.linalg; every derivative is written in glassgrad ops (matmul via `@`), so double
backward works. Formulas follow PyTorch's FunctionsManual.cpp, so gradients agree with PyTorch's
also where the input is not what the op reads (eigh and cholesky read one triangle, yet their
gradients are symmetric). Decompositions with several outputs record one node with several
outputs, as PyTorch does; its formulas receive every output's gradient, None where unused.
Where PyTorch's gradient goes through a point our formulas cannot (repeated eigenvalues or
singular values), the formulas are those of the generic case; det at a singular matrix follows
PyTorch's own two answers (see `_det_back`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .._dtype import dtype as Dtype
from ..autograd import grad_mode
from ..tensor import Tensor
from .creation import eye, ones_like, zeros, zeros_like
from .elementwise import where
from .reduction import amax, amin, exclusive_products, vector_norm
from .reduction import sum as reduce_sum
from .shape import cat, narrow, permute, unsqueeze
from .table import MultiOutput, derivative, for_complex

NAMESPACE = "glassgrad.linalg"


class _LinAlgError(RuntimeError):
    """A numerical failure (singular matrix, not positive-definite); PyTorch's class has this very name."""


LinAlgError = _LinAlgError


# -- small differentiable helpers ---------------------------------------------------------------
def _eye(n: int, like: Tensor) -> Tensor:
    return eye(n, dtype=like.dtype)


def _diag_embed(v: Tensor) -> Tensor:
    return unsqueeze(v, -1) * _eye(v.shape[-1], v)


def _diagonal(a: Tensor) -> Tensor:
    return reduce_sum(a * _eye(a.shape[-1], a), -1)


def _tril(a: Tensor, k: int = 0) -> Tensor:
    return a * Tensor._wrap(np.tri(a.shape[-2], a.shape[-1], k, dtype=a._data.dtype))


def _scale_matrices(scalars: Tensor, a: Tensor) -> Tensor:
    return unsqueeze(unsqueeze(scalars, -1), -1) * a


def _as_matrix(x: Tensor, vector: bool) -> Tensor:
    return unsqueeze(x, -1) if vector else x


def _check_matrix(A: Tensor, op: str, square: bool = True, floating: bool = True, name: str = "A") -> None:
    if not isinstance(A, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {2 if name == 'B' else 1}) must be Tensor, not {type(A).__name__}")
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices")
    if floating and not A.dtype.is_floating_point:
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {A.dtype.scalar_name}")


def _lapack(op: str, failure: str, fn: Callable[..., Any], *arrays: np.ndarray, **kwargs: Any) -> Any:
    try:
        return fn(*arrays, **kwargs)
    except np.linalg.LinAlgError:
        raise LinAlgError(f"{op}: {failure}") from None


def _type_name(d: Dtype) -> str:
    return d.scalar_name


_SINGULAR = "The input matrix is singular, the operation could not be completed."


# -- inverse, determinants, solve -----------------------------------------------------------------
LinalgInvExBackward0 = derivative("LinalgInvExBackward0", ("A",), A=lambda grad, result: -(result.mT @ grad @ result.mT))


def _det_back(grad: Tensor, A: Tensor, result: Tensor) -> Tensor:
    """grad * det(A) * A^-T, and PyTorch's answers where A is singular (det exactly 0).

    Without a graph PyTorch solves through an LU whose zero pivots are nudged to eps; grad * det is 0 there,
    so the gradient is 0. With one it takes the cofactors through an SVD instead, the true gradient, which
    double backward then differentiates. A 1x1 matrix's det is its entry: the gradient is grad everywhere.
    """
    if A.shape[-1] == 1:
        return _scale_matrices(grad, ones_like(A))
    eye_n = _eye(A.shape[-1], A)
    scaled_eye = _scale_matrices(grad * result, eye_n)
    singular = result._data == 0
    if not singular.any():
        return solve(A.mT, scaled_eye)  # A^-T (grad * det), solved as PyTorch does (LinalgSolveExBackward0)
    if not grad_mode.state.grad_enabled:
        # An identity stands in for each singular matrix: it can be solved, and its right-hand side is grad * 0.
        return solve(where(Tensor._wrap(singular[..., None, None]), eye_n, A).mT, scaled_eye)
    if A.ndim == 2:
        return _cofactors(grad, A)
    picked, rest = Tensor._wrap(singular), Tensor._wrap(~singular)
    out = zeros_like(A)  # filled by two recorded index_puts (IndexPutBackward0), as PyTorch's masked formula
    out[picked] = _cofactors(grad[picked], A[picked])
    out[rest] = solve(A[rest].mT, scaled_eye[rest])
    return out


def _cofactors(grad: Tensor, A: Tensor) -> Tensor:
    """grad times d det(A)/dA through A = U diag(S) Vh, where det(A) = det(U) det(Vh) prod(S): no division."""
    U, S, Vh = svd(A)
    scale = unsqueeze(det(U) * det(Vh) * grad, -1)
    return (U * unsqueeze(scale * exclusive_products(S, S.ndim - 1), -2)) @ Vh


LinalgDetBackward0 = derivative("LinalgDetBackward0", ("A",), A=_det_back)
LinalgSlogdetBackward0 = MultiOutput(
    "LinalgSlogdetBackward0", ("A",), ("sign", "logabsdet"),
    A=lambda grads, A: None if grads[1] is None else _scale_matrices(grads[1], inv(A).mT),
)


def inv(A: Tensor) -> Tensor:
    _check_matrix(A, "linalg.inv")
    return LinalgInvExBackward0.record(_lapack("linalg.inv", _SINGULAR, np.linalg.inv, A._data), (A,))


def det(A: Tensor) -> Tensor:
    _check_matrix(A, "linalg.det")
    return LinalgDetBackward0.record(np.asarray(np.linalg.det(A._data)), (A,))


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


def slogdet(A: Tensor) -> SlogdetResult:
    _check_matrix(A, "linalg.slogdet")
    with np.errstate(divide="ignore"):
        sign, logabsdet = np.linalg.slogdet(A._data)
    return SlogdetResult(*LinalgSlogdetBackward0.record_all((sign, logabsdet), (A,)))


def logdet(input: Tensor) -> Tensor:
    sign, logabsdet = slogdet(input)
    return where(sign < 0, math.nan, logabsdet)


def _solve_back_B(grad: Tensor, A: Tensor, vector: bool) -> Tensor:
    return _solve(A.mH, grad, vector)


def _solve_back_A(grad: Tensor, A: Tensor, result: Tensor, vector: bool) -> Tensor:
    return -(_as_matrix(_solve(A.mH, grad, vector), vector) @ _as_matrix(result, vector).mH)


LinalgSolveExBackward0 = derivative(
    "LinalgSolveExBackward0", ("A", "B"), A=_solve_back_A, B=_solve_back_B
)
# PyTorch's formulas with conjugate transposes: they hold for complex matrices (linalg.eig's gradient solves with them)
for_complex(LinalgSolveExBackward0, **LinalgSolveExBackward0.formulas)


def _is_vector_rhs(A: Tensor, B: Tensor) -> bool:
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


def _solve(A: Tensor, B: Tensor, vector: bool) -> Tensor:
    b = B._data[..., None] if vector else B._data
    n = A.shape[-1]
    if b.ndim < 2 or b.shape[-2] != n:
        rows, cols = (b.shape[-2], b.shape[-1]) if b.ndim >= 2 else (b.shape[-1], 1)
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B ({n}x{n} and {rows}x{cols})")
    batch = _broadcast_batch("linalg.solve", A._data.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(A._data, (*batch, n, n))
    x = _lapack("linalg.solve", _SINGULAR, np.linalg.solve, a, np.broadcast_to(b, (*batch, *b.shape[-2:])))
    return LinalgSolveExBackward0.record(x[..., 0] if vector else x, (A, B), vector=vector)


def _broadcast_batch(op: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise RuntimeError(f"{op}: batch dimensions do not broadcast: {', '.join(str(list(s)) for s in shapes)}") from None


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    _check_matrix(A, "linalg.solve")
    if A.dtype is not B.dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type {A.dtype.name.capitalize()} "
            f"and B of type {B.dtype.name.capitalize()} instead"
        )
    if not left:  # X A = B  is  A^T X^T = B^T
        if _is_vector_rhs(A, B):
            raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not supported for left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)")
        return _solve(A.mT, B.mT, False).mT
    return _solve(A, B, _is_vector_rhs(A, B))


# -- cholesky, qr, eigh, svd ---------------------------------------------------------------------
def _cholesky_back(grad: Tensor, L: Tensor, upper: bool) -> Tensor:
    # Murray (2016): gA = L^-H phi(L^H gL) L^-1, phi = lower triangle with the diagonal halved, symmetrized.
    if upper:
        L, grad = L.mT, grad.mT
    phi = _tril(L.mT @ grad)
    phi = phi - 0.5 * _diag_embed(_diagonal(phi))
    L_inv = inv(L)
    gA = L_inv.mT @ phi @ L_inv
    return 0.5 * (gA + gA.mT)


LinalgCholeskyExBackward0 = derivative(
    "LinalgCholeskyExBackward0", ("A",), A=lambda grad, result, upper: _cholesky_back(grad, result, upper)
)


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    _check_matrix(A, "linalg.cholesky")
    L = _lapack(
        "linalg.cholesky", "The factorization could not be completed because the input is not positive-definite.",
        np.linalg.cholesky, A._data,
    )
    return LinalgCholeskyExBackward0.record(np.swapaxes(L, -1, -2) if upper else L, (A,), upper=upper)


def _copyltu(M: Tensor) -> Tensor:
    return _tril(M) + _tril(M, -1).mT


def _qr_square_back(gQ: Tensor, gR: Tensor, Q: Tensor, R: Tensor) -> Tensor:
    # A = QR with R square: gA = (gQ + Q copyltu(R gR^T - gQ^T Q)) R^-T.
    return (gQ + Q @ _copyltu(R @ gR.mT - gQ.mT @ Q)) @ inv(R).mT


def _qr_back(grads: tuple[Tensor | None, ...], Q: Tensor, R: Tensor, mode: str) -> Tensor:
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
            "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
        )
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    gQ = grads[0] if grads[0] is not None else zeros(Q.shape, dtype=Q.dtype)
    gR = grads[1] if grads[1] is not None else zeros(R.shape, dtype=R.dtype)
    if m >= n:
        return _qr_square_back(gQ, gR, Q, R)
    # A = [X | Y] with X = QU square and Y = QV: Y's part only moves Q through gQ.
    U, V = narrow(R, -1, 0, m), narrow(R, -1, m, n - m)
    gU, gV = narrow(gR, -1, 0, m), narrow(gR, -1, m, n - m)
    return cat([_qr_square_back(gQ + Q @ V @ gV.mT, gU, Q, U), Q @ gV], -1)


LinalgQrBackward0 = MultiOutput(
    "LinalgQrBackward0", ("A",), ("Q", "R"), A=lambda grads, Q, R, mode: _qr_back(grads, Q, R, mode)
)


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


def qr(A: Tensor, mode: str = "reduced") -> QRResult:
    _check_matrix(A, "linalg.qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'")
    if mode == "r":
        q, r = np.zeros(0, dtype=A._data.dtype), np.linalg.qr(A._data, mode="r")
    else:
        q, r = np.linalg.qr(A._data, mode=mode)
    return QRResult(*LinalgQrBackward0.record_all((q, r), (A,), mode=mode))


def _eigh_back(grads: tuple[Tensor | None, ...], L: Tensor, V: Tensor) -> Tensor:
    gL, gV = grads
    inner = zeros(V.shape, dtype=V.dtype)
    if gV is not None:
        VhgV = V.mT @ gV
        gaps = unsqueeze(L, -2) - unsqueeze(L, -1) + _eye(L.shape[-1], L)  # 1 on the diagonal, where skew() is 0
        inner = 0.5 * (VhgV - VhgV.mT) / gaps
    if gL is not None:
        inner = inner + _diag_embed(gL)
    return V @ inner @ V.mT


LinalgEighBackward0 = MultiOutput(
    "LinalgEighBackward0", ("A",), ("eigenvalues", "eigenvectors"),
    A=lambda grads, eigenvalues, eigenvectors: _eigh_back(grads, eigenvalues, eigenvectors),
)


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


def eigh(A: Tensor, UPLO: str = "L") -> EighResult:
    """Gradients assume distinct eigenvalues, as PyTorch's do."""
    _check_matrix(A, "linalg.eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    values, vectors = _lapack("linalg.eigh", "The algorithm failed to converge.", np.linalg.eigh, A._data, UPLO=UPLO)
    return EighResult(*LinalgEighBackward0.record_all((values, vectors), (A,)))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    return eigh(A, UPLO).eigenvalues


def _svd_back(grads: tuple[Tensor | None, ...], U: Tensor, S: Tensor, Vh: Tensor, full_matrices: bool) -> Tensor:
    gU, gS, gVh = grads
    k = S.shape[-1]
    if full_matrices:  # the columns beyond k do not depend on A: only the first k count
        U, Vh = narrow(U, -1, 0, k), narrow(Vh, -2, 0, k)
        gU = None if gU is None else narrow(gU, -1, 0, k)
        gVh = None if gVh is None else narrow(gVh, -2, 0, k)
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        return (U * unsqueeze(gS, -2)) @ Vh  # svdvals: no division by the gaps, so ties are fine
    S2 = S * S
    gaps = unsqueeze(S2, -2) - unsqueeze(S2, -1) + _eye(k, S)
    Srow, Scol = unsqueeze(S, -2), unsqueeze(S, -1)
    gA = zeros((*S.shape, k), dtype=S.dtype)
    if gU is not None:
        UhgU = U.mT @ gU
        gA = gA + (UhgU - UhgU.mT) * Srow / gaps
    if gVh is not None:
        VhgV = Vh @ gVh.mT
        gA = gA + Scol * (VhgV - VhgV.mT) / gaps
    if gS is not None:
        gA = gA + _diag_embed(gS)
    if m > n and gU is not None:  # the part of gU outside U's span
        gUSinv = gU / Srow
        return (U @ gA + gUSinv - U @ (U.mT @ gUSinv)) @ Vh
    if m < n and gVh is not None:
        SinvgVh = gVh / Scol
        return U @ (gA @ Vh + SinvgVh - (SinvgVh @ Vh.mT) @ Vh)
    return U @ gA @ Vh


LinalgSvdBackward0 = MultiOutput(
    "LinalgSvdBackward0", ("A",), ("U", "S", "Vh"),
    A=lambda grads, U, S, Vh, full_matrices: _svd_back(grads, U, S, Vh, full_matrices),
)


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


def svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None) -> SVDResult:
    """Gradients of U and Vh assume distinct singular values, as PyTorch's do."""
    _check_matrix(A, "linalg.svd", square=False)
    u, s, vh = _svd_arrays(A._data, full_matrices)
    return SVDResult(*LinalgSvdBackward0.record_all((u, s, vh), (A,), full_matrices=full_matrices))


def _svd_arrays(a: np.ndarray, full_matrices: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m, n = a.shape[-2:]
    if a.size == 0:  # LAPACK refuses empty matrices; the factors are identities of the right sizes
        k = min(m, n)
        u_cols, vh_rows = (m, n) if full_matrices else (k, k)
        batch = a.shape[:-2]
        return (np.broadcast_to(np.eye(m, u_cols, dtype=a.dtype), (*batch, m, u_cols)).copy(), np.zeros((*batch, k), a.dtype),
                np.broadcast_to(np.eye(vh_rows, n, dtype=a.dtype), (*batch, vh_rows, n)).copy())
    return _lapack("linalg.svd", "The algorithm failed to converge.", np.linalg.svd, a, full_matrices=full_matrices)


def svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:
    _check_matrix(A, "linalg.svdvals", square=False)
    return svd(A, full_matrices=False).S


# -- pseudo-inverse and least squares -------------------------------------------------------------
def _pinv_back(grad: Tensor, pinvA: Tensor, A: Tensor) -> Tensor:
    # PyTorch's pinv_backward, arranged so that the products have the smaller of the two sizes.
    pinvAh, gradh = pinvA.mT, grad.mT
    if A.shape[-2] <= A.shape[-1]:
        K = gradh @ pinvA
        KpinvAh = K @ pinvAh
        return -(pinvA @ K).mT + KpinvAh - (A @ pinvA) @ KpinvAh + (pinvAh @ pinvA) @ (gradh - K @ A)
    K = pinvA @ gradh
    pinvAhK = pinvAh @ K
    return -(K @ pinvA).mT + (gradh - A @ K) @ pinvA @ pinvAh + pinvAhK - pinvAhK @ pinvA @ A


LinalgPinvBackward0 = derivative("LinalgPinvBackward0", ("A",), A=lambda grad, A, result: _pinv_back(grad, result, A))


def _tolerance(s: np.ndarray, shape: tuple[int, ...], atol: Any, rtol: Any) -> np.ndarray:
    """PyTorch's cutoff max(atol, rtol * largest) per matrix, kept as a last dim. rtol defaults to eps * max(m, n),
    or to 0 where atol > 0; either may be an array, one tolerance per matrix of the batch."""
    if rtol is None:
        default = np.finfo(s.dtype).eps * max(shape[-2:])
        rtol = default if atol is None else np.where(np.asarray(atol) > 0, 0.0, default)
    largest = s.max(axis=-1, initial=0.0)
    return np.maximum(0.0 if atol is None else atol, rtol * largest)[..., None]


def _pinv_array(a: np.ndarray, atol: float | None, rtol: float | None) -> tuple[np.ndarray, np.ndarray]:
    """The pseudo-inverse and the rank, from an SVD with PyTorch's cutoff max(atol, rtol * largest)."""
    u, s, vh = _svd_arrays(a, full_matrices=False)
    kept = s > _tolerance(s, a.shape, atol, rtol)
    with np.errstate(divide="ignore"):
        s_inv = np.where(kept, 1 / np.where(kept, s, 1), 0).astype(a.dtype)
    return np.swapaxes(vh, -1, -2) @ (s_inv[..., :, None] * np.swapaxes(u, -1, -2)), kept.sum(-1)


def pinv(A: Tensor, *, atol: float | None = None, rtol: float | None = None, hermitian: bool = False) -> Tensor:
    """With hermitian=True, PyTorch reads one triangle only; glassgrad uses the whole (symmetric) matrix."""
    _check_matrix(A, "linalg.pinv", square=False)
    return LinalgPinvBackward0.record(_pinv_array(A._data, atol, rtol)[0], (A,))


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    return pinv(input, rtol=rcond)


def _lstsq_back_A(grads: tuple[Tensor | None, ...], A: Tensor, B: Tensor, vector: bool) -> Tensor | None:
    gX = grads[0]
    return None if gX is None else _pinv_back(_as_matrix(gX, vector) @ _as_matrix(B, vector).mT, pinv(A), A)


def _lstsq_back_B(grads: tuple[Tensor | None, ...], A: Tensor, vector: bool) -> Tensor | None:
    gX = grads[0]
    if gX is None:
        return None
    gB = pinv(A).mT @ _as_matrix(gX, vector)
    return gB[..., 0] if vector else gB


LinalgLstsqBackward0 = MultiOutput(
    "LinalgLstsqBackward0", ("A", "B"), ("solution", "residuals", "rank", "singular_values"),
    A=_lstsq_back_A, B=_lstsq_back_B,
)


class LstsqResult(NamedTuple):
    solution: Tensor
    residuals: Tensor
    rank: Tensor
    singular_values: Tensor


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> LstsqResult:
    """The minimum-norm solution through the pseudo-inverse; residuals and singular values as each driver gives them."""
    _check_matrix(A, "linalg.lstsq", square=False)
    if driver not in (None, "gelsy", "gelsd", "gelss", "gels"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss), got {driver}")
    if B.ndim > A.ndim or A.ndim - B.ndim > 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1")
    vector = _is_vector_rhs(A, B)
    b = B._data[..., None] if vector else B._data
    m, n = A.shape[-2:]
    if b.shape[-2] != m:
        raise RuntimeError(
            f"torch.linalg.lstsq: input.size(-2) should match other.size(-2), but got {m} and {b.shape[-2]}"
        )
    pinv_a, rank = _pinv_array(A._data, None, rcond)
    x = pinv_a @ b
    dtype = A._data.dtype
    singular = np.linalg.svd(A._data, compute_uv=False) if driver in ("gelsd", "gelss") else np.zeros(0, dtype)
    rank_out = rank.astype(np.int64) if driver != "gels" else np.zeros(0, np.int64)
    outs = (x[..., 0] if vector else x, np.zeros(0, dtype), rank_out, singular)
    solution, residuals, rank_t, values = LinalgLstsqBackward0.record_all(outs, (A, B), vector=vector)
    if driver not in (None, "gelsy") and m > n and np.all(rank == n):  # ||AX - B||^2 per column, differentiable
        residuals = reduce_sum((A @ _as_matrix(solution, vector) - _as_matrix(B, vector)) ** 2, -2)
    return LstsqResult(solution, residuals, rank_t, values.detach())


# -- cross product --------------------------------------------------------------------------------
LinalgCrossBackward0 = derivative(
    "LinalgCrossBackward0", ("self", "other"),
    self=lambda grad, other, dim: cross(other, grad, dim=dim),
    other=lambda grad, self, dim: cross(grad, self, dim=dim),
)


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    if input.dtype is not other.dtype:
        raise RuntimeError(f"linalg.cross: expected both inputs to have the same dtype, got {input.dtype.name} and {other.dtype.name}")
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    shape = _broadcast_batch("linalg.cross", input.shape, other.shape)
    d = input._wrap_dim(dim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and {other.shape[d]}"
        )
    out = np.cross(np.broadcast_to(input._data, shape), np.broadcast_to(other._data, shape), axis=d)
    return LinalgCrossBackward0.record(out, (input, other), dim=d)


# -- powers ---------------------------------------------------------------------------------------
def matrix_power(A: Tensor, n: int) -> Tensor:
    _check_matrix(A, "linalg.matrix_power")
    if n == 0:  # like PyTorch, the identity is still connected to A (with a zero gradient)
        return A * 0 + _eye(A.shape[-1], A)
    if n < 0:
        A, n = inv(A), -n
    result: Tensor | None = None
    power = A
    while True:  # binary exponentiation, as PyTorch does
        if n & 1:
            result = power.clone() if result is None else result @ power
        n >>= 1
        if not n:
            return result  # type: ignore[return-value]
        power = power @ power


# -- norms ----------------------------------------------------------------------------------------
_MATRIX_ORDS = ("fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2)


def matrix_norm(A: Tensor, ord: str | float = "fro", dim: tuple[int, int] = (-2, -1), keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    _check_matrix(A, "linalg.matrix_norm", square=False)
    if ord not in _MATRIX_ORDS:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if dtype is not None:
        A = A.to(dtype)
    rows, cols = (A._wrap_dim(d) for d in dim)
    if rows == cols:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        return vector_norm(A, 2, (rows, cols), keepdim)
    if ord in ("nuc", 2, -2):
        rest = [d for d in range(A.ndim) if d not in (rows, cols)]
        values = svdvals(permute(A, (*rest, rows, cols)))
        out = reduce_sum(values, -1) if ord == "nuc" else (amax if ord == 2 else amin)(values, -1)
        if keepdim:
            for d in sorted((rows, cols)):
                out = unsqueeze(out, d)
        return out
    # 1 and inf: the largest (smallest) absolute column (row) sum.
    summed, pick = (rows, cols) if abs(ord) == 1 else (cols, rows)
    sums = vector_norm(A, 1, summed, keepdim=True)
    out = (amax if ord > 0 else amin)(sums, pick, keepdim=True)
    return out if keepdim else out.squeeze((rows, cols))


def norm(A: Tensor, ord: str | float | None = None, dim: int | Sequence[int] | None = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", tuple(dim), keepdim, dtype=dtype)  # type: ignore[arg-type]
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.ndim not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.ndim}D.")
        dim = tuple(range(A.ndim))
    if len(dim) == 2:
        return matrix_norm(A, ord, tuple(dim), keepdim, dtype=dtype)  # type: ignore[arg-type]
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: Order {ord} not supported.")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "inv": inv, "det": det, "slogdet": slogdet, "solve": solve, "cholesky": cholesky, "qr": qr, "eigh": eigh,
    "eigvalsh": eigvalsh, "svd": svd, "svdvals": svdvals, "pinv": pinv, "lstsq": lstsq, "matrix_power": matrix_power,
    "vector_norm": vector_norm, "matrix_norm": matrix_norm, "norm": norm, "cross": cross,
}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
