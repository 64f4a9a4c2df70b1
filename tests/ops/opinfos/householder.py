"""OpInfos of glassgrad/ops/householder.py (geqrf, householder_product/orgqr, ormqr) and lowrank.py (svd_lowrank,
pca_lowrank, lobpcg).

The low-rank decompositions draw a random matrix from each library's own generator, so their factors differ between
the libraries; with q at the (centred) input's rank the singular values and the reconstruction U diag(S) V^T do not,
and neither do their gradients. Those are what the OpInfos compare. lobpcg's eigenvectors have the sign of
PyTorch's random start: its eigenvalues and the projector X X^T onto its eigenvectors are compared, to the
tolerance PyTorch's iteration converges to.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ..opinfo import OpInfo, seeded
from .linalg import SMALL, _gufunc, spread

# Square matrices of 3 to 6 rows (LOBPCG needs three rows per eigenpair), sometimes a batch of two.
_SQUARE = st.tuples(st.sampled_from(((), (2,))), st.integers(3, 6)).map(lambda bm: ((*bm[0], bm[1], bm[1]),))
_LOBPCG_ERRORS = (
    lambda m: m.lobpcg(m.ones(3, 4)),
    lambda m: m.lobpcg(m.eye(5), k=2),
    lambda m: m.lobpcg(m.eye(6), B=m.eye(5)),
    lambda m: m.lobpcg(m.eye(6), X=m.ones(5, 1)),
)


def _eigenspace(m: Any, a: Any, largest: bool) -> tuple[Any, Any]:
    """The eigenvalues and eigenprojector of a symmetric matrix with well separated eigenvalues (10 apart, nudged by a)."""
    size = a.shape[-1]
    symmetric = m.diag_embed(m.arange(size, dtype=a.dtype) * 10) + 0.1 * (a + a.mT)
    values, vectors = m.lobpcg(symmetric, k=size // 3, largest=largest)
    return values, vectors @ vectors.mT


_TALL = _gufunc("(m,n)->(m,n)", min_side=1).map(lambda s: ((max(s[0][-2], s[0][-1]) + 1, s[0][-1]) if len(s[0]) == 2 else s[0],))
_REFLECTORS = st.tuples(st.integers(1, 4), st.integers(1, 3)).map(lambda mn: ((max(mn), min(mn)), (min(mn),)))


def _reconstructed(r: Any) -> tuple[Any, Any]:
    U, S, V = r
    return S, (U * S.unsqueeze(-2)) @ V.mT


def _ormqr(left: bool, transpose: bool) -> OpInfo:
    def fn(m: Any, a: Any, tau: Any, c: Any) -> Any:
        return m.ormqr(a, tau, c if left else c.mT, left=left, transpose=transpose)

    shapes = st.tuples(st.integers(1, 4), st.integers(1, 3)).map(
        lambda mn: ((mn[0], min(mn)), (min(mn),), (mn[0], mn[1])))
    return OpInfo("glassgrad.ormqr", fn, shapes=shapes, id=f"ormqr{'' if left else '_right'}{'_transpose' if transpose else ''}",
                  also=("Tensor.ormqr",) if left and not transpose else (),
                  errors=(lambda m: m.ormqr(m.ones(4, 3), m.ones(2), m.ones(4, 2)), lambda m: m.ormqr(m.ones(4, 3), m.ones(3), m.ones(3, 2)),
                          lambda m: m.ormqr(m.ones(4, 3), m.ones(3), m.ones(2, 3), left=False)))


OPS = [
    OpInfo("glassgrad.geqrf", lambda m, a: m.geqrf(spread(m, a)), shapes=_gufunc("(m,n)->(m,n)"), domains=SMALL, order=0,
           also=("Tensor.geqrf",), errors=(lambda m: m.geqrf(m.ones(3)), lambda m: m.geqrf(m.ones(2, 3, dtype=m.int64)))),
    OpInfo("glassgrad.geqrf", lambda m, a: m.geqrf(a)[0].sum(), shapes=_gufunc("(m,n)->(m,n)", min_side=1), id="geqrf_no_derivative",
           order=1, xfail={"gradcheck": "geqrf has no derivative, in PyTorch as in glassgrad: backward raises"}),
    OpInfo("glassgrad.linalg.householder_product", lambda m, a, tau: m.linalg.householder_product(a, tau), shapes=_REFLECTORS,
           also=("glassgrad.orgqr", "Tensor.orgqr"),
           errors=(lambda m: m.linalg.householder_product(m.ones(3, 4), m.ones(2)), lambda m: m.linalg.householder_product(m.ones(4, 3), m.ones(4)),
                   lambda m: m.linalg.householder_product(m.ones(4, 3), m.ones(2, dtype=m.float64)),
                   lambda m: m.linalg.householder_product(m.ones(4), m.ones(2)), lambda m: m.linalg.householder_product(m.ones(2, 4, 3), m.ones(3, 2)))),
    OpInfo("glassgrad.linalg.householder_product", lambda m, a: m.linalg.householder_product(*m.geqrf(a)), order=0,
           shapes=_TALL, id="householder_product_of_geqrf"),
    OpInfo("glassgrad.linalg.householder_product", lambda m, a, tau: m.linalg.householder_product(a, tau[..., :1]),
           shapes=_gufunc("(m,n),(n)->(m,n)", min_side=1).filter(lambda s: s[0][-2] >= s[0][-1]), id="householder_product_batched"),
    *(_ormqr(left, transpose) for left in (True, False) for transpose in (False, True)),
    OpInfo("glassgrad.svd_lowrank", seeded(lambda m, a: _reconstructed(m.svd_lowrank(spread(m, a), q=min(a.shape[-2:]), niter=1))),
           shapes=_gufunc("(m,n)->(m,n)", min_side=2, max_side=4), domains=SMALL),
    OpInfo("glassgrad.pca_lowrank", seeded(lambda m, a: _reconstructed(m.pca_lowrank(spread(m, a), q=min(a.shape[-2:]), center=False))),
           shapes=_gufunc("(m,n)->(m,n)", min_side=2, max_side=4), domains=SMALL, id="pca_lowrank_uncentred"),
    OpInfo("glassgrad.pca_lowrank", seeded(lambda m, a: _reconstructed(m.pca_lowrank(spread(m, a), q=min(a.shape[-2] - 1, a.shape[-1])))),
           shapes=_gufunc("(m,n)->(m,n)", min_side=2, max_side=4), domains=SMALL, id="pca_lowrank",
           errors=(lambda m: m.pca_lowrank(m.ones(3, 2), q=3), lambda m: m.pca_lowrank(m.ones(3, 2), niter=-1))),
    OpInfo("glassgrad.svd_lowrank", seeded(lambda m, a, b: _reconstructed(m.svd_lowrank(spread(m, a), q=3, M=b))),
           shapes=st.just(((4, 3), (1, 3))), domains=SMALL, id="svd_lowrank_M"),
    *(OpInfo("glassgrad.lobpcg", seeded(lambda m, a, largest=largest: _eigenspace(m, a, largest)), shapes=_SQUARE,
             order=1, rtol=1e-5, atol=1e-6, id=f"lobpcg_{'largest' if largest else 'smallest'}", errors=_LOBPCG_ERRORS)
      for largest in (True, False)),
]
