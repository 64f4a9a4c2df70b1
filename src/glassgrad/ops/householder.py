"""Householder reflectors, LAPACK's compact form of Q: geqrf (A's QR as reflectors and their scales),
linalg.householder_product (orgqr: Q from them) and ormqr (Q, or Q^T, times a matrix).

geqrf is LAPACK's own (through SciPy), with no derivative, as in PyTorch. householder_product and ormqr apply the
reflectors I - tau v v^T one at a time in glassgrad ops, so their gradients (to the reflectors, the scales and the
other matrix) and higher derivatives come from the composition; PyTorch records one node for each instead
(LinalgHouseholderProductBackward0, OrmqrBackward0), with the same gradients.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .creation import ones, zeros
from .elementwise import not_implemented_for
from .linalg_lu import _per_matrix
from .shape import cat, narrow, select, unsqueeze
from .table import MultiOutput, refuse_forward_ad

geqrf_result = collections.namedtuple("geqrf", ("a", "tau"), module="glassgrad.return_types")


# -- geqrf -----------------------------------------------------------------------------------------------
def _no_geqrf_derivative(grads: tuple[Tensor | None, ...]) -> Tensor:
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


GeqrfBackward0 = MultiOutput("GeqrfBackward0", ("self",), ("a", "tau"), self=_no_geqrf_derivative)


def geqrf(input: Tensor) -> Any:
    """A's QR as LAPACK stores it: R on and above the diagonal, the reflectors' vectors below it, and their scales."""
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if not input.dtype.is_floating_point:
        raise not_implemented_for("geqrf_cpu", input.dtype)
    a = input._data
    m, n = a.shape[-2:]
    count = math.prod(a.shape[:-2])
    packed, tau = np.zeros((count, m, n), a.dtype), np.zeros((count, min(m, n)), a.dtype)
    for i, r in enumerate(_per_matrix("geqrf", a)):
        if r is not None:
            packed[i], tau[i] = r[0], r[1]
    return geqrf_result(*GeqrfBackward0.record_all((packed.reshape(a.shape), tau.reshape((*a.shape[:-2], min(m, n)))), (input,)))


# -- the reflectors, applied ---------------------------------------------------------------------------
def _reflector(A: Tensor, i: int) -> Tensor:
    """v_i: zeros above position i, 1 at it, and A's column i below the diagonal."""
    m = A.shape[-2]
    column = select(A, -1, i)
    pieces = [zeros((*A.shape[:-2], i), dtype=A.dtype), ones((*A.shape[:-2], 1), dtype=A.dtype), narrow(column, -1, i + 1, m - i - 1)]
    return cat(pieces, -1)


def _reflect(C: Tensor, A: Tensor, tau: Tensor, i: int, left: bool) -> Tensor:
    """H_i C (left) or C H_i, with H_i = I - tau_i v_i v_i^T."""
    v = _reflector(A, i)
    scale = unsqueeze(unsqueeze(select(tau, -1, i), -1), -1)
    if left:
        return C - scale * (unsqueeze(v, -1) @ (unsqueeze(v, -2) @ C))
    return C - scale * ((C @ unsqueeze(v, -1)) @ unsqueeze(v, -2))


def _apply(A: Tensor, tau: Tensor, C: Tensor, left: bool, transpose: bool) -> Tensor:
    """Q C, Q^T C, C Q or C Q^T for Q = H_1 ... H_k: the reflectors applied to C in the order the product asks."""
    order = range(tau.shape[-1])
    if left != transpose:  # Q C = H_1 (H_2 (... H_k C)), and C Q^T likewise from the last
        order = reversed(order)
    for i in order:
        C = _reflect(C, A, tau, i, left)
    return C


def _check_reflectors(op: str, A: Tensor, tau: Tensor) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if tau.ndim != A.ndim - 1:
        raise RuntimeError(
            f"{op}: Expected tau to have one dimension less than input, but got tau.ndim equal to {tau.ndim} and "
            f"input.ndim is equal to {A.ndim}"
        )
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got {list(tau.shape[:-1])}")
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"{op}: tau dtype {tau.dtype.scalar_name} does not match input dtype {A.dtype.scalar_name}")


def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T with v_i in A's column i below the diagonal."""
    op = "torch.linalg.householder_product"
    if A.ndim >= 2 and A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if A.ndim >= 2 and tau.ndim >= 1 and A.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    _check_reflectors(op, A, tau)
    m, n = A.shape[-2:]
    identity = zeros((*A.shape[:-2], m, n), dtype=A.dtype) + Tensor._wrap(np.eye(m, n, dtype=A._data.dtype))
    return _apply(A, tau, identity, left=True, transpose=False)


def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool = True, transpose: bool = False) -> Tensor:
    """Q other (Q^T other if transpose; other Q or other Q^T if not left), Q = H_1 ... H_k given by geqrf."""
    refuse_forward_ad("ormqr", input, tau, other)
    op = "torch.ormqr"
    _check_reflectors(op, input, tau)
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"{op}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.shape[-1] != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(f"{op}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    if other.dtype is not input.dtype:
        raise RuntimeError(f"{op}: other dtype {other.dtype.scalar_name} does not match input dtype {input.dtype.scalar_name}")
    return _apply(input, tau, other, left, transpose)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {"geqrf": geqrf, "orgqr": householder_product, "ormqr": ormqr}
METHODS: dict[str, Callable[..., Any]] = dict(FUNCTIONS)
ALSO = {"glassgrad.linalg": {"householder_product": householder_product}}
INPLACE: tuple[str, ...] = ()
