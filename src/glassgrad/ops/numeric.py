"""Elementwise math beyond elementwise.py: angle units (deg2rad, rad2deg), positive, float_power (computed in
double), frexp; and renorm, which rescales the slices of a tensor whose norm is too large."""

from __future__ import annotations

import collections
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from .elementwise import _float_unary, exp2, pow, reciprocal, require_tensor, where
from .reduction import _norm_backward, vector_norm
from .reduction import sum as reduce_sum
from .table import derivative

# -- angle units, positive -----------------------------------------------------------------------
_RADIANS_PER_DEGREE = math.pi / 180
Deg2RadBackward0 = derivative("Deg2RadBackward0", self=lambda grad: grad * _RADIANS_PER_DEGREE)
Rad2DegBackward0 = derivative("Rad2DegBackward0", self=lambda grad: grad / _RADIANS_PER_DEGREE)
deg2rad = _float_unary("deg2rad", Deg2RadBackward0, lambda x: x * _RADIANS_PER_DEGREE)
rad2deg = _float_unary("rad2deg", Rad2DegBackward0, lambda x: x * (180 / math.pi))


def positive(input: Tensor) -> Tensor:
    """The tensor itself (unary `+`), as in PyTorch; a bool tensor is refused."""
    if require_tensor("positive", "input", 1, input).dtype is _dtype.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# -- float_power -----------------------------------------------------------------------------------
def _in_double(op: str, x: Any) -> Any:
    if isinstance(x, Tensor):
        return x.to(_dtype.float64)
    if isinstance(x, (bool, int, float)):
        return float(x)
    raise TypeError(f"{op}(): expected a Tensor or a Python number, got {type(x).__name__}")


def float_power(input: Tensor | float, exponent: Tensor | float) -> Tensor:
    """pow in float64 whatever the operands' dtypes (PyTorch's composite: the node is pow's, after a cast)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError(
            f"float_power() received an invalid combination of arguments - got ({type(input).__name__}, "
            f"{type(exponent).__name__}), but expected one of: (Tensor input, Tensor exponent), "
            "(Number self, Tensor exponent), (Tensor input, Number exponent)"
        )
    return pow(_in_double("float_power", input), _in_double("float_power", exponent))


def _float_power_in_place(input: Tensor, exponent: Tensor | float) -> Tensor:
    # The result is double, and an in-place op cannot change a tensor's dtype.
    if input.dtype is not _dtype.float64:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {input.dtype.scalar_name} but the operation's result requires "
            "dtype Double"
        )
    return float_power(input, exponent)


# -- frexp -------------------------------------------------------------------------------------------
frexp_result = collections.namedtuple("frexp", ("mantissa", "exponent"), module="glassgrad.return_types")  # type: ignore[misc]
FrexpBackward0 = derivative("FrexpBackward0", self=lambda grad, exponent: grad / exp2(exponent.to(grad.dtype)))


def frexp(input: Tensor) -> Any:
    """(mantissa, exponent) with input = mantissa * 2**exponent, |mantissa| in [0.5, 1); the exponent is int32."""
    if not require_tensor("frexp", "input", 1, input).dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(input._data)
    exponent_t = Tensor._wrap(np.asarray(exponent, dtype=np.int32))
    return frexp_result(FrexpBackward0.record(np.asarray(mantissa), (input,), exponent=exponent_t), exponent_t)


# -- renorm ------------------------------------------------------------------------------------------
_RENORM_EPS = 1e-7  # PyTorch's: added to the norm before dividing by it


def _other_dims(input: Tensor, dim: int) -> tuple[int, ...]:
    return tuple(d for d in range(input.ndim) if d != dim)


def _renorm_grad(grad: Tensor, self: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    # PyTorch's renorm_backward: the derivative of self * maxnorm / (norm + eps) where the norm exceeds maxnorm.
    # A slice of zeros gets a nan second derivative from the 0 / 0 in norm_grad's own derivative, as in PyTorch.
    dims = _other_dims(self, dim)
    norm = vector_norm(self, p, dims, keepdim=True)
    norm_grad = _norm_backward(reduce_sum(self * grad, dims, keepdim=True), self, p, norm, dims, True)
    inverse = reciprocal(norm + _RENORM_EPS)
    return where(norm > maxnorm, inverse * maxnorm * (grad - inverse * norm_grad), grad)


RenormBackward0 = derivative("RenormBackward0", self=_renorm_grad)


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """Each slice input.select(dim, i) whose p-norm exceeds maxnorm, scaled down to norm maxnorm."""
    require_tensor("renorm", "input", 1, input)
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if not maxnorm >= 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    d = input._wrap_dim(dim)
    # float16 norms accumulate in float32, as PyTorch's do
    accumulate = _dtype.float32 if input.dtype is _dtype.float16 else None
    norm = vector_norm(input.detach(), p, _other_dims(input, d), keepdim=True, dtype=accumulate)._data
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(norm > maxnorm, maxnorm / (norm + _RENORM_EPS), 1).astype(input._data.dtype)
    return RenormBackward0.record(input._data * factor, (input,), p=p, dim=d, maxnorm=maxnorm)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
_BOTH: dict[str, Callable[..., Any]] = {
    "deg2rad": deg2rad, "rad2deg": rad2deg, "positive": positive, "float_power": float_power, "frexp": frexp,
    "renorm": renorm,
}
FUNCTIONS: dict[str, Callable[..., Any]] = dict(_BOTH)
METHODS: dict[str, Callable[..., Any]] = dict(_BOTH)
INPLACE: tuple[str, ...] = ("deg2rad", "rad2deg", "float_power", "renorm")
INPLACE_KERNELS: dict[str, Callable[..., Any]] = {"float_power": _float_power_in_place}
