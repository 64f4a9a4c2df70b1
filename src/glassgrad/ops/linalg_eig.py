"""glassgrad.linalg.eig and eigvals: the eigendecomposition of a general square matrix, complex even for real input.

NumPy's eig runs LAPACK's geev as PyTorch's does: the same eigenvalues in the same order, eigenvectors of unit norm,
each determined up to a phase e^{i phi} (which may differ between the libraries). The gradient is PyTorch's
linalg_eig_backward in glassgrad ops, with its refusal of a loss that depends on that phase; a real input takes the
real part of its (complex) gradient.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .. import _dtype
from ..autograd import grad_mode
from ..autograd.forward_ad import tangent_of
from ..tensor import Tensor
from .elementwise import not_implemented_for
from .linalg_decomp import _check_matrix, _diag_embed, _diagonal, _eye, _lapack, _solve
from .shape import unsqueeze
from .table import MultiOutput

NAMESPACE = "glassgrad.linalg"


def _eig_back(grads: tuple[Tensor | None, ...], L: Tensor, V: Tensor) -> Tensor:
    gL, gV = grads
    if gV is None:  # eigenvalues only: V^-H diag(gL) V^H
        return _solve(V.mH, unsqueeze(gL, -1) * V.mH, False)
    VhgV = V.mH @ gV
    diag_VhgV = _diagonal(VhgV)
    phase_dependence = diag_VhgV.imag.abs()
    if bool((phase_dependence > 1e-2).any().item()):  # allclose(imag, 0, rtol=1e-2, atol=1e-2), as PyTorch checks
        raise RuntimeError(
            "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by e^{i phi}. "
            "The specified loss function depends on this quantity, so it is ill-defined."
        )
    identity = _eye(L.shape[-1], L)
    conj_L = L.conj()
    gaps = unsqueeze(conj_L, -2) - unsqueeze(conj_L, -1) + identity  # 1 on the diagonal, as PyTorch fills it
    inner = (VhgV - V.mH @ (V * unsqueeze(diag_VhgV.real, -2))) / gaps
    if gL is not None:
        inner = inner * (1 - identity) + _diag_embed(gL)
    return _solve(V.mH, inner @ V.mH, False)


LinalgEigBackward0 = MultiOutput(
    "LinalgEigBackward0", ("self",), ("eigenvalues", "eigenvectors"), complex=True,
    self=lambda grads, eigenvalues, eigenvectors: _eig_back(grads, eigenvalues, eigenvectors),
)


class EigResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


def _complex_dtype(op: str, A: Tensor) -> np.dtype:
    _check_matrix(A, op, floating=False)
    d = A.dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {d.scalar_name}")
    if d is _dtype.float16:
        raise not_implemented_for("linalg_eig_out_cpu", d)
    return np.result_type(A._data.dtype, np.complex64)


def eig(A: Tensor) -> EigResult:
    """Eigenvalues and unit eigenvectors of a square matrix (or a batch): A V = V diag(L)."""
    target = _complex_dtype("linalg.eig", A)
    if not np.isfinite(A._data).all():
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    values, vectors = _lapack("linalg.eig", "The algorithm failed to converge.", np.linalg.eig, A._data)
    return EigResult(*LinalgEigBackward0.record_all((values.astype(target), vectors.astype(target)), (A,)))


def eigvals(A: Tensor) -> Tensor:
    """eig's eigenvalues, through eig (and its node) when A requires grad, as PyTorch; otherwise LAPACK's values alone,
    nan for a matrix with an inf or nan in it rather than eig's error."""
    target = _complex_dtype("linalg.eigvals", A)
    if (grad_mode.state.grad_enabled and A.requires_grad) or tangent_of(A) is not None:
        return eig(A).eigenvalues
    finite = np.isfinite(A._data).all(axis=(-2, -1))
    safe = np.where(finite[..., None, None], A._data, 0)
    values = _lapack("linalg.eigvals", "The algorithm failed to converge.", np.linalg.eigvals, safe)
    return Tensor._wrap(np.where(finite[..., None], values, np.nan + 1j * np.nan).astype(target))


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {"eig": eig, "eigvals": eigvals}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
