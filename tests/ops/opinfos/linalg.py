"""OpInfos of linear algebra (glassgrad/ops/linalg.py, linalg_decomp.py and matrix_functions.py).

Inputs are made well-conditioned inside `fn` (the composite is differentiable, so this loses nothing):
diagonally dominant for inverses and solves, SPD for cholesky, spread-out diagonals for eigh and svd so
eigenvalues and singular values stay distinct and away from zero. Eigen- and singular vectors are
unique only up to sign, so their OpInfos return sign-invariant quantities (squares, reconstructions).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..opinfo import Domain, OpInfo, Shapes, broadcasting, fixed, inplace_variant, unary

SMALL = Domain(-0.5, 0.5)
AWAY_FROM_ZERO = Domain(0.3, 2.0)


def _gufunc(signature: str, max_dims: int = 2, min_side: int = 0, max_side: int = 3) -> st.SearchStrategy[Shapes]:
    """Shapes for inputs with core dimensions `signature` and broadcasting batch dimensions (empty ones included)."""
    return hnp.mutually_broadcastable_shapes(signature=signature, max_dims=max_dims, min_side=min_side, max_side=max_side).map(
        lambda r: r.input_shapes
    )


SQUARE = _gufunc("(n,n)->(n,n)")
MATRIX = _gufunc("(m,n)->(m,n)")
NONEMPTY_MATRIX = _gufunc("(m,n)->(m,n)", min_side=1)


def dominant(m: Any, a: Any) -> Any:
    """Strictly diagonally dominant, so nonsingular: |off-diagonal row sum| <= 2(n-1) < 2n - 1 <= the diagonal.

    (With 2n on the diagonal, a = [[-2.0]] gave the singular [[0.0]]: the boundary draws reach it.)
    """
    n = a.shape[-1]
    return a + (2 * n + 1) * m.eye(n, dtype=a.dtype)


def spd(m: Any, a: Any) -> Any:
    return a @ a.mT + m.eye(a.shape[-1], dtype=a.dtype)


def spread(m: Any, a: Any) -> Any:
    """a (entries in [-0.5, 0.5]) plus a diagonal 5, 10, 15, ...: well separated, nonzero singular values/eigenvalues."""
    rows, cols = a.shape[-2], a.shape[-1]
    return a + m.eye(rows, cols, dtype=a.dtype) * (5 * m.arange(1, cols + 1, dtype=a.dtype))


def symmetric_spread(m: Any, a: Any) -> Any:
    return spread(m, (a + a.mT) / 2)


def separately(outputs: Any) -> tuple[Any, ...]:
    """Each output through its own node: the engine drops gradients when two roots share one node (see report)."""
    return tuple(o.clone() if o.requires_grad else o for o in outputs)


def squared(vectors: Any) -> Any:
    return vectors * vectors


def svd_invariants(m: Any, a: Any, full_matrices: bool) -> tuple[Any, ...]:
    U, S, Vh = m.linalg.svd(spread(m, a), full_matrices=full_matrices)
    k = S.shape[-1]  # with full_matrices, the columns beyond k are any orthonormal completion
    return squared(U[..., :k]), S, squared(Vh[..., :k, :])


_matmul = OpInfo(
    "glassgrad.matmul", lambda m, a, b: m.matmul(a, b), shapes=_gufunc("(m?,n),(n,p?)->(m?,p?)", max_side=4),
    also=("Tensor.matmul",),
    errors=(
        lambda m: m.matmul(m.ones(2, 3), m.ones(2, 3)),
        lambda m: m.matmul(m.ones(2), m.ones(3)),
        lambda m: m.matmul(m.ones(()), m.ones(3)),
        lambda m: m.matmul(m.ones(2, 2, 3), m.ones(3, 3, 2)),
    ),
)
_addmm = OpInfo(
    "glassgrad.addmm", lambda m, x, a, b: m.addmm(x, a, b, beta=0.5, alpha=2),
    shapes=st.tuples(st.sampled_from([(3, 2), (2,), (1, 2), ()]), st.just((3, 4)), st.just((4, 2))),
    also=("Tensor.addmm",), errors=(lambda m: m.addmm(m.ones(3, 3), m.ones(3, 4), m.ones(4, 2)),),
)
_baddbmm = OpInfo(
    "glassgrad.baddbmm", lambda m, x, a, b: m.baddbmm(x, a, b, alpha=1.5),
    shapes=st.tuples(st.sampled_from([(2, 2, 3), (2, 3), (1,)]), st.just((2, 2, 2)), st.just((2, 2, 3))),
    also=("Tensor.baddbmm",), errors=(lambda m: m.baddbmm(m.ones(2, 3, 2), m.ones(2, 3, 4), m.ones(3, 4, 2)),),
)
_addmv = OpInfo(
    "glassgrad.addmv", lambda m, x, a, v: m.addmv(x, a, v, beta=0),
    shapes=st.tuples(st.sampled_from([(3,), (1,), ()]), st.just((3, 4)), st.just((4,))),
    also=("Tensor.addmv",), errors=(lambda m: m.addmv(m.ones(3), m.ones(3, 4), m.ones(3)),),
)
_solve_shapes = st.one_of(_gufunc("(n,n),(n,k)->(n,k)"), _gufunc("(n,n),(n)->(n)"))


def _chain(dims: list[int], vector_ends: tuple[bool, bool]) -> Shapes:
    """multi_dot's operands: matrix i is dims[i] x dims[i + 1]; the first (last) a vector if asked."""
    shapes = [(dims[i], dims[i + 1]) for i in range(len(dims) - 1)]
    if vector_ends[0]:
        shapes[0] = shapes[0][1:]
    if vector_ends[1]:
        shapes[-1] = shapes[-1][:1]
    return tuple(shapes)


_CHAINS = st.builds(_chain, st.lists(st.integers(0, 4), min_size=3, max_size=6), st.tuples(st.booleans(), st.booleans()))


def _einsum(equation: str, shapes: st.SearchStrategy[Shapes], id: str, **kwargs: Any) -> OpInfo:
    return OpInfo("glassgrad.einsum", lambda m, *xs: m.einsum(equation, *xs), shapes=shapes, id=id, **kwargs)


# Without empty matrices: PyTorch's backward of eig fails on them ("Tensor must have a last dimension with stride 1")
NONEMPTY_SQUARE = _gufunc("(n,n)->(n,n)", min_side=1)


def sorted_eig(m: Any, L: Any, V: Any = None) -> tuple[Any, Any]:
    """Eigenvalues by real part, then imaginary part (conjugate pairs share a real part), and their eigenvectors:
    LAPACK builds (NumPy's, PyTorch's MKL) may order the eigenvalues of a nearly triangular matrix differently."""
    order = m.argsort(L.real.detach() * 1e6 + L.imag.detach(), dim=-1)
    vectors = None if V is None else V.gather(-1, order.unsqueeze(-2).expand(*V.shape))
    return L.gather(-1, order), vectors


def eig_invariants(m: Any, A: Any) -> tuple[Any, ...]:
    """Eigenvalues (as real pairs) and |eigenvectors|^2: what does not depend on each eigenvector's phase."""
    L, V = sorted_eig(m, *m.linalg.eig(A))
    return separately((m.view_as_real(L), (V * V.conj()).real))


def swirled(m: Any, a: Any) -> Any:
    """spread plus a large antisymmetric part: complex-conjugate pairs of eigenvalues, still well separated."""
    return spread(m, a) + 8 * (a - a.mT)


def phase_dependent_loss(m: Any) -> Any:
    A = m.tensor([[1.0, 2.0], [-3.0, 0.5]], dtype=m.float64, requires_grad=True)
    return m.view_as_real(m.linalg.eig(A).eigenvectors).sum().backward()


EIG_ERRORS = (
    lambda m: m.linalg.eig(m.ones(2, 3)),
    lambda m: m.linalg.eig(m.ones(3)),
    lambda m: m.linalg.eig(m.ones(2, 2, dtype=m.int64)),
    lambda m: m.linalg.eig(m.tensor([[1.0, float("inf")], [0.0, 1.0]])),
    lambda m: m.linalg.eigvals(m.tensor([[1.0, float("inf")], [0.0, 1.0]], requires_grad=True)),
    lambda m: m.linalg.eigvals(m.ones(2, 2, dtype=m.float16)),
    phase_dependent_loss,
)

OPS = [
    OpInfo("glassgrad.linalg.eig", lambda m, a: eig_invariants(m, spread(m, a)), shapes=NONEMPTY_SQUARE, domains=SMALL,
           errors=EIG_ERRORS),
    OpInfo("glassgrad.linalg.eig", lambda m, a: eig_invariants(m, swirled(m, a)), shapes=NONEMPTY_SQUARE, domains=SMALL,
           id="eig_complex_pairs"),
    OpInfo("glassgrad.linalg.eig", lambda m, a: eig_invariants(m, m.complex(spread(m, a), a.mT)), shapes=NONEMPTY_SQUARE,
           domains=SMALL, id="eig_of_complex"),
    OpInfo("glassgrad.linalg.eigvals", lambda m, a: m.view_as_real(sorted_eig(m, m.linalg.eigvals(swirled(m, a)))[0]),
           shapes=NONEMPTY_SQUARE, domains=SMALL),
    # without a graph to record, an inf gives nan eigenvalues rather than eig's error (the nan that LAPACK gives for
    # a nan in the matrix is its own, and not compared)
    OpInfo("glassgrad.linalg.eigvals", lambda m: m.view_as_real(m.linalg.eigvals(m.tensor([[[1.0, float("inf")], [0.0, 1.0]],
           [[2.0, 1.0], [-1.0, 2.0]]]))), fixed(), order=0, id="eigvals_of_inf"),
    # -- products ------------------------------------------------------------------------------
    _matmul,
    OpInfo("glassgrad.mm", lambda m, a, b: m.mm(a, b), shapes=_gufunc("(m,n),(n,p)->(m,p)", max_dims=0, max_side=4),
           also=("Tensor.mm",), errors=(lambda m: m.mm(m.ones(2, 2, 2), m.ones(2, 2)), lambda m: m.mm(m.ones(2, 3), m.ones(2, 3)))),
    OpInfo("glassgrad.bmm", lambda m, a, b: m.bmm(a, b), shapes=st.integers(0, 3).flatmap(
        lambda b: _gufunc("(m,n),(n,p)->(m,p)", max_dims=0).map(lambda s: ((b, *s[0]), (b, *s[1])))),
           also=("Tensor.bmm",), errors=(lambda m: m.bmm(m.ones(2, 2, 3), m.ones(3, 3, 2)), lambda m: m.bmm(m.ones(2, 3), m.ones(3, 2)))),
    OpInfo("glassgrad.mv", lambda m, a, v: m.mv(a, v), shapes=_gufunc("(m,n),(n)->(m)", max_dims=0, max_side=4),
           also=("Tensor.mv",), errors=(lambda m: m.mv(m.ones(2, 3), m.ones(2)),)),
    OpInfo("glassgrad.dot", lambda m, a, b: m.dot(a, b), shapes=_gufunc("(n),(n)->()", max_dims=0, max_side=5),
           also=("Tensor.dot",), errors=(lambda m: m.dot(m.ones(2), m.ones(3)), lambda m: m.dot(m.ones(2, 2), m.ones(2)))),
    OpInfo("glassgrad.vdot", lambda m, a, b: m.vdot(a, b), shapes=_gufunc("(n),(n)->()", max_dims=0, max_side=5),
           also=("Tensor.vdot",), errors=(lambda m: m.vdot(m.ones(2), m.ones(3)), lambda m: m.vdot(m.ones(2), m.ones(2, dtype=m.float64)))),
    OpInfo("glassgrad.outer", lambda m, a, b: m.outer(a, b), shapes=_gufunc("(m),(n)->(m,n)", max_dims=0, max_side=4),
           also=("Tensor.outer", "glassgrad.ger", "Tensor.ger"), errors=(lambda m: m.outer(m.ones(2, 2), m.ones(2)),)),
    OpInfo("glassgrad.linalg.multi_dot", lambda m, *xs: m.linalg.multi_dot(list(xs)), shapes=_CHAINS, errors=(
        lambda m: m.linalg.multi_dot([m.ones(2)]), lambda m: m.linalg.multi_dot([m.ones(3, 4), m.ones(3, 5)]),
        lambda m: m.linalg.multi_dot([m.ones(2, 2, 2), m.ones(2, 2)]), lambda m: m.linalg.multi_dot([m.ones(2, 2), m.ones(2, 2, 2), m.ones(2)]),
        lambda m: m.linalg.multi_dot([m.ones(2, 2), m.ones(2, 2, dtype=m.float64)]), lambda m: m.linalg.multi_dot(m.ones(2, 2)),
    )),
    OpInfo("glassgrad.linalg.multi_dot", lambda m, *xs: m.linalg.multi_dot(xs), shapes=_CHAINS, domains=Domain(-3, 3, dtype="int64"),
           order=0, id="multi_dot_int"),
    _addmm, inplace_variant(_addmm, "addmm_", shapes=st.tuples(st.just((3, 2)), st.just((3, 4)), st.just((4, 2)))),
    _baddbmm, inplace_variant(_baddbmm, "baddbmm_", shapes=fixed((2, 2, 3), (2, 2, 2), (2, 2, 3))),
    _addmv, inplace_variant(_addmv, "addmv_", shapes=fixed((3,), (3, 4), (4,))),
    _einsum("ij,jk->ik", _gufunc("(i,j),(j,k)->(i,k)", max_dims=0), "einsum_mm",
            errors=(lambda m: m.einsum("ij,jk->ik", m.ones(2, 2), m.ones(3, 4)), lambda m: m.einsum("ij,jk->ik", m.ones(2, 2)),
                    lambda m: m.einsum("ij->iij", m.ones(2, 2)), lambda m: m.einsum("ij->k", m.ones(2, 2)),
                    lambda m: m.einsum("ijk->i", m.ones(2, 2)))),
    _einsum("ii->i", fixed((3, 3)), "einsum_diagonal"),
    _einsum("iij,j", fixed((2, 2, 3), (3,)), "einsum_repeated_implicit"),
    _einsum("...ij,...jk", _gufunc("(i,j),(j,k)->(i,k)"), "einsum_ellipsis"),
    _einsum("bi,bj,bk->bjk", _gufunc("(b,i),(b,j),(b,k)->(b,j,k)", max_dims=0), "einsum_three"),
    _einsum("ij->", unary(2, 2), "einsum_sum"),
    OpInfo("glassgrad.tensordot", lambda m, a, b: m.tensordot(a, b, dims=2), shapes=_gufunc("(i,j,k),(j,k,l)->(i,l)", max_dims=0),
           errors=(lambda m: m.tensordot(m.ones(2, 3), m.ones(2, 3), dims=1),)),
    OpInfo("glassgrad.tensordot", lambda m, a, b: m.tensordot(a, b, dims=([0, 2], [1, 0])),
           shapes=_gufunc("(i,j,k),(k,i,l)->(j,l)", max_dims=0), id="tensordot_lists"),
    OpInfo("glassgrad.kron", lambda m, a, b: m.kron(a, b), shapes=st.tuples(unary(0, 3, max_side=3).map(lambda s: s[0]),
                                                                              unary(0, 2, max_side=3).map(lambda s: s[0])),
           also=("Tensor.kron",)),
    OpInfo("glassgrad.cross", lambda m, a, b: m.cross(a, b, dim=1),
           shapes=st.sampled_from([((2, 3), (2, 3)), ((4, 3, 2), (1, 3, 2)), ((0, 3), (1, 3)), ((3, 3), (3,))]),
           also=("Tensor.cross",), id="torch_cross", errors=(lambda m: m.cross(m.ones(2, 2), m.ones(2, 2), dim=1),)),
    OpInfo("glassgrad.linalg.cross", lambda m, a, b: m.linalg.cross(a, b),
           shapes=broadcasting(2, min_dims=1).map(lambda s: tuple((*x[:-1], 3) for x in s)),
           id="linalg_cross", errors=(lambda m: m.linalg.cross(m.ones(3, 2), m.ones(3, 2)),)),
    # -- inverses, determinants, solvers ---------------------------------------------------------
    OpInfo("glassgrad.linalg.inv", lambda m, a: m.linalg.inv(dominant(m, a)), shapes=SQUARE, also=("glassgrad.inverse", "Tensor.inverse"),
           errors=(lambda m: m.linalg.inv(m.ones(2, 3)), lambda m: m.linalg.inv(m.ones(2, 2)), lambda m: m.linalg.inv(m.ones(3)),
                   lambda m: m.linalg.inv(m.ones(2, 2, dtype=m.int64)))),
    OpInfo("glassgrad.linalg.det", lambda m, a: m.linalg.det(dominant(m, a)), shapes=SQUARE, also=("glassgrad.det", "Tensor.det"),
           errors=(lambda m: m.linalg.det(m.ones(2, 3)),)),
    OpInfo("glassgrad.linalg.slogdet", lambda m, a: separately(m.linalg.slogdet(dominant(m, a) * -1)), shapes=SQUARE,
           also=("glassgrad.slogdet", "Tensor.slogdet"), errors=(lambda m: m.linalg.slogdet(m.ones(3)),)),
    OpInfo("glassgrad.logdet", lambda m, a: m.logdet(spd(m, a)), shapes=SQUARE, also=("Tensor.logdet",)),
    OpInfo("glassgrad.linalg.solve", lambda m, a, b: m.linalg.solve(dominant(m, a), b), shapes=_solve_shapes,
           errors=(lambda m: m.linalg.solve(m.eye(3), m.ones(4)), lambda m: m.linalg.solve(m.ones(2, 2), m.ones(2)),
                   lambda m: m.linalg.solve(m.eye(2), m.ones(2, dtype=m.float64)), lambda m: m.linalg.solve(m.ones(2, 3), m.ones(2)))),
    OpInfo("glassgrad.linalg.solve", lambda m, a, b: m.linalg.solve(dominant(m, a), b, left=False), shapes=_gufunc("(n,n),(k,n)->(k,n)", min_side=1),
           id="solve_right"),
    *(OpInfo("glassgrad.linalg.solve_triangular", lambda m, a, b, upper=upper, unit=unit: m.linalg.solve_triangular(
        dominant(m, a), b, upper=upper, unitriangular=unit), shapes=_gufunc("(n,n),(n,k)->(n,k)"),
        id=f"solve_triangular_{'upper' if upper else 'lower'}{'_unit' if unit else ''}", errors=(
            lambda m: m.linalg.solve_triangular(m.eye(3), m.ones(3), upper=True),
            lambda m: m.linalg.solve_triangular(m.ones(2, 3), m.ones(2, 2), upper=True),
            lambda m: m.linalg.solve_triangular(m.eye(3), m.ones(2, 2), upper=False),
            lambda m: m.linalg.solve_triangular(m.eye(3), m.ones(3, 2), upper=True, left=False),
            lambda m: m.linalg.solve_triangular(m.ones(2, 3, 3), m.ones(3, 3, 2), upper=True),
            lambda m: m.linalg.solve_triangular(m.eye(3, dtype=m.int64), m.ones(3, 2), upper=True),
            lambda m: m.linalg.solve_triangular(m.eye(3), m.ones(3, 2)),
        )) for upper in (True, False) for unit in (False, True)),
    *(OpInfo("glassgrad.linalg.solve_triangular", lambda m, a, b, upper=upper: m.linalg.solve_triangular(
        dominant(m, a), b, upper=upper, left=False), shapes=_gufunc("(n,n),(k,n)->(k,n)"),
        id=f"solve_triangular_right_{'upper' if upper else 'lower'}") for upper in (True, False)),
    OpInfo("glassgrad.linalg.solve_triangular", lambda m, a, b: m.linalg.solve_triangular(dominant(m, a).float(), b, upper=True),
           shapes=_gufunc("(n,n),(n,k)->(n,k)"), order=0, rtol=1e-5, atol=1e-6, id="solve_triangular_dtype_of_A"),
    # matrix_exp: a single matrix takes the Taylor degree its norm asks for (the scales reach 1, 2, 4, 8, 12 and 18,
    # the last with squaring); a batch always takes degree 18
    OpInfo("glassgrad.linalg.matrix_exp", lambda m, a: m.linalg.matrix_exp(a), shapes=SQUARE,
           also=("glassgrad.matrix_exp", "Tensor.matrix_exp"), errors=(
               lambda m: m.linalg.matrix_exp(m.ones(2, 3)), lambda m: m.linalg.matrix_exp(m.ones(3)),
               lambda m: m.linalg.matrix_exp(m.ones(3, 3, dtype=m.int64)),
           )),
    *(OpInfo("glassgrad.linalg.matrix_exp", lambda m, a, scale=scale: m.matrix_exp(a * scale), shapes=_gufunc("(n,n)->(n,n)", max_dims=0),
             id=f"matrix_exp_scale_{scale:g}") for scale in (1e-17, 1e-9, 1e-5, 0.01, 0.05, 0.2, 3.0)),
    OpInfo("glassgrad.linalg.matrix_power", lambda m, a: m.linalg.matrix_power(dominant(m, a) / 4, 3), shapes=SQUARE,
           also=("glassgrad.matrix_power", "Tensor.matrix_power"), errors=(lambda m: m.linalg.matrix_power(m.ones(2, 3), 2),)),
    OpInfo("glassgrad.linalg.matrix_power", lambda m, a: m.linalg.matrix_power(dominant(m, a), -2), shapes=SQUARE, id="matrix_power_negative"),
    OpInfo("glassgrad.linalg.matrix_power", lambda m, a: m.linalg.matrix_power(a, 0), shapes=SQUARE, id="matrix_power_zero"),
    OpInfo("glassgrad.linalg.pinv", lambda m, a: m.linalg.pinv(spread(m, a)), shapes=MATRIX, domains=SMALL,
           also=("glassgrad.pinverse", "Tensor.pinverse"), errors=(lambda m: m.linalg.pinv(m.ones(3)),)),
    OpInfo("glassgrad.linalg.lstsq", lambda m, a, b: separately(m.linalg.lstsq(spread(m, a), b)[:3]), domains=SMALL,
           shapes=_gufunc("(m,n),(m,k)->(n,k)", max_dims=0, min_side=1).filter(lambda s: s[0][-2] >= s[0][-1]),
           errors=(lambda m: m.linalg.lstsq(m.ones(3, 2), m.ones(2, 2)),)),
    OpInfo("glassgrad.linalg.lstsq", lambda m, a, b: separately(m.linalg.lstsq(spread(m, a), b, driver="gelsd")[:3]), domains=SMALL,
           shapes=_gufunc("(m,n),(m)->(n)", max_dims=0, min_side=1).filter(lambda s: s[0][-2] > s[0][-1]), id="lstsq_gelsd"),
    # -- decompositions ---------------------------------------------------------------------------
    OpInfo("glassgrad.linalg.cholesky", lambda m, a: m.linalg.cholesky(spd(m, a)), shapes=SQUARE,
           errors=(lambda m: m.linalg.cholesky(-m.eye(2)), lambda m: m.linalg.cholesky(m.ones(2, 3)))),
    OpInfo("glassgrad.linalg.cholesky", lambda m, a: m.linalg.cholesky(spd(m, a), upper=True), shapes=SQUARE, id="cholesky_upper"),
    OpInfo("glassgrad.linalg.qr", lambda m, a: separately(m.linalg.qr(spread(m, a))), shapes=MATRIX, domains=SMALL,
           errors=(lambda m: m.linalg.qr(m.ones(3)), lambda m: m.linalg.qr(m.ones(2, 2), mode="full"))),
    OpInfo("glassgrad.linalg.qr", lambda m, a: separately(m.linalg.qr(spread(m, a), mode="complete")), shapes=MATRIX, domains=SMALL, id="qr_complete"),
    OpInfo("glassgrad.linalg.qr", lambda m, a: m.linalg.qr(spread(m, a), mode="r"), shapes=NONEMPTY_MATRIX, domains=SMALL, id="qr_r",
           order=0),
    OpInfo("glassgrad.linalg.eigh", lambda m, a: (lambda r: (r.eigenvalues, squared(r.eigenvectors)))(m.linalg.eigh(symmetric_spread(m, a))),
           shapes=SQUARE, domains=SMALL, errors=(lambda m: m.linalg.eigh(m.ones(2, 3)), lambda m: m.linalg.eigh(m.eye(2), UPLO="X"))),
    OpInfo("glassgrad.linalg.eigh", lambda m, a: (lambda r: (r[0], squared(r[1])))(m.linalg.eigh(spread(m, a), UPLO="U")),
           shapes=SQUARE, domains=SMALL, id="eigh_upper_of_nonsymmetric"),
    OpInfo("glassgrad.linalg.eigvalsh", lambda m, a: m.linalg.eigvalsh(symmetric_spread(m, a)), shapes=SQUARE, domains=SMALL),
    OpInfo("glassgrad.linalg.svd", lambda m, a: svd_invariants(m, a, False), shapes=MATRIX, domains=SMALL,
           errors=(lambda m: m.linalg.svd(m.ones(3)),)),
    OpInfo("glassgrad.linalg.svd", lambda m, a: svd_invariants(m, a, True), shapes=MATRIX, domains=SMALL, id="svd_full_matrices"),
    OpInfo("glassgrad.linalg.svd", lambda m, a: (lambda r: r.U @ (r.S.unsqueeze(-1) * r.Vh))(m.linalg.svd(spread(m, a), False)),
           shapes=MATRIX, domains=SMALL, id="svd_reconstruction"),
    OpInfo("glassgrad.linalg.svdvals", lambda m, a: m.linalg.svdvals(spread(m, a)), shapes=MATRIX, domains=SMALL, order=1),
    # -- norms ------------------------------------------------------------------------------------
    OpInfo("glassgrad.linalg.vector_norm", lambda m, x: m.linalg.vector_norm(x), shapes=unary(), domains=AWAY_FROM_ZERO,
           errors=(lambda m: m.linalg.vector_norm(m.ones(3, dtype=m.int64)), lambda m: m.linalg.vector_norm(m.ones(0), math.inf),
                   lambda m: m.linalg.vector_norm(m.ones(2), dim=1))),
    *(OpInfo("glassgrad.linalg.vector_norm", lambda m, x, p=p: m.linalg.vector_norm(x, p, dim=-1, keepdim=True),
             shapes=unary(1, 3, min_side=1), domains=Domain(-2, 2, kinks=(0,)), id=f"vector_norm_{p}", order=1 if p in (1, 0, math.inf, -math.inf) else 2)
      for p in (1, 3, 1.5, 0.5, math.inf, -math.inf, 0)),
    OpInfo("glassgrad.linalg.vector_norm", lambda m, x: m.linalg.vector_norm(x.float(), dim=(0, -1), dtype=m.float64), shapes=unary(2, 3),
           id="vector_norm_dims_dtype", rtol=1e-5, atol=1e-6, order=1,
           errors=(lambda m: m.linalg.vector_norm(m.ones(2, dtype=m.float64), dtype=m.float32),)),
    *(OpInfo("glassgrad.linalg.matrix_norm", lambda m, a, o=o: m.linalg.matrix_norm(spread(m, a), o), shapes=NONEMPTY_MATRIX, domains=SMALL,
             id=f"matrix_norm_{o}", order=1 if o in (1, -1, math.inf, -math.inf) else 2, errors=(lambda m: m.linalg.matrix_norm(m.ones(3)), lambda m: m.linalg.matrix_norm(m.ones(3, 3), "abc")))
      for o in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf)),
    OpInfo("glassgrad.linalg.matrix_norm", lambda m, a: m.linalg.matrix_norm(spread(m, a).mT, "nuc", dim=(-1, -2), keepdim=True),
           shapes=NONEMPTY_MATRIX, domains=SMALL, id="matrix_norm_dims_keepdim"),
    OpInfo("glassgrad.linalg.norm", lambda m, x: m.linalg.norm(x), shapes=unary(), domains=AWAY_FROM_ZERO, id="linalg_norm"),
    OpInfo("glassgrad.linalg.norm", lambda m, x: m.linalg.norm(x, 3, dim=-1), shapes=unary(1, 3, min_side=1), domains=AWAY_FROM_ZERO,
           id="norm_vector_ord"),
    OpInfo("glassgrad.linalg.norm", lambda m, a: m.linalg.norm(spread(m, a), "nuc"), shapes=NONEMPTY_MATRIX.filter(lambda s: len(s[0]) == 2),
           domains=SMALL, id="norm_matrix", errors=(lambda m: m.linalg.norm(m.ones(2, 2, 2), 2),)),
]
