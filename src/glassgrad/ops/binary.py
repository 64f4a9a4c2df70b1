"""Multi-input math: atan2, hypot, logaddexp, logaddexp2, ldexp, nextafter, heaviside, copysign, clamp_min, clamp_max,
fmax, fmin, lerp, addcmul, addcdiv.

maximum, minimum and xlogy are registered here but defined in elementwise.py, where losses.py and
reduction.py import them from.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from .._dtype import result_type
from ..tensor import Tensor
from .elementwise import (
    _TYPE_NAMES,
    Kernel,
    Operand,
    _binary,
    _cast,
    _not_implemented,
    _run,
    _zero,
    deprecated_overload,
    exp,
    exp2,
    not_implemented_for,
    pow,
    refuse_barebones,
    require_tensor,
    where,
)
from .logic import isnan
from .table import Derivative, NoForwardAD, derivative


def _tensor_binary(name: str, entry: Derivative, kernel: Kernel) -> Callable[[Tensor, Tensor], Tensor]:
    # fmax and fmin run PyTorch's maximum and minimum kernels for integer dtypes, and so are refused under those names
    refused = {"fmax": "maximum", "fmin": "minimum"}.get(name, name) + "_cpu"

    def op(input: Tensor, other: Tensor) -> Tensor:
        require_tensor(name, "input", 1, input)
        refuse_barebones(refused, input, other)
        return _binary(entry, kernel, input, require_tensor(name, "other", 2, other))

    op.__name__ = op.__qualname__ = name
    return op


# -- xlogy ------------------------
# PyTorch's overloads: 0 for two tensors, 1 for a Python-number self, 2 for a Python-number other.
XlogyBackward0 = derivative(
    "XlogyBackward0", ("self", "other"),
    self=lambda grad, self, other: _xlogy_self_grad(grad, self, other),
    other=lambda grad, self, other: grad * self / other,
)
XlogyBackward1 = derivative("XlogyBackward1", ("self", "other"), other=lambda grad, self, other: grad * self / other)
XlogyBackward2 = derivative("XlogyBackward2", ("self", "other"), self=lambda grad, self, other: _xlogy_self_grad(grad, self, other))


def _xlogy_self_grad(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    # log(other), except where both 0 * log(other) and its neighbours are 0 (PyTorch's subgradient).
    return where((self == 0) & (other <= 0), 0.0, xlogy(grad, other))


def _xlogy(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # 0 * log(y) is 0 even where log(y) is infinite, but nan in y stays nan.
    return np.where(np.isnan(b), b, np.where(a == 0, 0, a * np.log(b)))


def xlogy(input: Operand, other: Operand) -> Tensor:
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("xlogy(): expected at least one of 'input' and 'other' to be a Tensor")
    entry = XlogyBackward1 if not isinstance(input, Tensor) else XlogyBackward0 if isinstance(other, Tensor) else XlogyBackward2
    return _binary(entry, _xlogy, input, other, to_float=True)


# -- maximum, minimum ---------------------------------------------------------------------
def _share(grad: Tensor, self: Tensor, other: Tensor, loses: Tensor) -> Tensor:
    """maximum/minimum: all of grad to the winner, half to each side of a tie (nan wins on both sides)."""
    return where(loses, 0.0, where(self == other, grad / 2, grad))


MaximumBackward0 = derivative(
    "MaximumBackward0", ("self", "other"),
    self=lambda grad, self, other: _share(grad, self, other, self < other),
    other=lambda grad, self, other: _share(grad, self, other, self > other),
)
MinimumBackward0 = derivative(
    "MinimumBackward0", ("self", "other"),
    self=lambda grad, self, other: _share(grad, self, other, self > other),
    other=lambda grad, self, other: _share(grad, self, other, self < other),
)
maximum = _tensor_binary("maximum", MaximumBackward0, np.maximum)
minimum = _tensor_binary("minimum", MinimumBackward0, np.minimum)


# -- atan2, hypot, logaddexp ----------------------------------------------------------------
def _atan2_scale(self: Tensor, other: Tensor) -> Tensor:
    """1 / (self² + other²), and 0 at the origin: PyTorch gives atan2 a zero gradient there, not 0 * inf."""
    squared = self * self + other * other
    return where(squared == 0, 0.0, squared.reciprocal())


Atan2Backward0 = derivative(
    "Atan2Backward0", ("self", "other"),
    self=lambda grad, self, other: grad * other * _atan2_scale(self, other),
    other=lambda grad, self, other: grad * -self * _atan2_scale(self, other),
)
HypotBackward0 = derivative(
    "HypotBackward0", ("self", "other"),
    self=lambda grad, self, result: grad * self / result,
    other=lambda grad, other, result: grad * other / result,
)
LogaddexpBackward0 = derivative(
    "LogaddexpBackward0", ("self", "other"),
    self=lambda grad, self, other: grad / (1 + exp(other - self)),
    other=lambda grad, self, other: grad / (1 + exp(self - other)),
)
Logaddexp2Backward0 = derivative(
    "Logaddexp2Backward0", ("self", "other"),
    self=lambda grad, self, other: grad / (1 + pow(2, other - self)),
    other=lambda grad, self, other: grad / (1 + pow(2, self - other)),
)


def _float_binary(name: str, entry: Derivative, kernel: Kernel, integers: bool) -> Callable[[Tensor, Tensor], Tensor]:
    """atan2, hypot, logaddexp: two tensors; integer inputs become floats (`integers`) or are refused."""

    def op(input: Tensor, other: Tensor) -> Tensor:
        require_tensor(name, "input", 1, input)
        require_tensor(name, "other", 2, other)
        common = result_type(input, other)
        if not (integers or common.is_floating_point):
            raise not_implemented_for(f"{name}_cpu", common)
        return _binary(entry, kernel, input, other, to_float=True)

    op.__name__ = op.__qualname__ = name
    return op


def _powers_of_two(other: Tensor, like: Tensor) -> Tensor:
    # PyTorch's formula raises 2 to an integer exponent in integer arithmetic, where a negative power is 0.
    scale = exp2(other.to(like.dtype))
    return scale if other.dtype.is_floating_point else where(other < 0, 0.0, scale)


LdexpBackward0 = derivative(
    "LdexpBackward0", ("self", "other"),
    self=lambda grad, other: grad * _powers_of_two(other, grad),
    other=lambda grad, result: grad * result * math.log(2),
)
# Where self == other the result is other, and PyTorch gives self no gradient there.
NextafterBackward0 = derivative(
    "NextafterBackward0", ("self", "other"), self=lambda grad, self, other: where(self == other, 0.0, grad), other=_zero
)


atan2 = _float_binary("atan2", Atan2Backward0, np.arctan2, integers=True)
hypot = _float_binary("hypot", HypotBackward0, np.hypot, integers=False)
logaddexp = _float_binary("logaddexp", LogaddexpBackward0, np.logaddexp, integers=False)
logaddexp2 = _float_binary("logaddexp2", Logaddexp2Backward0, np.logaddexp2, integers=False)
_ldexp = _float_binary("ldexp", LdexpBackward0, lambda a, b: a * np.exp2(b), integers=True)
_RESIZE_WARNING = (
    "An output with one or more elements was resized since it had shape [{}], which does not match the required output "
    "shape [{}]. This behavior is deprecated, and in a future PyTorch release outputs will not be resized unless they "
    "have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
    "t.resize_(0)."
)


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """input * 2 ** other. A float input with an integer exponent takes PyTorch's own kernel, which writes into an
    output shaped like the input: it refuses a bool exponent and warns when broadcasting resizes that output."""
    own_kernel = (
        isinstance(input, Tensor) and isinstance(other, Tensor)
        and input.dtype.is_floating_point and not other.dtype.is_floating_point
    )
    if own_kernel and other.dtype is _dtype.bool_:
        raise not_implemented_for("ldexp_cpu_exp", other.dtype)
    out = _ldexp(input, other)
    if own_kernel and out.shape != input.shape and input.numel():
        shapes = (", ".join(map(str, s)) for s in (input.shape, out.shape))
        warnings.warn(_RESIZE_WARNING.format(*shapes), UserWarning, stacklevel=2)
    return out


nextafter = _float_binary("nextafter", NextafterBackward0, np.nextafter, integers=False)


# -- heaviside ---------------------------------------------------------------------------------
def _step(x: np.ndarray, values: np.ndarray) -> np.ndarray:
    # A NaN input is not above 0, so it steps to 0, as in PyTorch's kernel.
    return np.where(x == 0, values, x > 0).astype(x.dtype, copy=False)


def _heaviside(aten_name: str) -> Callable[[Tensor, Tensor], Tensor]:
    """heaviside, or what heaviside_ computes: PyTorch records a node whose backward raises, naming the op."""
    no_derivative = _not_implemented(aten_name)
    entry = derivative("NotImplemented", ("self", "values"), self=no_derivative, values=no_derivative,
                       jvp=NoForwardAD(f"aten::{aten_name}"))

    def heaviside(input: Tensor, values: Tensor) -> Tensor:
        require_tensor("heaviside", "input", 1, input)
        if require_tensor("heaviside", "values", 2, values).dtype is not input.dtype:
            raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
        return _binary(entry, _step, input, values)

    return heaviside


heaviside = _heaviside("heaviside")


# -- copysign, clamp_min, clamp_max ----------------------------------------------------------
# PyTorch names the overload: 0 for a Python-number `other`, 1 for a tensor. A number joins the node as a 0-d
# tensor that needs no grad, as in the other binary ops here.
def _copysign_self_grad(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    # result / self is the sign flip (+1 or -1); at self == 0 it is 0 / 0, and PyTorch's subgradient there is 0.
    return grad * where(self == 0, 0.0, result / self)


CopysignBackward0 = derivative("CopysignBackward0", ("self", "other"), self=_copysign_self_grad, other=_zero)
CopysignBackward1 = derivative("CopysignBackward1", ("self", "other"), self=_copysign_self_grad)


def _is_tensor_overload(op: str, arg: str, value: object) -> bool:
    """Whether `value` picks the Tensor overload rather than the Number one; anything else is PyTorch's TypeError."""
    if isinstance(value, Tensor):
        return True
    if not isinstance(value, (bool, int, float)):
        raise TypeError(
            f"{op}() received an invalid combination of arguments - got (Tensor, {type(value).__name__}), but expected "
            f"one of: (Tensor input, Tensor {arg}) or (Tensor input, Number {arg})"
        )
    return False


def copysign(input: Tensor, other: Operand) -> Tensor:
    require_tensor("copysign", "input", 1, input)
    entry = CopysignBackward0 if _is_tensor_overload("copysign", "other", other) else CopysignBackward1
    return _binary(entry, np.copysign, input, other, to_float=True)


# On a tie the input passes and takes the gradient, as in clamp.
ClampMinBackward0 = derivative("ClampMinBackward0", ("self", "min"), self=lambda grad, self, min: where(self >= min, grad, 0.0))
ClampMinBackward1 = derivative(
    "ClampMinBackward1", ("self", "min"),
    self=lambda grad, self, min: where(self >= min, grad, 0.0),
    min=lambda grad, self, min: where(self < min, grad, 0.0),
)
ClampMaxBackward0 = derivative("ClampMaxBackward0", ("self", "max"), self=lambda grad, self, max: where(self <= max, grad, 0.0))
ClampMaxBackward1 = derivative(
    "ClampMaxBackward1", ("self", "max"),
    self=lambda grad, self, max: where(self <= max, grad, 0.0),
    max=lambda grad, self, max: where(self > max, grad, 0.0),
)


def _clamp_one_side(op: str, arg: str, entries: tuple[Derivative, Derivative], ufunc: np.ufunc, input: Tensor, bound: Operand) -> Tensor:
    require_tensor(op, "input", 1, input)
    is_tensor = _is_tensor_overload(op, arg, bound)
    if not is_tensor and result_type(input, bound) is _dtype.bool_:
        raise not_implemented_for(f"{op}_scalar_cpu", _dtype.bool_)
    # The bound first: NumPy's maximum and minimum keep their second operand on a tie, and PyTorch keeps the input
    # there (clamp_min(-0.0, 0.0) is -0.0); a NaN on either side wins.
    return _binary(entries[1] if is_tensor else entries[0], lambda x, b: ufunc(b, x), input, bound)


def clamp_min(input: Tensor, min: Operand) -> Tensor:
    return _clamp_one_side("clamp_min", "min", (ClampMinBackward0, ClampMinBackward1), np.maximum, input, min)


def clamp_max(input: Tensor, max: Operand) -> Tensor:
    return _clamp_one_side("clamp_max", "max", (ClampMaxBackward0, ClampMaxBackward1), np.minimum, input, max)


# -- fmax, fmin ----------------------------------------------------------------------------
def _keeps(self: Tensor, other: Tensor, wins: Tensor) -> Tensor:
    """fmax/fmin: `self` wins ties and wherever `other` is nan."""
    return wins | isnan(other)


FmaxBackward0 = derivative(
    "FmaxBackward0", ("self", "other"),
    self=lambda grad, self, other: where(_keeps(self, other, self >= other), grad, 0.0),
    other=lambda grad, self, other: where(_keeps(self, other, self >= other), 0.0, grad),
)
FminBackward0 = derivative(
    "FminBackward0", ("self", "other"),
    self=lambda grad, self, other: where(_keeps(self, other, self <= other), grad, 0.0),
    other=lambda grad, self, other: where(_keeps(self, other, self <= other), 0.0, grad),
)
fmax = _tensor_binary("fmax", FmaxBackward0, np.fmax)
fmin = _tensor_binary("fmin", FminBackward0, np.fmin)


# -- lerp, addcmul, addcdiv ------------------------------------------------------------------
LerpBackward0 = derivative(
    "LerpBackward0", ("self", "end"),
    self=lambda grad, weight: grad * (1 - weight),
    end=lambda grad, weight: grad * weight,
)
LerpBackward1 = derivative(
    "LerpBackward1", ("self", "end", "weight"),
    self=lambda grad, weight: grad * (1 - weight),
    end=lambda grad, weight: grad * weight,
    weight=lambda grad, self, end: grad * (end - self),
)
AddcmulBackward0 = derivative(
    "AddcmulBackward0", ("self", "tensor1", "tensor2"),
    self=lambda grad: grad,
    tensor1=lambda grad, tensor2, value: grad * (tensor2 * value),
    tensor2=lambda grad, tensor1, value: grad * (tensor1 * value),
)
AddcdivBackward0 = derivative(
    "AddcdivBackward0", ("self", "tensor1", "tensor2"),
    self=lambda grad: grad,
    tensor1=lambda grad, tensor2, value: grad * (value / tensor2),
    tensor2=lambda grad, tensor1, tensor2, value: -grad * (value * tensor1 / (tensor2 * tensor2)),
)


def _same_dtype(op: str, input: Tensor, arg: str, other: Tensor) -> None:
    if other.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {_TYPE_NAMES[input.dtype.name]} for `{arg}` but got dtype {_TYPE_NAMES[other.dtype.name]}")


def lerp(input: Tensor, end: Tensor, weight: Operand) -> Tensor:
    require_tensor("lerp", "input", 1, input)
    require_tensor("lerp", "end", 2, end)
    tensor_weight = isinstance(weight, Tensor)
    if not input.dtype.is_floating_point:
        raise not_implemented_for("lerp_kernel_tensor" if tensor_weight else "lerp_kernel_scalar", input.dtype)
    _same_dtype("lerp", input, "end", end)
    if isinstance(weight, Tensor) and weight.ndim:
        _same_dtype("lerp", input, "weight", weight)
    d = input.dtype
    w = _cast(weight._data, d) if isinstance(weight, Tensor) else weight
    # PyTorch's two-sided formula: exact at both ends of [0, 1].
    out = _run(lambda a, b, w: np.where(np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w)), input._data, end._data, w)
    if isinstance(weight, Tensor):
        return LerpBackward1.record(_cast(out, d), (input, end, weight))
    return LerpBackward0.record(_cast(out, d), (input, end), weight=weight)


def _addc(name: str, entry: Derivative, kernel: Kernel, input: Tensor, tensor1: Tensor, tensor2: Tensor, value: float) -> Tensor:
    for position, (arg, t) in enumerate((("input", input), ("tensor1", tensor1), ("tensor2", tensor2)), 1):
        require_tensor(name, arg, position, t)
    common = result_type(input, tensor1, tensor2)
    if not common.is_floating_point:
        value = int(value)  # PyTorch casts value to the integer result type
    arrays = (_cast(t._data, common) for t in (input, tensor1, tensor2))
    return entry.record(_cast(_run(lambda a, b, c: kernel(a, b, c, value), *arrays), common), (input, tensor1, tensor2), value=value)


def _value_first(name: str, tensor1: Any, tensor2: Any, rest: tuple[Any, ...], value: Any) -> tuple[Any, Any, Any]:
    """(tensor1, tensor2, value), also from the deprecated overload that PyTorch 2.13 still takes: name(input, value,
    tensor1, tensor2)."""
    if not rest:
        return tensor1, tensor2, value
    if len(rest) > 1:
        raise TypeError(f"{name}() takes from 3 to 4 positional arguments but {3 + len(rest)} were given")
    deprecated_overload(
        name, "Tensor input, Number value, Tensor tensor1, Tensor tensor2, *, Tensor out = None",
        "Tensor input, Tensor tensor1, Tensor tensor2, *, Number value = 1, Tensor out = None",
    )
    return tensor2, rest[0], tensor1


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *rest: Tensor, value: float = 1) -> Tensor:
    tensor1, tensor2, value = _value_first("addcmul", tensor1, tensor2, rest, value)
    return _addc("addcmul", AddcmulBackward0, lambda a, b, c, v: a + v * b * c, input, tensor1, tensor2, value)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *rest: Tensor, value: float = 1) -> Tensor:
    tensor1, tensor2, value = _value_first("addcdiv", tensor1, tensor2, rest, value)
    if isinstance(tensor1, Tensor) and isinstance(tensor2, Tensor) and not (tensor1.is_floating_point() or tensor2.is_floating_point()):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a true "
            "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes."
        )
    return _addc("addcdiv", AddcdivBackward0, lambda a, b, c, v: a + v * b / c, input, tensor1, tensor2, value)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
_BOTH: dict[str, Callable[..., Any]] = {
    "atan2": atan2, "hypot": hypot, "logaddexp": logaddexp, "logaddexp2": logaddexp2, "xlogy": xlogy,
    "maximum": maximum, "minimum": minimum, "fmax": fmax, "fmin": fmin, "lerp": lerp, "addcmul": addcmul,
    "addcdiv": addcdiv, "copysign": copysign, "clamp_min": clamp_min, "clamp_max": clamp_max,
    "ldexp": ldexp, "nextafter": nextafter, "heaviside": heaviside,
    "arctan2": atan2,  # PyTorch's alias
}
FUNCTIONS: dict[str, Callable[..., Any]] = dict(_BOTH)
METHODS: dict[str, Callable[..., Any]] = dict(_BOTH)
INPLACE: tuple[str, ...] = (
    "atan2", "arctan2", "hypot", "xlogy", "lerp", "addcmul", "addcdiv", "copysign", "clamp_min", "clamp_max", "ldexp",
    "nextafter", "heaviside",
)
INPLACE_FUNCTIONS: tuple[str, ...] = ("clamp_min", "clamp_max")
INPLACE_KERNELS: dict[str, Callable[..., Any]] = {"heaviside": _heaviside("heaviside_")}
