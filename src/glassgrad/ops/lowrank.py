"""Randomized low-rank decompositions: svd_lowrank and pca_lowrank (Halko, Martinsson and Tropp 2009, algorithms
4.4 and 5.1), as torch/_lowrank.py writes them, in glassgrad ops.

The random test matrix comes from glassgrad's generator, so factors differ from PyTorch's run for run; what the
algorithm guarantees is the same: when q reaches A's rank the singular values are A's and U diag(S) V^T is A.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tensor import Tensor
from .creation import randn
from .linalg import matmul
from .linalg_decomp import qr, svd
from .reduction import mean
from .shape import broadcast_to


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


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {"svd_lowrank": svd_lowrank, "pca_lowrank": pca_lowrank}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
