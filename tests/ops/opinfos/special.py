"""OpInfos of glassgrad.special (glassgrad/ops/special.py) and of the torch-level names it adds (lgamma, digamma,
polygamma, mvlgamma, i0, sinc, their methods and in-place forms). torch.special's aliases of other ops (expit is
sigmoid, ...) are the very functions their own OpInfos test."""

from __future__ import annotations

from typing import Any

from ..opinfo import ANY, Domain, OpInfo, broadcasting, unary
from .elementwise import inplace

GAMMA = Domain(0.2, 5.0)  # off the poles at 0, -1, -2, ...
PROBABILITY = Domain(0.05, 0.95)
PLUS_ONE_POSITIVE = Domain(-0.9, 2.0)  # log1p's argument above -1
KINK_AT_ZERO = Domain(-2.0, 2.0, kinks=(0.0,))
SIDE = dict(min_side=0, max_side=4)


def special(name: str, *args: Any, **kwargs: Any) -> Any:
    return lambda m, *xs: getattr(m.special, name)(*xs, *args, **kwargs)


def half_refused(name: str) -> Any:
    return lambda m: getattr(m.special, name)(m.ones(2, dtype=m.float16))


def unary_special(name: str, domains: Domain = ANY, *, half: bool = True, **kwargs: Any) -> OpInfo:
    errors = () if half else (half_refused(name),)
    return OpInfo(f"glassgrad.special.{name}", special(name), unary(**SIDE), domains=domains, errors=errors, **kwargs)


_lgamma = OpInfo("glassgrad.lgamma", lambda m, x: m.lgamma(x), domains=GAMMA,
                 also=("glassgrad.special.gammaln", "Tensor.lgamma"))
_digamma = OpInfo("glassgrad.digamma", lambda m, x: m.digamma(x), domains=GAMMA,
                  also=("glassgrad.special.digamma", "glassgrad.special.psi", "Tensor.digamma"))
_polygamma = OpInfo("glassgrad.polygamma", lambda m, x: m.polygamma(2, x), domains=GAMMA,
                    also=("glassgrad.special.polygamma",),
                    errors=(lambda m: m.polygamma(-1, m.ones(2)), lambda m: m.special.polygamma(1.5, m.ones(2))))
_mvlgamma = OpInfo("glassgrad.mvlgamma", lambda m, x: m.mvlgamma(x, 3), domains=Domain(1.2, 4.0),
                   also=("glassgrad.special.multigammaln", "Tensor.mvlgamma"),
                   errors=(lambda m: m.mvlgamma(m.ones(2), 0),))
_i0 = OpInfo("glassgrad.i0", lambda m, x: m.i0(x), also=("glassgrad.special.i0", "Tensor.i0"))
# Near 0 sinc's second derivative is a difference of huge terms whose rounding depends on the order the engine
# sums them in (PyTorch's gives 0 at x = 1e-22, the exact value is -pi^2): those inputs are left out here.
_sinc = OpInfo("glassgrad.sinc", lambda m, x: m.sinc(x), domains=Domain(-2.5, 2.5, kinks=(0.0,)),
               also=("glassgrad.special.sinc", "Tensor.sinc"))

OPS = [
    _lgamma,
    inplace(_lgamma, "lgamma_"),
    _digamma,
    inplace(_digamma, "digamma_"),
    _polygamma,
    OpInfo("glassgrad.polygamma", lambda m, x: m.polygamma(0, x), domains=GAMMA, id="polygamma_0"),
    OpInfo("glassgrad.polygamma", lambda m, x: m.special.polygamma(1, x), domains=GAMMA, id="polygamma_1"),
    OpInfo("Tensor.polygamma", lambda m, x: x.polygamma(3), domains=GAMMA),
    inplace(_polygamma, "polygamma_", args=(1,)),
    _mvlgamma,
    OpInfo("glassgrad.mvlgamma", lambda m, x: m.special.multigammaln(x, 1), domains=GAMMA, id="mvlgamma_1"),
    inplace(_mvlgamma, "mvlgamma_", kwargs={"p": 2}),
    _i0,
    inplace(_i0, "i0_"),
    _sinc,
    inplace(_sinc, "sinc_"),
    unary_special("i0e", KINK_AT_ZERO),
    unary_special("i1", Domain(-3.0, 3.0)),
    unary_special("i1e", KINK_AT_ZERO),
    unary_special("entr", Domain(0.05, 3.0)),
    unary_special("erfcx", Domain(-3.0, 3.0), half=False),
    unary_special("ndtr", Domain(-3.0, 3.0)),
    unary_special("ndtri", PROBABILITY, half=False),
    unary_special("log_ndtr", Domain(-5.0, 5.0), half=False),
    # PyTorch's own Bessel code and SciPy's Cephes agree to about 1e-7, absolutely near the functions' zeros
    unary_special("bessel_j0", Domain(-6.0, 6.0), half=False, order=0, rtol=1e-6, atol=1e-6),
    unary_special("bessel_j1", Domain(-6.0, 6.0), half=False, order=0, rtol=1e-6, atol=1e-6),
    OpInfo("glassgrad.special.xlog1py", special("xlog1py"), broadcasting(2, **SIDE), domains=(ANY, PLUS_ONE_POSITIVE),
           errors=(lambda m: m.special.xlog1py(1, 2),)),
    OpInfo("glassgrad.special.xlog1py", lambda m, x: m.special.xlog1py(2.5, x), domains=PLUS_ONE_POSITIVE, id="xlog1py_number_self"),
    OpInfo("glassgrad.special.xlog1py", lambda m, x: m.special.xlog1py(x, 0.5), id="xlog1py_number_other"),
    OpInfo("glassgrad.special.xlog1py", lambda m, x: m.special.xlog1py(x, -1.0), domains=Domain(-2, 2, integral=True),
           order=1, id="xlog1py_at_minus_one",
           xfail={"gradcheck": "the derivative is -inf off x = 0: finite differences cannot check it"}),
    OpInfo("glassgrad.special.zeta", special("zeta"), broadcasting(2, **SIDE),
           domains=(Domain(2, 4, dtype="int64"), Domain(0.5, 3.0)),  # integer exponents: no gradient asked of them
           errors=(lambda m: m.special.zeta(2, 1), lambda m: m.special.zeta(m.ones(2, dtype=m.float16) + 1, 1.0))),
    OpInfo("glassgrad.special.zeta", lambda m, q: m.special.zeta(2.5, q), domains=Domain(0.5, 3.0), id="zeta_number_self"),
    OpInfo("glassgrad.special.zeta", lambda m, s: m.special.zeta(s, 1.5), domains=Domain(1.5, 4.0), order=1,
           id="zeta_of_exponent", xfail={"gradcheck": "PyTorch has no derivative of zeta in its exponent either"}),
    OpInfo("glassgrad.special.round", lambda m, x: m.special.round(x), order=1, errors=(lambda m: m.special.round(m.ones(2, dtype=m.int64)),)),
    OpInfo("glassgrad.special.round", lambda m, x: m.special.round(x, decimals=2), order=1, id="round_decimals"),
    OpInfo("glassgrad.special.softmax", lambda m, x: m.special.softmax(x, -1), unary(min_dims=1, **SIDE)),
    OpInfo("glassgrad.special.log_softmax", lambda m, x: m.special.log_softmax(x, 0, dtype=m.float64),
           unary(min_dims=1, **SIDE)),
]
