"""OpInfos of glassgrad.special (glassgrad/ops/special.py) and of the torch-level names it adds (lgamma, digamma,
polygamma, mvlgamma, i0, sinc, their methods and in-place forms). torch.special's aliases of other ops (expit is
sigmoid, ...) are the very functions their own OpInfos test."""

from __future__ import annotations

from typing import Any

from ..opinfo import ANY, Domain, OpInfo, broadcasting, fixed, unary
from .elementwise import inplace

GAMMA = Domain(0.2, 5.0)  # off the poles at 0, -1, -2, ...
PROBABILITY = Domain(0.05, 0.95)
PLUS_ONE_POSITIVE = Domain(-0.9, 2.0)  # log1p's argument above -1
KINK_AT_ZERO = Domain(-2.0, 2.0, kinks=(0.0,))
SIDE = dict(min_side=0, max_side=4)
INF, NAN = float("inf"), float("nan")
# (a, x) pairs on the incomplete gamma functions' boundary
EDGES = [[0.0, 1.0], [0.0, 0.0], [1.0, 0.0], [-1.0, 1.0], [1.0, -1.0], [INF, 1.0], [INF, INF], [1.0, INF],
         [NAN, 0.0], [NAN, INF], [INF, NAN], [NAN, 1.0], [2.0, NAN], [0.0, NAN]]
BESSEL_EDGES = [0.0, -0.0, INF, -INF, NAN, 1e-30, -1.0, 80.0, 103.0, 104.0, 200.0, -200.0]
# PyTorch's own Cephes ports and SciPy's agree to about 1e-6 (airy_ai on (-2.5, -2.09), where PyTorch's is coarser)
BESSEL = {
    "bessel_y0": Domain(0.1, 30.0), "bessel_y1": Domain(0.1, 30.0), "modified_bessel_i0": Domain(-10.0, 10.0),
    "modified_bessel_i1": Domain(-10.0, 10.0), "modified_bessel_k0": Domain(0.05, 10.0),
    "modified_bessel_k1": Domain(0.05, 10.0), "scaled_modified_bessel_k0": Domain(0.05, 30.0),
    "scaled_modified_bessel_k1": Domain(0.05, 30.0), "airy_ai": Domain(-10.0, 10.0),
    "spherical_bessel_j0": Domain(-10.0, 10.0),
}
# values on each side of the polynomials' interval and at its ends (integral values hit x = 0, +-1)
POLYNOMIALS = {
    **{f"chebyshev_polynomial_{k}": Domain(-2, 2, integral=True) for k in "tuvw"},
    **{f"shifted_chebyshev_polynomial_{k}": Domain(-1, 2, integral=True) for k in "tuvw"},
    "hermite_polynomial_h": Domain(-2.0, 2.0), "hermite_polynomial_he": Domain(-2.0, 2.0),
    "laguerre_polynomial_l": Domain(-1, 3, integral=True), "legendre_polynomial_p": Domain(-1, 1, integral=True),
}


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


def shapes_of_a(m: Any, x: Any) -> Any:
    """Values of a, 0.5, 1.2, 1.9, ... along x's last dim, as a constant (P and Q have no derivative in a)."""
    return m.ones_like(x).cumsum(-1) * 0.7 - 0.2


# P(a, x) and Q(a, x) are differentiable in x only; the gradient in a is PyTorch's error (the *_of_a entries)
_igamma = OpInfo("glassgrad.igamma", lambda m, x: m.igamma(shapes_of_a(m, x), x), unary(min_dims=1, **SIDE),
                 domains=Domain(0.2, 5.0), also=("glassgrad.special.gammainc", "Tensor.igamma"),
                 errors=(lambda m: m.igamma(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)),
                         lambda m: m.igamma(m.ones(2), 2.0), lambda m: m.special.gammainc(1.0, m.ones(2))))
_igammac = OpInfo("glassgrad.igammac", lambda m, x: m.igammac(shapes_of_a(m, x), x), unary(min_dims=1, **SIDE),
                  domains=Domain(0.2, 5.0), also=("glassgrad.special.gammaincc", "Tensor.igammac"),
                  errors=(lambda m: m.special.gammaincc(m.ones(2, dtype=m.bool), m.ones(2, dtype=m.bool)),))
NO_DERIVATIVE_IN_A = {"gradcheck": "PyTorch has no derivative of igamma and igammac in a either"}


def degree(name: str, n: Any) -> Any:
    return lambda m, x: getattr(m.special, name)(x, n)


def polynomial(name: str, domain: Domain) -> list[OpInfo]:
    """A polynomial with a tensor of integer degrees (negative ones give 0), a float degree and a number x."""
    errors = (lambda m: getattr(m.special, name)(0.5, 2), lambda m: getattr(m.special, name)(m.ones(2, dtype=m.float16), 2),
              lambda m: getattr(m.special, name)(m.ones(2, dtype=m.complex64), 2))
    return [
        OpInfo(f"glassgrad.special.{name}", special(name), broadcasting(2, **SIDE), domains=(domain, Domain(-1, 12, dtype="int64")),
               order=0, rtol=1e-6, atol=1e-8, errors=errors),
        OpInfo(f"glassgrad.special.{name}", degree(name, 3.7), unary(**SIDE), domains=domain, order=0, rtol=1e-6, atol=1e-8,
               id=f"{name}_float_degree"),
        OpInfo(f"glassgrad.special.{name}", lambda m, n: getattr(m.special, name)(0.25, n), domains=Domain(-1, 20, dtype="int64"),
               order=0, rtol=1e-6, atol=1e-8, id=f"{name}_number_x"),
    ]


OPS = [
    _igamma,
    _igammac,
    OpInfo("Tensor.igamma_", lambda m, a, x: a.clone().igamma_(x), broadcasting(2, **SIDE), order=0,
           domains=(Domain(0.3, 4.0), Domain(0.2, 5.0))),
    OpInfo("Tensor.igammac_", lambda m, a, x: a.clone().igammac_(x), broadcasting(2, **SIDE), order=0,
           domains=(Domain(0.3, 4.0), Domain(0.2, 5.0))),
    OpInfo("glassgrad.igamma", lambda m, a: m.igamma(a, m.full_like(a, 1.5)), domains=Domain(0.3, 4.0), order=1,
           id="igamma_of_a", xfail=NO_DERIVATIVE_IN_A),
    OpInfo("glassgrad.igammac", lambda m, a: m.special.gammaincc(a, m.full_like(a, 1.5)), domains=Domain(0.3, 4.0), order=1,
           id="igammac_of_a", xfail=NO_DERIVATIVE_IN_A),
    # Edge values: a or x at 0, negative or infinite, nan against a boundary value (PyTorch decides the boundary first)
    OpInfo("glassgrad.igamma", lambda m, a, x: m.igamma(a, x), broadcasting(2, **SIDE), order=0, id="igamma_edges",
           domains=(Domain(-1, 3, integral=True), Domain(-1, 3, integral=True))),
    OpInfo("glassgrad.igamma", lambda m: m.igamma(*m.tensor(EDGES).unbind(1)), fixed(),
           order=0, id="igamma_boundary"),
    OpInfo("glassgrad.igammac", lambda m: m.special.gammaincc(*m.tensor(EDGES).unbind(1)),
           fixed(), order=0, id="igammac_boundary"),
    *(op for name, domain in POLYNOMIALS.items() for op in polynomial(name, domain)),
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
    *(unary_special(name, domain, half=False, order=0, rtol=1e-6, atol=1e-6) for name, domain in BESSEL.items()),
    *(OpInfo(f"glassgrad.special.{name}", lambda m, name=name: getattr(m.special, name)(m.tensor(BESSEL_EDGES, dtype=m.float64)), fixed(),
             order=0, rtol=1e-6, atol=1e-6, id=f"{name}_edges") for name in BESSEL),
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
