"""glassgrad.special: the gamma family, Bessel functions, the normal distribution's functions, sinc, entr, xlog1py
and zeta, with PyTorch's formulas (derivatives.yaml) for their gradients; the rest of torch.special are glassgrad's
own ops under a second name (expit is sigmoid, gammaln is lgamma, ...).

SciPy computes the kernels (imported on first use, so `import glassgrad` stays light). Where PyTorch's CPU kernels
refuse float16, these refuse it with PyTorch's message.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from . import activations, binary, elementwise, reduction
from .complex_ops import sgn
from .creation import tensor as _constant
from .elementwise import (
    Kernel,
    Operand,
    _binary,
    _float_unary,
    _floating,
    _scipy,
    erf,
    exp,
    log,
    not_implemented_for,
    require_tensor,
    where,
)
from .table import Derivative, NoForwardAD, derivative

NAMESPACE = "glassgrad.special"

_SQRT_2PI = math.sqrt(2 * math.pi)
_LOG_PI = math.log(math.pi)


def _refusing_half(op: Callable[[Tensor], Tensor], kernel_name: str) -> Callable[[Tensor], Tensor]:
    """`op`, refusing float16 as PyTorch's CPU kernel `kernel_name` does."""

    def checked(input: Tensor) -> Tensor:
        if isinstance(input, Tensor) and input.dtype is _dtype.float16:
            raise not_implemented_for(kernel_name, input.dtype)
        return op(input)

    checked.__name__ = checked.__qualname__ = op.__name__
    return checked


def _safe_tiny(self: Tensor) -> tuple[Tensor, Tensor]:
    """Where |x| exceeds machine epsilon, and x moved off zero: i1's formulas divide by x (PyTorch's i1_backward)."""
    eps = float(_dtype.machine_limits(self._data.dtype).eps)
    not_tiny = self.abs() > eps
    return not_tiny, where(not_tiny, self, eps)


def _i1_grad(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    not_tiny, x = _safe_tiny(self)
    return grad * where(not_tiny, i0(x) - result * x.reciprocal(), 0.5)


def _i1e_grad(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    not_tiny, x = _safe_tiny(self)
    return grad * where(not_tiny, i0e(x) - result * (sgn(x) + x.reciprocal()), 0.5)


def _sinc_grad(grad: Tensor, self: Tensor) -> Tensor:
    x_pi = self * math.pi
    x_squared_pi = self * self * math.pi
    return where(x_squared_pi == 0, 0.0, grad * (x_pi * elementwise.cos(x_pi) - elementwise.sin(x_pi)) / x_squared_pi)


# -- one input ---------------------------------------------------------------------------------------------------
LgammaBackward0 = derivative("LgammaBackward0", self=lambda grad, self: grad * digamma(self))
DigammaBackward0 = derivative("DigammaBackward0", self=lambda grad, self: grad * polygamma(1, self))
I0Backward0 = derivative("I0Backward0", self=lambda grad, self: grad * i1(self))
SpecialI0EBackward0 = derivative("SpecialI0EBackward0", self=lambda grad, self, result: grad * (i1e(self) - sgn(self) * result))
SpecialI1Backward0 = derivative("SpecialI1Backward0", self=_i1_grad)
SpecialI1EBackward0 = derivative("SpecialI1EBackward0", self=_i1e_grad)
SincBackward0 = derivative("SincBackward0", self=_sinc_grad)
SpecialEntrBackward0 = derivative("SpecialEntrBackward0", self=lambda grad, self: grad * -(1 + log(self)))
SpecialErfcxBackward0 = derivative(
    "SpecialErfcxBackward0", self=lambda grad, self, result: (2.0 * self * result - 2.0 / math.sqrt(math.pi)) * grad
)
SpecialNdtriBackward0 = derivative(
    "SpecialNdtriBackward0", self=lambda grad, result: grad * _SQRT_2PI * exp(elementwise.square(result) / 2)
)
SpecialLogNdtrBackward0 = derivative(
    "SpecialLogNdtrBackward0", self=lambda grad, self, result: grad / _SQRT_2PI * exp(-(result + elementwise.pow(self, 2) / 2))
)

lgamma = _float_unary("lgamma", LgammaBackward0, _scipy("gammaln"))
digamma = _float_unary("digamma", DigammaBackward0, _scipy("psi"))  # psi(+-0) is -+inf, as PyTorch's digamma
i0 = _float_unary("i0", I0Backward0, _scipy("i0"))
i0e = _float_unary("i0e", SpecialI0EBackward0, _scipy("i0e"))
i1 = _float_unary("i1", SpecialI1Backward0, _scipy("i1"))
i1e = _float_unary("i1e", SpecialI1EBackward0, _scipy("i1e"))
sinc = _float_unary("sinc", SincBackward0, np.sinc)  # NumPy's sinc is the normalized one, sin(pi x) / (pi x)
entr = _float_unary("entr", SpecialEntrBackward0, _scipy("entr"))
erfcx = _refusing_half(_float_unary("erfcx", SpecialErfcxBackward0, _scipy("erfcx")), "erfcx_cpu")
ndtri = _refusing_half(_float_unary("ndtri", SpecialNdtriBackward0, _scipy("ndtri")), "ndtri_cpu")
log_ndtr = _refusing_half(_float_unary("log_ndtr", SpecialLogNdtrBackward0, _scipy("log_ndtr")), "log_ndtr_cpu")


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF, composed as PyTorch composes it: (1 + erf(x / sqrt(2))) / 2."""
    return (1 + erf(require_tensor("special_ndtr", "self", 1, input) * math.sqrt(0.5))) * 0.5


def _not_differentiable(name: str, kernel: Kernel, arg: str = "input") -> Callable[[Tensor], Tensor]:
    """A function PyTorch marks non-differentiable: its result never requires grad."""

    def op(input: Tensor) -> Tensor:
        d = require_tensor(f"special_{name}", arg, 1, input).dtype
        if d is _dtype.float16:
            raise not_implemented_for(f"{name}_cpu", d)
        target = _floating(d)
        return Tensor._wrap(elementwise._run(kernel, input._data.astype(target.np, copy=False)).astype(target.np, copy=False))

    op.__name__ = op.__qualname__ = name
    return op


def _airy_ai(x: np.ndarray) -> np.ndarray:
    from scipy import special

    # PyTorch's Cephes port returns 0 past x = 103.892, where Ai underflows anyway, and nan at both infinities
    return np.where(np.isinf(x), np.nan, np.where(x > 103.892, 0, special.airy(x)[0]))


def _spherical_bessel_j0(x: np.ndarray) -> np.ndarray:
    from scipy import special

    return special.spherical_jn(0, x)


bessel_j0 = _not_differentiable("bessel_j0", _scipy("j0"))
bessel_j1 = _not_differentiable("bessel_j1", _scipy("j1"))
bessel_y0 = _not_differentiable("bessel_y0", _scipy("y0"))
bessel_y1 = _not_differentiable("bessel_y1", _scipy("y1"))
modified_bessel_i0 = _not_differentiable("modified_bessel_i0", _scipy("i0"))
modified_bessel_i1 = _not_differentiable("modified_bessel_i1", _scipy("i1"))
modified_bessel_k0 = _not_differentiable("modified_bessel_k0", _scipy("k0"))
modified_bessel_k1 = _not_differentiable("modified_bessel_k1", _scipy("k1"))
scaled_modified_bessel_k0 = _not_differentiable("scaled_modified_bessel_k0", _scipy("k0e"), "x")
scaled_modified_bessel_k1 = _not_differentiable("scaled_modified_bessel_k1", _scipy("k1e"), "x")
airy_ai = _not_differentiable("airy_ai", _airy_ai, "x")
spherical_bessel_j0 = _not_differentiable("spherical_bessel_j0", _spherical_bessel_j0, "x")


# -- the regularized incomplete gamma functions: differentiable in x only, as in PyTorch -----------------------
def _igamma_density(self: Tensor, other: Tensor) -> Tensor:
    """d/dx of P(a, x): x^(a-1) e^(-x) / Gamma(a), written as PyTorch writes it."""
    return exp((self - 1) * log(other) - other - lgamma(self))


def _igamma_self_grad(name: str) -> Callable[[Tensor], Tensor]:
    def formula(grad: Tensor) -> Tensor:
        raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")

    return formula


IgammaBackward0 = derivative(
    "IgammaBackward0", ("self", "other"), self=_igamma_self_grad("igamma"),
    other=lambda grad, self, other: grad * _igamma_density(self, other), jvp=NoForwardAD("igamma"),
)
IgammacBackward0 = derivative(
    "IgammacBackward0", ("self", "other"), self=_igamma_self_grad("igammac"),
    other=lambda grad, self, other: -grad * _igamma_density(self, other), jvp=NoForwardAD("igammac"),
)


def _incomplete_gamma_kernel(upper: bool) -> Kernel:
    """SciPy's P(a, x) (or Q), with PyTorch's values on the boundary, decided before a nan in the other argument."""

    def kernel(a: np.ndarray, x: np.ndarray) -> np.ndarray:
        from scipy import special

        lower = np.select(
            [(x < 0) | (a < 0), a == 0, x == 0, np.isinf(a) & np.isinf(x), np.isinf(a), np.isinf(x)],
            [np.nan, np.where(x > 0, 1, np.nan), 0, np.nan, 0, 1],
            np.nan,
        )
        on_boundary = ~np.isnan(lower) | (x < 0) | (a < 0) | (a == 0) | (np.isinf(a) & np.isinf(x))
        inside = special.gammaincc(a, x) if upper else special.gammainc(a, x)
        return np.where(on_boundary, 1 - lower if upper else lower, inside)

    return kernel


def _incomplete_gamma(name: str, kernel_name: str, entry: Derivative, upper: bool) -> Callable[[Tensor, Tensor], Tensor]:
    kernel = _incomplete_gamma_kernel(upper)

    def op(input: Tensor, other: Tensor) -> Tensor:
        require_tensor(name, "input", 1, input)
        require_tensor(name, "other", 2, other)
        common = _dtype.result_type(input, other)
        if not common.is_floating_point:
            raise not_implemented_for(kernel_name, common)
        return _binary(entry, lambda a, x: kernel(a, x).astype(common.np, copy=False), input, other)

    op.__name__ = op.__qualname__ = name
    return op


igamma = _incomplete_gamma("igamma", "igamma_cpu", IgammaBackward0, upper=False)
igammac = _incomplete_gamma("igammac", "igammac_cpu", IgammacBackward0, upper=True)
gammainc = _incomplete_gamma("special_gammainc", "igamma_cpu", IgammaBackward0, upper=False)
gammaincc = _incomplete_gamma("special_gammaincc", "igammac_cpu", IgammacBackward0, upper=True)


# -- polygamma and the multivariate log-gamma -----------------------------------------------------------------
PolygammaBackward0 = derivative("PolygammaBackward0", self=lambda grad, self, n: grad * polygamma(n + 1, self))


def polygamma(n: int, input: Tensor) -> Tensor:
    """The n-th derivative of digamma (n = 0 is digamma itself)."""
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    require_tensor("polygamma", "input", 2, input)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    target = _floating(input.dtype)

    def kernel(x: np.ndarray) -> np.ndarray:
        from scipy import special

        return special.polygamma(n, x)

    out = elementwise._run(kernel, input._data.astype(target.np, copy=False))
    return PolygammaBackward0.record(out.astype(target.np, copy=False), (input,), n=int(n))


def _mvlgamma_offsets(p: int, like: Tensor) -> Tensor:
    """-(p - 1)/2, ..., -1/2, 0: what mvlgamma adds to x before each lgamma (PyTorch's arange(-p/2 + 0.5, 0.5, 0.5))."""
    return _constant(np.arange(-p / 2 + 0.5, 0.5, 0.5), dtype=like.dtype)


MvlgammaBackward0 = derivative(
    "MvlgammaBackward0",
    self=lambda grad, self, p: grad * reduction.sum(digamma(self.unsqueeze(-1) + _mvlgamma_offsets(p, self)), -1),
)


def mvlgamma(input: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma function of dimension p: sum of lgamma(x - j/2) for j < p, plus p(p-1)/4 log(pi)."""
    require_tensor("mvlgamma", "input", 1, input)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    target = _floating(input.dtype)
    x = input._data.astype(target.np, copy=False)
    terms = _scipy("gammaln")(x[..., None] + np.arange(-p / 2 + 0.5, 0.5, 0.5, dtype=target.np))
    out = (terms.sum(-1) + p * (p - 1) * _LOG_PI / 4).astype(target.np, copy=False)
    return MvlgammaBackward0.record(np.asarray(out), (input,), p=p)


# -- two inputs: PyTorch's overloads are 0 for two tensors, 1 for a Python-number self, 2 for a number other -------
def _overloads(name: str, entries: tuple[Derivative, Derivative, Derivative], kernel: Kernel,
               refuses_half: bool = False) -> Callable[[Operand, Operand], Tensor]:
    def op(input: Operand, other: Operand) -> Tensor:
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            raise TypeError(f"special_{name}() received an invalid combination of arguments: one of 'input' and 'other' must be a Tensor")
        if refuses_half and _floating(_dtype.result_type(input, other)) is _dtype.float16:
            raise not_implemented_for(f"{name}_cpu", _dtype.float16)
        entry = entries[1] if not isinstance(input, Tensor) else entries[0] if isinstance(other, Tensor) else entries[2]
        return _binary(entry, kernel, input, other, to_float=True)

    op.__name__ = op.__qualname__ = name
    return op


def _xlog1py(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # 0 * log1p(y) is 0 even where log1p(y) is infinite, but nan in y stays nan
    return np.where(np.isnan(b), b, np.where(a == 0, 0, a * np.log1p(b)))


def _xlog1py_self_grad(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    return where((self == 0) & (other <= -1), 0.0, xlog1py(grad, other))


def _xlog1py_other_grad(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    return grad * self / (other + 1)


xlog1py = _overloads("xlog1py", (
    derivative("SpecialXlog1PyBackward0", ("self", "other"), self=_xlog1py_self_grad, other=_xlog1py_other_grad),
    derivative("SpecialXlog1PyBackward1", ("self", "other"), other=_xlog1py_other_grad),
    derivative("SpecialXlog1PyBackward2", ("self", "other"), self=_xlog1py_self_grad),
), _xlog1py)


def _zeta_self_grad(grad: Tensor) -> Tensor:
    raise NotImplementedError("the derivative for 'zeta' is not implemented.")


def _zeta_other_grad(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    return grad * -self * zeta(self + 1.0, other)


zeta = _overloads("zeta", (
    derivative("SpecialZetaBackward0", ("self", "other"), self=_zeta_self_grad, other=_zeta_other_grad,
               jvp=NoForwardAD("special_zeta")),
    derivative("SpecialZetaBackward1", ("self", "other"), other=_zeta_other_grad, jvp=NoForwardAD("special_zeta")),
    derivative("SpecialZetaBackward2", ("self", "other"), self=_zeta_self_grad),
), _scipy("zeta"), refuses_half=True)


# -- torch.special's own signatures for glassgrad's ops ---------------------------------------------------------
def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """Always round's decimals overload (RoundBackward1, integers refused), as torch.special.round calls it."""
    return elementwise.round(input, decimals=decimals)


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return activations.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return activations.log_softmax(input, dim, dtype=dtype)



# -- what this module exports (collected by ops/__init__.py) ----------------------------------------------------
_TORCH_TOO: dict[str, Callable[..., Any]] = {
    "lgamma": lgamma, "digamma": digamma, "polygamma": polygamma, "mvlgamma": mvlgamma, "i0": i0, "sinc": sinc,
    "igamma": igamma, "igammac": igammac,
}
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "expit": elementwise.sigmoid, "logit": elementwise.logit, "erf": elementwise.erf, "erfc": elementwise.erfc,
    "erfinv": elementwise.erfinv, "exp2": elementwise.exp2, "expm1": elementwise.expm1, "log1p": elementwise.log1p,
    "round": round, "xlogy": binary.xlogy, "logsumexp": reduction.logsumexp,
    "softmax": softmax, "log_softmax": log_softmax, "gammaln": lgamma, "psi": digamma, "digamma": digamma,
    "polygamma": polygamma, "multigammaln": mvlgamma, "i0": i0, "i0e": i0e, "i1": i1, "i1e": i1e, "sinc": sinc,
    "entr": entr, "erfcx": erfcx, "ndtr": ndtr, "ndtri": ndtri, "log_ndtr": log_ndtr, "xlog1py": xlog1py,
    "zeta": zeta, "bessel_j0": bessel_j0, "bessel_j1": bessel_j1, "bessel_y0": bessel_y0, "bessel_y1": bessel_y1,
    "modified_bessel_i0": modified_bessel_i0, "modified_bessel_i1": modified_bessel_i1,
    "modified_bessel_k0": modified_bessel_k0, "modified_bessel_k1": modified_bessel_k1,
    "scaled_modified_bessel_k0": scaled_modified_bessel_k0, "scaled_modified_bessel_k1": scaled_modified_bessel_k1,
    "airy_ai": airy_ai, "spherical_bessel_j0": spherical_bessel_j0, "gammainc": gammainc, "gammaincc": gammaincc,
}
ALSO: dict[str, dict[str, Callable[..., Any]]] = {"glassgrad": _TORCH_TOO}
METHODS: dict[str, Callable[..., Any]] = {**_TORCH_TOO, "polygamma": lambda self, n: polygamma(n, self)}
INPLACE: tuple[str, ...] = tuple(_TORCH_TOO)
