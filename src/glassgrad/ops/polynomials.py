"""torch.special's orthogonal polynomials: Chebyshev (T, U, V, W and their shifted forms), Hermite (H, He),
Laguerre (L) and Legendre (P), evaluated as PyTorch's CPU kernels (ATen/native/Math.h) evaluate them.

Each is P_n(x) for a tensor x and a degree n (either may be a Python number, not both). n is truncated to an
integer as C++'s cast truncates it, and a non-finite n reads as negative; a negative degree gives 0. The special
values at the ends of the interval, the closed (trigonometric) forms used for large n inside it and the three-term
recurrence, which stops once it reaches nan, are PyTorch's, so results agree to rounding. PyTorch marks every one
of them non-differentiable: the result never requires grad.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from .elementwise import Operand, _floating, _run, as_tensor_operand, not_implemented_for

NAMESPACE = "glassgrad.special"

# Step(i, x, p, q) -> the next value, for iterations i = 1 .. n - 1 starting from p = P_0 = 1, q = P_1
Step = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
# Special(x, n) -> (where, value) pairs, the first that holds wins, checked after n < 0 and before n == 0, 1
Special = Callable[[np.ndarray, np.ndarray], list[tuple[np.ndarray, np.ndarray]]]


class Polynomial(NamedTuple):
    first: Callable[[np.ndarray], np.ndarray]  # P_1(x)
    step: Step
    special: Special | None = None
    nan_above: dict[str, int] | None = None  # degrees past which PyTorch gives nan, per dtype


def _degrees(n: np.ndarray, like: np.dtype) -> np.ndarray:
    """n as C++'s static_cast<int64_t> reads it: truncated, with nan, inf and out-of-range values negative."""
    if n.dtype.kind in "biu":
        return n.astype(np.int64)
    with np.errstate(invalid="ignore"):
        fits = np.isfinite(n) & (np.abs(n) < 2.0**63)
        return np.where(fits, np.trunc(np.where(fits, n, 0)), -1).astype(np.int64)


def _ends(x: np.ndarray, n: np.ndarray, at_plus: np.ndarray, even: np.ndarray, odd: np.ndarray,
          plus: float = 1.0, minus: float = -1.0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Values at x = plus and x = minus (the interval's ends): `at_plus` there, `even`/`odd` at the other end."""
    return [(x == plus, at_plus), ((x == minus) & (n % 2 == 0), even), (x == minus, odd)]


def _evaluate(poly: Polynomial, x: np.ndarray, degrees: np.ndarray) -> np.ndarray:
    x, n = np.broadcast_arrays(x, _degrees(degrees, x.dtype))
    one = np.ones_like(x)
    special = poly.special(x, n) if poly.special is not None else []
    too_high = n > poly.nan_above[x.dtype.name] if poly.nan_above is not None else np.zeros(n.shape, bool)
    # only the elements no special case decides run the recurrence (a large n is often decided in closed form)
    recurring = (n > 1) & ~too_high
    for where, _ in special:
        recurring &= ~where
    p, q = one, poly.first(x)
    for i in range(1, int(n[recurring].max(initial=0))):
        running = recurring & (i < n) & ~np.isnan(q)
        if not running.any():
            break
        p, q = np.where(running, q, p), np.where(running, poly.step(np.asarray(i, x.dtype), x, p, q), q)
    out = np.where(n == 0, one, q)
    for where, value in reversed(special):
        out = np.where(where, value, out)
    out = np.where(too_high, np.nan, out)
    return np.where(n < 0, 0, out).astype(x.dtype, copy=False)


def _polynomial(name: str, poly: Polynomial) -> Callable[[Operand, Operand], Tensor]:
    def op(input: Operand, n: Operand) -> Tensor:
        if not isinstance(input, Tensor) and not isinstance(n, Tensor):
            raise TypeError(f"special_{name}() received an invalid combination of arguments - got "
                            f"({type(input).__name__}, {type(n).__name__}), but expected one of: (Tensor x, Tensor n)")
        common = _floating(_dtype.result_type(input, n))
        if common is _dtype.float16 or common.is_complex:
            raise not_implemented_for(f"{name}_cpu", common)
        x = as_tensor_operand(input, common)._data.astype(common.np, copy=False)
        degrees = as_tensor_operand(n, common)._data
        return Tensor._wrap(_run(lambda a, b: _evaluate(poly, a, b), x, degrees))

    op.__name__ = op.__qualname__ = name
    return op


def _rounded(f: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """f computed in float64 and rounded to x's dtype: float32 as C's correctly rounded acosf, cosf, sinf give it
    (NumPy's own float32 loops are a few ulps off, which n * acos(x) multiplies)."""
    return lambda x: f(x.astype(np.float64)).astype(x.dtype)


_cos, _sin = _rounded(np.cos), _rounded(np.sin)
_acos = _rounded(lambda x: np.arccos(np.clip(x, -1, 1)))  # only read where |x| < 1


def _u_closed(y: np.ndarray, n: np.ndarray) -> np.ndarray:
    theta = _acos(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(_sin(theta) != 0, _sin((n + 1) * theta) / _sin(theta), (n + 1) * _cos((n + 1) * theta) / y)


def _v_closed(y: np.ndarray, n: np.ndarray) -> np.ndarray:
    theta = _acos(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(_sin(theta / 2) != 1, _cos((n + 0.5) * theta) / _cos(theta / 2),
                        np.where(n % 2 == 0, n + n + 1, -(n + n + 1)))


def _w_closed(y: np.ndarray, n: np.ndarray, at_plus_one: np.ndarray | None) -> np.ndarray:
    """W_n by its closed form; where that is 0/0, +-1 (and `at_plus_one` for y > 0 when given), as PyTorch."""
    theta = _acos(y)
    degenerate = np.where(n % 2 == 0, 1, -1)
    if at_plus_one is not None:
        degenerate = np.where(y > 0, at_plus_one, degenerate)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(_cos(theta / 2) != 1, _sin((n + 0.5) * theta) / _sin(theta / 2), degenerate)


def _as(x: np.ndarray, value: np.ndarray | float) -> np.ndarray:
    return np.broadcast_to(np.asarray(value, dtype=x.dtype), x.shape)


def _chebyshev(kind: str, shifted: bool) -> Polynomial:
    """T, U, V or W; shifted ones are the same polynomials of y = 2x - 1, with PyTorch's own cut-offs for them."""

    def argument(x: np.ndarray) -> np.ndarray:
        return x + x - 1 if shifted else x

    firsts = {"t": lambda y: y, "u": lambda y: y + y, "v": lambda y: y + y - 1, "w": lambda y: y + y + 1}

    def special(x: np.ndarray, n: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        y = argument(x)
        f = n.astype(x.dtype)
        odd_plus, two_n_plus = _as(x, f + 1), _as(x, f + f + 1)
        end_values = {
            "t": (_as(x, 1), _as(x, 1), _as(x, -1)),
            "u": (odd_plus, odd_plus, -odd_plus),
            "v": (_as(x, 1), two_n_plus, -two_n_plus),
            "w": (two_n_plus, _as(x, 1), _as(x, -1)),
        }[kind]
        ends = _ends(x, n, *end_values, plus=1.0, minus=0.0) if shifted else _ends(x, n, *end_values)
        above = {"t": 6, "u": 6 if shifted else 8, "v": 6 if shifted else 8, "w": 4 if shifted else 8}[kind]
        inside = (n > above) & (np.abs(y) < 1)
        if kind == "t":
            closed = _cos(f * _acos(y))
        elif kind == "u":
            closed = _u_closed(y, f)
        elif kind == "v":
            closed = _v_closed(y, f)
        else:  # PyTorch's shifted W has no y > 0 case at its degenerate point
            closed = _w_closed(y, f, None if shifted else two_n_plus)
        return [*ends, (inside, closed)]

    return Polynomial(lambda x: firsts[kind](argument(x)), lambda i, x, p, q: (argument(x) + argument(x)) * q - p, special)


def _hermite_h_step(i: np.ndarray, x: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return (x + x) * q - (i + i) * p


def _hermite_he_step(i: np.ndarray, x: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return x * q - i * p


def _laguerre_step(i: np.ndarray, x: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return (((i + i) + (1 - x)) * q - i * p) / (i + 1)


def _legendre_step(i: np.ndarray, x: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return ((i + i + 1) * x * q - i * p) / (i + 1)


_HERMITE_LIMIT = {"float32": 128, "float64": 512}  # PyTorch's getHermitianLimit

_POLYNOMIALS = {
    **{f"chebyshev_polynomial_{k}": _chebyshev(k, shifted=False) for k in "tuvw"},
    **{f"shifted_chebyshev_polynomial_{k}": _chebyshev(k, shifted=True) for k in "tuvw"},
    "hermite_polynomial_h": Polynomial(lambda x: x + x, _hermite_h_step, nan_above=_HERMITE_LIMIT),
    "hermite_polynomial_he": Polynomial(lambda x: x, _hermite_he_step, nan_above=_HERMITE_LIMIT),
    "laguerre_polynomial_l": Polynomial(
        lambda x: 1 - x, _laguerre_step, lambda x, n: [(x == 0, np.ones_like(x))]),
    "legendre_polynomial_p": Polynomial(
        lambda x: x, _legendre_step, lambda x, n: _ends(x, n, _as(x, 1), _as(x, 1), _as(x, -1))),
}

# -- what this module exports (collected by ops/__init__.py) ----------------------------------------------------
FUNCTIONS: dict[str, Callable[..., Tensor]] = {name: _polynomial(name, poly) for name, poly in _POLYNOMIALS.items()}
METHODS: dict[str, Callable[..., Tensor]] = {}
INPLACE: tuple[str, ...] = ()
