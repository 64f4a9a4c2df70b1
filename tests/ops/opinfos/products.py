"""OpInfos of the products in glassgrad/ops/products.py (addbmm, addr, inner, linalg.vecdot, linalg.diagonal, the
Vandermonde matrices) and of linalg.matmul.

PyTorch 2.13's torch.vander writes its cumprod in place into the result, and its backward then fails on the version
check: its gradients are compared with finite differences only.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..opinfo import Domain, OpInfo, broadcasting, fixed, inplace_variant, unary
from .linalg import _gufunc

_addr = OpInfo(
    "glassgrad.addr", lambda m, x, a, b: m.addr(x, a, b, beta=0.5, alpha=2),
    shapes=st.tuples(st.sampled_from([(3, 2), (2,), (1, 2), ()]), st.just((3,)), st.just((2,))), also=("Tensor.addr",),
    errors=(lambda m: m.addr(m.zeros(3, 3), m.zeros(3, 1), m.zeros(3)), lambda m: m.addr(m.zeros(2, 3), m.zeros(3), m.zeros(3)),
            lambda m: m.addr(m.zeros(2, 3, dtype=m.int64), m.ones(2, dtype=m.int64), m.ones(3, dtype=m.int64), alpha=2.5)),
)
_addbmm = OpInfo(
    "glassgrad.addbmm", lambda m, x, a, b: m.addbmm(x, a, b, beta=2, alpha=0.5),
    shapes=st.tuples(st.sampled_from([(2, 2), (2,), (1, 1)]), st.just((2, 2, 3)), st.just((2, 3, 2))), also=("Tensor.addbmm",),
    errors=(lambda m: m.addbmm(m.zeros(3, 3), m.zeros(2, 3, 4), m.zeros(2, 3, 3)), lambda m: m.addbmm(m.zeros(3, 3), m.zeros(3, 4), m.zeros(4, 3)),
            lambda m: m.addbmm(m.zeros(2, 3), m.zeros(2, 3, 4), m.zeros(2, 4, 3)), lambda m: m.addbmm(m.zeros(3, 3), m.zeros(2, 3, 4), m.zeros(3, 4, 3)),
            lambda m: m.addbmm(m.zeros(3, 3), m.zeros(2, 3, 4), m.zeros(2, 4, 3, dtype=m.float64))),
)

OPS = [
    OpInfo("glassgrad.linalg.matmul", lambda m, a, b: m.linalg.matmul(a, b), shapes=_gufunc("(m?,n),(n,p?)->(m?,p?)", max_side=4),
           errors=(lambda m: m.linalg.matmul(m.ones(3), m.ones(2)),)),
    _addr, inplace_variant(_addr, "addr_", shapes=fixed((3, 2), (3,), (2,))),
    OpInfo("glassgrad.addr", lambda m, x, a, b: m.addr(x.float(), a, b.int(), beta=0), shapes=fixed((3, 2), (3,), (2,)), id="addr_promoted",
           order=0, rtol=1e-6),
    _addbmm, inplace_variant(_addbmm, "addbmm_", shapes=fixed((2, 2), (2, 2, 3), (2, 3, 2))),
    OpInfo("glassgrad.inner", lambda m, a, b: m.inner(a, b), shapes=_gufunc("(n),(n)->()", max_dims=0).flatmap(
        lambda s: st.tuples(unary(0, 2, max_side=3).map(lambda r: (*r[0], *s[0])), unary(0, 2, max_side=3).map(lambda r: (*r[0], *s[1])))),
           also=("Tensor.inner",),
           errors=(lambda m: m.inner(m.zeros(2, 3), m.zeros(2, 4)), lambda m: m.inner(m.zeros(3), m.zeros(3, dtype=m.float64)))),
    OpInfo("glassgrad.inner", lambda m, a, b: m.inner(a, b), shapes=st.tuples(st.just(()), unary(0, 2).map(lambda s: s[0])), id="inner_scalar"),
    OpInfo("glassgrad.linalg.vecdot", lambda m, a, b: m.linalg.vecdot(a, b), shapes=broadcasting(2),
           errors=(lambda m: m.linalg.vecdot(m.zeros(3), m.zeros(3, dtype=m.float64)), lambda m: m.linalg.vecdot(m.zeros(3), m.zeros(4)),
                   lambda m: m.linalg.vecdot(m.ones(3, dtype=m.int64), m.ones(3, dtype=m.int64)))),
    OpInfo("glassgrad.linalg.vecdot", lambda m, a, b: m.linalg.vecdot(a, b, dim=0), shapes=broadcasting(2, min_dims=1), id="vecdot_dim"),
    OpInfo("glassgrad.linalg.diagonal", lambda m, a: m.linalg.diagonal(a, offset=-1), shapes=unary(2)),
    OpInfo("glassgrad.linalg.diagonal", lambda m, a: m.linalg.diagonal(a, dim1=0, dim2=-1), shapes=unary(2), id="linalg_diagonal_dims",
           errors=(lambda m: m.linalg.diagonal(m.ones(3)),)),
    OpInfo("glassgrad.vander", lambda m, x: m.vander(x), shapes=unary(1, 1), order=0,
           errors=(lambda m: m.vander(m.zeros(2, 2)), lambda m: m.vander(m.zeros(2), N=-1))),
    OpInfo("glassgrad.vander", lambda m, x: m.vander(x, 3, increasing=True), shapes=unary(1, 1), id="vander_gradients",
           xfail={"torch": "PyTorch 2.13's vander writes its cumprod in place, and its backward fails on the version check"}),
    OpInfo("glassgrad.vander", lambda m, x: m.vander(x, 4), shapes=unary(1, 1), domains=Domain(-3, 3, dtype="int8"), order=0, id="vander_int8"),
    OpInfo("glassgrad.linalg.vander", lambda m, x: m.linalg.vander(x), shapes=unary(1, 3, min_side=2),
           errors=(lambda m: m.linalg.vander(m.tensor(2.0)), lambda m: m.linalg.vander(m.ones(3), N=1),
                   lambda m: m.linalg.vander(m.ones(3, dtype=m.bool)))),
    OpInfo("glassgrad.linalg.vander", lambda m, x: m.linalg.vander(x, N=4), shapes=unary(0, 2), id="linalg_vander_N"),
    OpInfo("glassgrad.linalg.vander", lambda m, x: m.linalg.vander(x, N=3), shapes=unary(1, 2), domains=Domain(-3, 3, dtype="int8"),
           order=0, id="linalg_vander_int8"),
]
