"""OpInfos of glassgrad/ops/linalg_lu.py (LU, Cholesky and LDL factorizations with their solves) and
linalg_derived.py (matrix_rank, cond, tensorinv, tensorsolve, torch.svd).

For singular inputs only the info codes are compared: the infinities and NaNs beside them depend on the signs of
zeros in the LAPACK build's substitutions. LU inputs are diagonally dominant with their rows reversed (`pivoted`), so partial pivoting has rows to swap and
the factors stay well conditioned; square, wide and tall shapes each take their own formula. PyTorch 2.13's cond
for orders other than 2, -2 and 'nuc' fills its saved inverse in place, so its backward fails the version check:
those gradients are compared with finite differences only.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from ..opinfo import Domain, OpInfo, fixed
from .linalg import MATRIX, SMALL, SQUARE, _gufunc, dominant, spd, spread, symmetric_spread


def pivoted(m: Any, a: Any) -> Any:
    """a plus a large (rectangular) identity, rows reversed: nonsingular leading blocks that pivoting must find."""
    rows, cols = a.shape[-2], a.shape[-1]
    return (a + (2 * max(rows, cols) + 1) * m.eye(rows, cols, dtype=a.dtype)).flip(-2)


_SHAPES = _gufunc("(m,n)->(m,n)", min_side=1)


def _lu_solve(left: bool, adjoint: bool) -> OpInfo:
    def fn(m: Any, a: Any, b: Any) -> Any:
        LU, pivots = m.linalg.lu_factor(pivoted(m, a))
        return m.linalg.lu_solve(LU, pivots, b if left else b.mT, left=left, adjoint=adjoint)

    return OpInfo("glassgrad.linalg.lu_solve", fn, shapes=_gufunc("(n,n),(n,k)->(n,k)", min_side=1),
                  id=f"lu_solve{'' if left else '_right'}{'_adjoint' if adjoint else ''}",
                  errors=(lambda m: m.linalg.lu_solve(*m.linalg.lu_factor(m.eye(3)), m.ones(2, 2)),
                          lambda m: m.linalg.lu_solve(*m.linalg.lu_factor(m.eye(3)), m.ones(3, 2, dtype=m.float64))))


def _cond(p: Any) -> list[OpInfo]:
    label = p if isinstance(p, str) else "default" if p is None else f"{p:g}"
    # spread: distinct singular values, whose second derivatives divide by their gaps
    fn = lambda m, a, p=p: m.linalg.cond(spread(m, a), p)  # noqa: E731
    differentiable_in_torch = p in (2, -2, "nuc", None)
    return [
        OpInfo("glassgrad.linalg.cond", fn, shapes=SQUARE, domains=SMALL, id=f"cond_{label}", order=2 if differentiable_in_torch else 0,
               errors=(lambda m, p=p: m.linalg.cond(m.ones(3), p), lambda m: m.linalg.cond(m.ones(2, 2), 3),
                       lambda m: m.linalg.cond(m.ones(2, 3), "fro"))),
        *([] if differentiable_in_torch else [OpInfo(
            "glassgrad.linalg.cond", fn, shapes=SQUARE, domains=SMALL, id=f"cond_{label}_gradients",
            xfail={"torch": "PyTorch 2.13 fills its saved inverse in place, so its backward fails the version check"})]),
    ]


OPS = [
    # -- LU -------------------------------------------------------------------------------------------
    OpInfo("glassgrad.linalg.lu_factor", lambda m, a: m.linalg.lu_factor(pivoted(m, a)), shapes=_SHAPES,
           errors=(lambda m: m.linalg.lu_factor(m.zeros(2, 3)), lambda m: m.linalg.lu_factor(m.ones(3)),
                   lambda m: m.linalg.lu_factor(m.eye(2), pivot=False))),
    OpInfo("glassgrad.linalg.lu_factor_ex", lambda m, a: m.linalg.lu_factor_ex(pivoted(m, a)), shapes=_SHAPES),
    OpInfo("glassgrad.linalg.lu_factor_ex", lambda m, a: m.linalg.lu_factor_ex(a.round()).info, shapes=_SHAPES, order=0,
           id="lu_factor_ex_singular"),
    OpInfo("glassgrad.linalg.lu", lambda m, a: m.linalg.lu(pivoted(m, a)), shapes=_SHAPES,
           errors=(lambda m: m.linalg.lu(m.ones(3)), lambda m: m.linalg.lu(m.eye(2), pivot=False))),
    OpInfo("glassgrad.linalg.lu", lambda m, a: m.linalg.lu(pivoted(m, a)).U, shapes=_SHAPES, id="lu_U_only"),
    OpInfo("glassgrad.lu_unpack", lambda m, a: m.lu_unpack(*m.linalg.lu_factor(pivoted(m, a))), shapes=_SHAPES,
           errors=(lambda m: m.lu_unpack(m.eye(2), m.ones(2, dtype=m.int64)),)),
    OpInfo("glassgrad.lu_unpack", lambda m, a: m.lu_unpack(*m.linalg.lu_factor(pivoted(m, a)))[1], shapes=_SHAPES, id="lu_unpack_L_only"),
    OpInfo("glassgrad.lu_unpack", lambda m, a: m.lu_unpack(*m.linalg.lu_factor(pivoted(m, a)), unpack_pivots=False)[1:], shapes=_SHAPES,
           id="lu_unpack_data_only"),
    *(_lu_solve(left, adjoint) for left in (True, False) for adjoint in (False, True)),
    OpInfo("glassgrad.linalg.lu_solve", lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(pivoted(m, a)), b),
           shapes=_gufunc("(n,n),(n,k)->(n,k)", max_dims=2, min_side=1), id="lu_solve_batched"),
    # -- inv_ex, solve_ex, cholesky_ex ------------------------------------------------------------------
    OpInfo("glassgrad.linalg.inv_ex", lambda m, a: m.linalg.inv_ex(pivoted(m, a)), shapes=SQUARE,
           errors=(lambda m: m.linalg.inv_ex(m.zeros(2, 2), check_errors=True), lambda m: m.linalg.inv_ex(m.ones(2, 3)))),
    OpInfo("glassgrad.linalg.inv_ex", lambda m, a: m.linalg.inv_ex(a.round()).info, shapes=SQUARE, domains=Domain(-1, 1), order=0,
           id="inv_ex_singular"),
    OpInfo("glassgrad.linalg.solve_ex", lambda m, a, b: m.linalg.solve_ex(pivoted(m, a), b),
           shapes=st.one_of(_gufunc("(n,n),(n,k)->(n,k)"), _gufunc("(n,n),(n)->(n)")),
           errors=(lambda m: m.linalg.solve_ex(m.zeros(2, 2), m.ones(2), check_errors=True),)),
    OpInfo("glassgrad.linalg.solve_ex", lambda m, a, b: m.linalg.solve_ex(pivoted(m, a), b, left=False),
           shapes=_gufunc("(n,n),(k,n)->(k,n)", min_side=1), id="solve_ex_right"),
    OpInfo("glassgrad.linalg.solve_ex", lambda m, a, b: m.linalg.solve_ex(a.round(), b).info, shapes=fixed((3, 3), (3, 2)),
           domains=Domain(-1, 1), order=0, id="solve_ex_singular"),
    OpInfo("glassgrad.linalg.cholesky_ex", lambda m, a: m.linalg.cholesky_ex(spd(m, a)), shapes=SQUARE,
           errors=(lambda m: m.linalg.cholesky_ex(-m.eye(2), check_errors=True), lambda m: m.linalg.cholesky_ex(m.ones(2, 3)))),
    OpInfo("glassgrad.linalg.cholesky_ex", lambda m, a: m.linalg.cholesky_ex(spd(m, a), upper=True), shapes=SQUARE, id="cholesky_ex_upper"),
    OpInfo("glassgrad.linalg.cholesky_ex", lambda m, a: m.linalg.cholesky_ex(a + a.mT).info, shapes=SQUARE, order=0,
           id="cholesky_ex_indefinite"),
    # -- cholesky_solve, cholesky_inverse, ldl ----------------------------------------------------------
    OpInfo("glassgrad.cholesky_solve", lambda m, a, b: m.cholesky_solve(b, m.linalg.cholesky(spd(m, a))),
           shapes=_gufunc("(n,n),(n,k)->(n,k)"), also=("Tensor.cholesky_solve",),
           errors=(lambda m: m.cholesky_solve(m.ones(2), m.eye(2)), lambda m: m.cholesky_solve(m.ones(3, 2), m.eye(2)),
                   lambda m: m.cholesky_solve(m.ones(2, 2, dtype=m.float64), m.eye(2)))),
    OpInfo("glassgrad.cholesky_solve", lambda m, a, b: b.cholesky_solve(m.linalg.cholesky(spd(m, a), upper=True), upper=True),
           shapes=_gufunc("(n,n),(n,k)->(n,k)"), id="cholesky_solve_upper"),
    OpInfo("glassgrad.cholesky_inverse", lambda m, a: m.cholesky_inverse(m.linalg.cholesky(spd(m, a))), shapes=SQUARE,
           also=("Tensor.cholesky_inverse",),
           errors=(lambda m: m.cholesky_inverse(m.ones(2)), lambda m: m.cholesky_inverse(m.ones(2, 3)),
                   lambda m: m.cholesky_inverse(m.zeros(2, 2)))),
    OpInfo("glassgrad.cholesky_inverse", lambda m, a: m.linalg.cholesky(spd(m, a), upper=True).cholesky_inverse(upper=True),
           shapes=SQUARE, id="cholesky_inverse_upper"),
    OpInfo("glassgrad.linalg.ldl_factor", lambda m, a: m.linalg.ldl_factor(a + a.mT), shapes=SQUARE, order=0,
           errors=(lambda m: m.linalg.ldl_factor(m.zeros(2, 3)),)),
    OpInfo("glassgrad.linalg.ldl_factor_ex", lambda m, a: m.linalg.ldl_factor_ex(a + a.mT, hermitian=True), shapes=SQUARE, order=0),
    OpInfo("glassgrad.linalg.ldl_factor_ex", lambda m, a: m.linalg.ldl_factor_ex(a.round() * 0).info, shapes=SQUARE, order=0,
           id="ldl_factor_ex_singular"),
    OpInfo("glassgrad.linalg.ldl_solve", lambda m, a, b: m.linalg.ldl_solve(*m.linalg.ldl_factor(dominant(m, a + a.mT)), b),
           shapes=_gufunc("(n,n),(n,k)->(n,k)"), order=0,
           errors=(lambda m: m.linalg.ldl_solve(*m.linalg.ldl_factor(m.eye(2)), m.ones(3, 2)),)),
    # -- matrix_rank, cond, tensorinv, tensorsolve, torch.svd ----------------------------------------------
    OpInfo("glassgrad.linalg.matrix_rank", lambda m, a: m.linalg.matrix_rank(a), shapes=MATRIX, domains=Domain(-1, 1, integral=True),
           order=0, errors=(lambda m: m.linalg.matrix_rank(m.ones(3)), lambda m: m.linalg.matrix_rank(m.ones(3, 3, dtype=m.int64)))),
    OpInfo("glassgrad.linalg.matrix_rank", lambda m, a: m.linalg.matrix_rank(spread(m, a), atol=6.0, rtol=0.1), shapes=MATRIX,
           domains=SMALL, order=0, id="matrix_rank_tolerances"),
    OpInfo("glassgrad.linalg.matrix_rank", lambda m, a: m.linalg.matrix_rank(spread(m, a), 7.0), shapes=MATRIX, domains=SMALL,
           order=0, id="matrix_rank_tol"),
    OpInfo("glassgrad.linalg.matrix_rank", lambda m, a: m.linalg.matrix_rank(symmetric_spread(m, a), hermitian=True,
                                                                             atol=m.tensor(4.0, dtype=a.dtype)),
           shapes=SQUARE, domains=SMALL, order=0, id="matrix_rank_hermitian"),
    *(op for p in (None, 2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc") for op in _cond(p)),
    OpInfo("glassgrad.linalg.cond", lambda m, a: m.linalg.cond(spread(m, a)), shapes=MATRIX, domains=SMALL, id="cond_rectangular"),
    OpInfo("glassgrad.linalg.tensorinv", lambda m, a: m.linalg.tensorinv(pivoted(m, a).reshape(3, 1, 3)), shapes=fixed((3, 3)),
           errors=(lambda m: m.linalg.tensorinv(m.ones(2, 3, 4)), lambda m: m.linalg.tensorinv(m.ones(4, 2, 2), 0),
                   lambda m: m.linalg.tensorinv(m.ones(2, 2, 4)))),
    OpInfo("glassgrad.linalg.tensorinv", lambda m, a: m.linalg.tensorinv(pivoted(m, a).reshape(3, 3, 1), ind=1), shapes=fixed((3, 3)),
           id="tensorinv_ind_1"),
    OpInfo("glassgrad.linalg.tensorsolve", lambda m, a, b: m.linalg.tensorsolve(pivoted(m, a).reshape(3, 1, 3), b),
           shapes=fixed((3, 3), (3, 1)), errors=(lambda m: m.linalg.tensorsolve(m.ones(2, 3, 4), m.ones(2)),)),
    OpInfo("glassgrad.linalg.tensorsolve", lambda m, a, b: m.linalg.tensorsolve(pivoted(m, a).reshape(3, 1, 3), b.reshape(1, 3), dims=(0,)),
           shapes=fixed((3, 3), (3, 1)), id="tensorsolve_dims"),
    OpInfo("glassgrad.svd", lambda m, a: (lambda r: (r.S, r.V.abs()))(m.svd(spread(m, a))),
           shapes=MATRIX, domains=SMALL, also=("Tensor.svd",), errors=(lambda m: m.svd(m.ones(3)),)),
    OpInfo("glassgrad.svd", lambda m, a: (lambda r: (r.U * r.U, r.S, r.V * r.V))(m.svd(spread(m, a))), shapes=MATRIX, domains=SMALL,
           id="svd_squared_factors"),
    OpInfo("glassgrad.svd", lambda m, a: (lambda r: (r.U.shape[-1] * r.S, r.V.shape[-1] * r.S))(m.svd(spread(m, a), some=False)),
           shapes=MATRIX, domains=SMALL, id="svd_full"),
    OpInfo("glassgrad.svd", lambda m, a: m.svd(spread(m, a), compute_uv=False), shapes=MATRIX, domains=SMALL, id="svd_values_only",
           order=1),
]
