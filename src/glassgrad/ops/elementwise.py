"""Elementwise ops: forward on NumPy, derivatives as table entries written in glassgrad ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtype
from .._dtype import dtype, result_type
from ..tensor import Tensor
from .table import derivative

Operand = Tensor | float | int | bool


def as_tensor_operand(x: Operand, like: dtype) -> Tensor:
    """Python scalars join the graph as 0-d tensors (PyTorch's wrapped numbers)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (bool, int, float, np.number, np.bool_)):
        scalar_dtype = like if like.is_floating_point and not isinstance(x, (bool, int, np.integer)) else _dtype.result_type(x)
        return Tensor._wrap(np.asarray(x, dtype=scalar_dtype.np))
    raise TypeError(f"expected a Tensor or a Python number, got {type(x).__name__}")


def _cast(array: np.ndarray, target: dtype) -> np.ndarray:
    return array if array.dtype == target.np else array.astype(target.np)


def _binary(entry: Any, np_fn: Any, input: Operand, other: Operand, out_dtype: dtype | None = None, **attrs: Any) -> Tensor:
    common = result_type(input, other)
    a = as_tensor_operand(input, common)
    b = as_tensor_operand(other, common)
    out = np_fn(_cast(a._data, common), _cast(b._data, common))
    if out_dtype is not None:
        out = _cast(np.asarray(out), out_dtype)
    return entry.record(out, (a, b), **attrs)


def _float_operand(x: Tensor) -> tuple[np.ndarray, dtype]:
    """Integer inputs of float functions (exp, sin, ...) compute in the default float dtype."""
    d = x.dtype
    if d.is_floating_point:
        return x._data, d
    target = _dtype.get_default_dtype()
    return x._data.astype(target.np), target


def _unary(entry: Any, np_fn: Any, x: Tensor, **attrs: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{entry.name.removesuffix('Backward0').lower()}(): argument 'input' must be Tensor, not {type(x).__name__}")
    data, _ = _float_operand(x)
    return entry.record(np_fn(data), (x,), **attrs)


# -- arithmetic ----------------------------------------------------------------
AddBackward0 = derivative(
    "AddBackward0", ("self", "other"),
    self=lambda grad: grad,
    other=lambda grad, alpha: grad if alpha == 1 else grad * alpha,
)
SubBackward0 = derivative(
    "SubBackward0", ("self", "other"),
    self=lambda grad: grad,
    other=lambda grad, alpha: -grad if alpha == 1 else grad * -alpha,
)
MulBackward0 = derivative(
    "MulBackward0", ("self", "other"),
    self=lambda grad, other: grad * other,
    other=lambda grad, self: grad * self,
)
DivBackward0 = derivative(
    "DivBackward0", ("self", "other"),
    self=lambda grad, other: grad / other,
    other=lambda grad, self, other: -grad * self / (other * other),
)
RsubBackward1 = derivative(
    "RsubBackward1", ("self", "other"), self=lambda grad, alpha: -grad if alpha == 1 else grad * -alpha
)
# PyTorch names the overload: 0 for a Python-number divisor, 1 for a tensor divisor.
RemainderBackward0 = derivative("RemainderBackward0", ("self", "other"), self=lambda grad: grad)
RemainderBackward1 = derivative(
    "RemainderBackward1", ("self", "other"),
    self=lambda grad: grad,
    other=lambda grad, self, other: -grad * div(self, other, rounding_mode="floor"),
)
NegBackward0 = derivative("NegBackward0", self=lambda grad: -grad)
PowBackward0 = derivative(
    "PowBackward0", ("self",),
    self=lambda grad, self, exponent: grad * 0 if exponent == 0 else grad * exponent * pow(self, exponent - 1),
)
PowBackward1 = derivative(
    "PowBackward1", ("self", "exponent"),
    self=lambda grad, self, exponent: where(exponent == 0, 0.0, grad * exponent * pow(self, exponent - 1)),
    exponent=lambda grad, self, result: _pow_exponent_grad(grad, self, result),
)
PowBackward2 = derivative(  # a Python-number base
    "PowBackward2", ("self", "exponent"), exponent=lambda grad, self, result: _pow_exponent_grad(grad, self, result)
)


def _pow_exponent_grad(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    return where((self == 0) & (result == 0), 0.0, grad * result * log(self))


def _not_implemented(op: str) -> Any:
    """PyTorch records a node for ops without a derivative and raises only when backward reaches it."""

    def formula(grad: Tensor) -> Tensor:
        raise RuntimeError(f"derivative for aten::{op} is not implemented")

    return formula


FloorDivideBackward = derivative(
    "NotImplemented", ("self", "other"), self=_not_implemented("floor_divide"), other=_not_implemented("floor_divide")
)
ScalarRemainderBackward = derivative(
    "NotImplemented", ("self", "other"), self=_not_implemented("remainder"), other=_not_implemented("remainder")
)
ToCopyBackward0 = derivative("ToCopyBackward0", self=lambda grad: grad)


def add(input: Operand, other: Operand, *, alpha: float = 1) -> Tensor:
    if alpha == 1:
        return _binary(AddBackward0, np.add, input, other, alpha=alpha)
    return _binary(AddBackward0, lambda a, b: a + alpha * b, input, other, alpha=alpha)


def sub(input: Operand, other: Operand, *, alpha: float = 1) -> Tensor:
    if isinstance(input, Tensor) and input.dtype is _dtype.bool_ and isinstance(other, Tensor) and other.dtype is _dtype.bool_:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if alpha == 1:
        return _binary(SubBackward0, np.subtract, input, other, alpha=alpha)
    return _binary(SubBackward0, lambda a, b: a - alpha * b, input, other, alpha=alpha)


def rsub(input: Tensor, other: Operand, *, alpha: float = 1) -> Tensor:
    if isinstance(other, Tensor):
        return sub(other, input, alpha=alpha)
    return _binary(RsubBackward1, lambda a, b: b - alpha * a, input, other, alpha=alpha)


def mul(input: Operand, other: Operand) -> Tensor:
    return _binary(MulBackward0, np.multiply, input, other)


def div(input: Operand, other: Operand, *, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is None:
        common = result_type(input, other)
        target = common if common.is_floating_point else _dtype.get_default_dtype()
        with np.errstate(divide="ignore", invalid="ignore"):
            return _binary(DivBackward0, np.true_divide, input, other, out_dtype=target)
    if rounding_mode == "floor":
        return _binary(DivBackward2, _floor_div, input, other)
    if rounding_mode == "trunc":
        with np.errstate(divide="ignore", invalid="ignore"):
            return _binary(DivBackward2, _trunc_div, input, other)
    raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")


def _trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.issubdtype(a.dtype, np.integer):
        _check_integer_divisor(b)
        q = np.abs(a) // np.abs(b)
        return np.where((a < 0) ^ (b < 0), -q, q).astype(a.dtype)
    return np.trunc(a / b)


def _check_integer_divisor(b: np.ndarray) -> None:
    if np.issubdtype(b.dtype, np.integer) and np.any(b == 0):
        raise ZeroDivisionError("ZeroDivisionError")


# Rounding division is differentiable (zero almost everywhere); floor_divide, oddly, is not.
DivBackward2 = derivative("DivBackward2", ("self", "other"), self=lambda grad: grad * 0, other=lambda grad: grad * 0)
def _floor_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    _check_integer_divisor(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.floor_divide(a, b)


def floor_divide(input: Operand, other: Operand) -> Tensor:
    return _binary(FloorDivideBackward, _floor_div, input, other)


def remainder(input: Operand, other: Operand) -> Tensor:
    def kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _check_integer_divisor(b)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.remainder(a, b)

    entry = RemainderBackward1 if isinstance(other, Tensor) else RemainderBackward0
    return _binary(entry if isinstance(input, Tensor) else ScalarRemainderBackward, kernel, input, other)


def neg(input: Tensor) -> Tensor:
    if input.dtype is _dtype.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return NegBackward0.record(np.negative(input._data), (input,))


def pow(input: Operand, exponent: Operand) -> Tensor:
    if isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        common = result_type(input, exponent)
        if not common.is_floating_point and isinstance(exponent, int) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.power(_cast(input._data, common), exponent)
        return PowBackward0.record(_cast(np.asarray(out), common), (input,), exponent=exponent)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _binary(PowBackward1 if isinstance(input, Tensor) else PowBackward2, np.power, input, exponent)


def to_dtype(input: Tensor, target: dtype) -> Tensor:
    """A differentiable cast (ToCopyBackward0); integer targets end the graph."""
    return ToCopyBackward0.record(input._data.astype(target.np), (input,))


# -- unary math ----------------------------------------------------------------
ExpBackward0 = derivative("ExpBackward0", self=lambda grad, result: grad * result)
LogBackward0 = derivative("LogBackward0", self=lambda grad, self: grad / self)
SqrtBackward0 = derivative("SqrtBackward0", self=lambda grad, result: grad / (2 * result))
AbsBackward0 = derivative("AbsBackward0", self=lambda grad, self: grad * sign(self))
SinBackward0 = derivative("SinBackward0", self=lambda grad, self: grad * cos(self))
CosBackward0 = derivative("CosBackward0", self=lambda grad, self: grad * -sin(self))
TanhBackward0 = derivative("TanhBackward0", self=lambda grad, result: grad * (1 - result * result))
SigmoidBackward0 = derivative("SigmoidBackward0", self=lambda grad, result: grad * (result * (1 - result)))
ReluBackward0 = derivative("ReluBackward0", self=lambda grad, result: grad * (result > 0))
SignBackward0 = derivative("SignBackward0", self=lambda grad: grad * 0)
ReciprocalBackward0 = derivative("ReciprocalBackward0", self=lambda grad, result: -grad * (result * result))


def exp(input: Tensor) -> Tensor:
    return _unary(ExpBackward0, np.exp, input)


def log(input: Tensor) -> Tensor:
    with np.errstate(divide="ignore", invalid="ignore"):
        return _unary(LogBackward0, np.log, input)


def sqrt(input: Tensor) -> Tensor:
    with np.errstate(invalid="ignore"):
        return _unary(SqrtBackward0, np.sqrt, input)


def reciprocal(input: Tensor) -> Tensor:
    with np.errstate(divide="ignore"):
        return _unary(ReciprocalBackward0, np.reciprocal, input)


def rdiv(input: Tensor, other: Operand) -> Tensor:
    """`number / tensor`, which PyTorch computes as `tensor.reciprocal() * number`."""
    if isinstance(other, Tensor):
        return div(other, input)
    return mul(reciprocal(input), other)


def sin(input: Tensor) -> Tensor:
    return _unary(SinBackward0, np.sin, input)


def cos(input: Tensor) -> Tensor:
    return _unary(CosBackward0, np.cos, input)


def tanh(input: Tensor) -> Tensor:
    return _unary(TanhBackward0, np.tanh, input)


def _stable_sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def sigmoid(input: Tensor) -> Tensor:
    return _unary(SigmoidBackward0, _stable_sigmoid, input)


def abs(input: Tensor) -> Tensor:
    return AbsBackward0.record(np.abs(input._data), (input,))


def sign(input: Tensor) -> Tensor:
    return SignBackward0.record(np.sign(input._data), (input,))


def relu(input: Tensor) -> Tensor:
    return ReluBackward0.record(np.maximum(input._data, 0).astype(input._data.dtype, copy=False), (input,))


# -- clamp and where -----------------------------------------------------------
ClampBackward1 = derivative(
    "ClampBackward1", ("self",),
    self=lambda grad, self, min, max: grad * _within(self, min, max),
)
WhereBackward0 = derivative(
    "WhereBackward0", ("self", "other"),
    self=lambda grad, condition: where(condition, grad, 0.0),
    other=lambda grad, condition: where(condition, 0.0, grad),
)


def _within(x: Tensor, low: float | None, high: float | None) -> Tensor:
    inside = x == x if low is None else x >= low
    return inside if high is None else inside & (x <= high)


def clamp(input: Tensor, min: float | None = None, max: float | None = None) -> Tensor:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        low = input if min is None else maximum(input, min)
        return low if max is None else minimum(low, max)
    common = result_type(input, *(b for b in (min, max) if b is not None))
    out = np.clip(_cast(input._data, common), min, max)
    return ClampBackward1.record(_cast(out, common), (input,), min=min, max=max)


def where(condition: Tensor, input: Operand, other: Operand) -> Tensor:
    if not isinstance(condition, Tensor) or condition.dtype is not _dtype.bool_:
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{getattr(condition, 'dtype', type(condition).__name__)}"
        )
    return _binary(WhereBackward0, lambda a, b: np.where(condition._data, a, b), input, other, condition=condition)


MaximumBackward0 = derivative(
    "MaximumBackward0", ("self", "other"),
    self=lambda grad, self, other: grad * _tie_share(self > other, self == other),
    other=lambda grad, self, other: grad * _tie_share(other > self, self == other),
)
MinimumBackward0 = derivative(
    "MinimumBackward0", ("self", "other"),
    self=lambda grad, self, other: grad * _tie_share(self < other, self == other),
    other=lambda grad, self, other: grad * _tie_share(other < self, self == other),
)


def _tie_share(wins: Tensor, ties: Tensor) -> Tensor:
    """1 where this side wins, 1/2 on a tie (PyTorch splits the gradient evenly)."""
    return wins.to(_dtype.get_default_dtype()) + ties.to(_dtype.get_default_dtype()) * 0.5


def maximum(input: Tensor, other: Tensor) -> Tensor:
    return _binary(MaximumBackward0, np.maximum, input, other)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    return _binary(MinimumBackward0, np.minimum, input, other)


# -- comparisons and logic (never differentiable) --------------------------------
def _compare(np_fn: Any, input: Operand, other: Operand) -> Tensor:
    common = result_type(input, other)
    a = input._data if isinstance(input, Tensor) else input
    b = other._data if isinstance(other, Tensor) else other
    return Tensor._wrap(np.asarray(np_fn(_cast(np.asarray(a), common), _cast(np.asarray(b), common))))


def eq(input: Operand, other: Operand) -> Tensor:
    return _compare(np.equal, input, other)


def ne(input: Operand, other: Operand) -> Tensor:
    return _compare(np.not_equal, input, other)


def lt(input: Operand, other: Operand) -> Tensor:
    return _compare(np.less, input, other)


def le(input: Operand, other: Operand) -> Tensor:
    return _compare(np.less_equal, input, other)


def gt(input: Operand, other: Operand) -> Tensor:
    return _compare(np.greater, input, other)


def ge(input: Operand, other: Operand) -> Tensor:
    return _compare(np.greater_equal, input, other)


def _bitwise(np_fn: Any, input: Operand, other: Operand) -> Tensor:
    common = result_type(input, other)
    if common.is_floating_point:
        raise RuntimeError(f"\"{np_fn.__name__}_cpu\" not implemented for '{common.name.capitalize()}'")
    return _compare(np_fn, input, other)


def bitwise_and(input: Operand, other: Operand) -> Tensor:
    return _bitwise(np.bitwise_and, input, other)


def bitwise_or(input: Operand, other: Operand) -> Tensor:
    return _bitwise(np.bitwise_or, input, other)


def bitwise_xor(input: Operand, other: Operand) -> Tensor:
    return _bitwise(np.bitwise_xor, input, other)


def bitwise_not(input: Tensor) -> Tensor:
    if input.dtype.is_floating_point:
        raise RuntimeError(f"\"bitwise_not_cpu\" not implemented for '{input.dtype.name.capitalize()}'")
    return Tensor._wrap(np.invert(input._data))


def logical_not(input: Tensor) -> Tensor:
    return Tensor._wrap(np.logical_not(input._data))


def isnan(input: Tensor) -> Tensor:
    return Tensor._wrap(np.isnan(input._data))


def isfinite(input: Tensor) -> Tensor:
    return Tensor._wrap(np.isfinite(input._data))


# -- what this module exports (collected by ops/__init__.py) --------------------------------
_ARITHMETIC = {
    "add": add, "sub": sub, "mul": mul, "div": div, "floor_divide": floor_divide, "remainder": remainder,
    "neg": neg, "pow": pow, "exp": exp, "log": log, "sqrt": sqrt, "reciprocal": reciprocal, "sin": sin, "cos": cos,
    "tanh": tanh, "sigmoid": sigmoid, "abs": abs, "sign": sign, "relu": relu, "clamp": clamp, "maximum": maximum,
    "minimum": minimum, "eq": eq, "ne": ne, "lt": lt, "le": le, "gt": gt, "ge": ge, "bitwise_and": bitwise_and,
    "bitwise_or": bitwise_or, "bitwise_xor": bitwise_xor, "bitwise_not": bitwise_not, "logical_not": logical_not,
    "isnan": isnan, "isfinite": isfinite,
    # PyTorch's aliases
    "clip": clamp, "negative": neg, "multiply": mul, "subtract": sub, "divide": div, "true_divide": div,
    "absolute": abs,
}
FUNCTIONS = {**_ARITHMETIC, "rsub": rsub, "where": where}
METHODS = {
    **_ARITHMETIC,
    "where": lambda self, condition, other: where(condition, self, other),
}
INPLACE = (
    "add", "sub", "mul", "div", "floor_divide", "remainder", "neg", "pow", "exp", "log", "sqrt", "reciprocal", "sin",
    "cos", "tanh", "sigmoid", "abs", "sign", "relu", "clamp", "clip",
)
