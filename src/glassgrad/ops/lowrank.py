"""Partial decompositions: svd_lowrank and pca_lowrank (Halko, Martinsson and Tropp 2009, algorithms 4.4 and 5.1),
as torch/_lowrank.py writes them, in glassgrad ops; and lobpcg, a few extreme eigenpairs of a symmetric matrix.

The random test matrix comes from glassgrad's generator, so factors differ from PyTorch's run for run; what the
algorithm guarantees is the same: when q reaches A's rank the singular values are A's and U diag(S) V^T is A.

lobpcg answers with what PyTorch's LOBPCG iteration converges to (to its tolerance, sqrt of the dtype's eps): the
k largest (or smallest) eigenpairs, taken from a dense eigendecomposition of the NumPy matrix, which is exact where
the iteration is approximate. Its random start, X, iK and the method's parameters steer only the iteration, so they
are checked and otherwise unused; eigenvectors are defined up to sign, and PyTorch's signs follow its random start.
Gradients flow through the symmetrised A and eigh, which is PyTorch's derivative of the converged pairs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..autograd import grad_mode
from ..tensor import Tensor
from .creation import eye, randn
from .linalg import matmul
from .linalg_decomp import cholesky, eigh, qr, svd
from .matrix_functions import solve_triangular
from .reduction import mean
from .shape import broadcast_to
from .table import MultiOutput


def _approximate_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """An orthonormal basis of (approximately) the range of A - M, from q random directions and niter power steps."""
    R = randn(A.shape[-1], q, dtype=A.dtype if A.dtype.is_floating_point else None)

    def times(x: Tensor, adjoint: bool = False) -> Tensor:
        a, c = (A.mT, None if M is None else M.mT) if adjoint else (A, M)
        return matmul(a, x) if c is None else matmul(a, x) - matmul(c, x)

    Q = qr(times(R)).Q
    for _ in range(niter):
        Q = qr(times(Q, adjoint=True)).Q
        Q = qr(times(Q)).Q
    return Q


def _svd_lowrank(A: Tensor, q: int, niter: int, M: Tensor | None) -> tuple[Tensor, Tensor, Tensor]:
    m, n = A.shape[-2:]
    if M is not None:
        M = broadcast_to(M, A.shape)
    if m < n:  # the algorithm wants A tall: work on A^T and swap U and V back
        A, M = A.mT, None if M is None else M.mT
    Q = _approximate_basis(A, q, niter, M)
    B = matmul(Q.mT, A) if M is None else matmul(Q.mT, A) - matmul(Q.mT, M)
    U, S, Vh = svd(B, full_matrices=False)
    U, V = matmul(Q, U), Vh.mT
    return (V, S, U) if m < n else (U, S, V)


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """U, S, V with A - M ~ U diag(S) V^T of rank q."""
    return _svd_lowrank(A, 6 if q is None else q, 2 if niter is None else niter, M)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2) -> tuple[Tensor, Tensor, Tensor]:
    """svd_lowrank of A with its column means taken away (unless not center); q defaults to min(6, m, n)."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    return _svd_lowrank(A - mean(A, -2, keepdim=True) if center else A, q, niter, None)


# -- lobpcg ------------------------------------------------------------------------------------------------------
def _refuse_generalized(grads: tuple[Tensor | None, ...]) -> Tensor:
    raise ValueError("lobpcg.backward does not support backward with B != I yet.")


LOBPCGGeneralizedBackward = MultiOutput(
    "LOBPCGAutogradFunctionBackward", ("A", "B"), ("E", "X"), A=_refuse_generalized, B=_refuse_generalized,
)


def _eigenpairs(A: Tensor, B: Tensor | None) -> tuple[Tensor, Tensor]:
    """All eigenpairs of A x = lambda B x, ascending, B-orthonormal (through B's Cholesky factor when B is given)."""
    if B is None:
        return tuple(eigh(A))  # type: ignore[return-value]
    factor = cholesky(B)
    inverse = solve_triangular(factor, eye(A.shape[-1], dtype=A.dtype), upper=False)
    values, vectors = eigh(inverse @ A @ inverse.mT)
    return values, inverse.mT @ vectors


def lobpcg(A: Tensor, k: int | None = None, B: Tensor | None = None, X: Tensor | None = None, n: int | None = None,
           iK: Tensor | None = None, niter: int | None = None, tol: float | None = None, largest: bool | None = None,
           method: str | None = None, tracker: Any = None, ortho_iparams: dict[str, int] | None = None,
           ortho_fparams: dict[str, float] | None = None, ortho_bparams: dict[str, bool] | None = None,
           ) -> tuple[Tensor, Tensor]:
    """The k largest (largest=False: smallest) eigenvalues of symmetric A (with B: of A x = lambda B x), in that
    order, and their eigenvectors as columns; A may carry batch dims."""
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than 3 x the number of "
            f"requested eigenpairs (={n})"
        )
    if X is not None and tuple(X.shape[-2:]) != (m, n):
        raise AssertionError(f"X shape mismatch: got {X.shape}, expected {(m, n)}")
    # PyTorch symmetrises A (and B) so that their gradients are symmetric too.
    A = (A + A.mT) / 2
    B = None if B is None else (B + B.mT) / 2
    top = largest is None or largest

    def extreme(t: Tensor) -> Tensor:  # the last k columns in descending order, or the first k
        return t[..., m - k:].flip(-1) if top else t[..., :k]

    if B is None or not grad_mode.is_grad_enabled() or not (A.requires_grad or B.requires_grad):
        values, vectors = _eigenpairs(A, B)
        return extreme(values), extreme(vectors)
    with grad_mode.no_grad():
        values, vectors = _eigenpairs(A, B)
    E, X = LOBPCGGeneralizedBackward.record_all((extreme(values)._data, extreme(vectors)._data), (A, B))
    return E, X


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {"svd_lowrank": svd_lowrank, "pca_lowrank": pca_lowrank, "lobpcg": lobpcg}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
