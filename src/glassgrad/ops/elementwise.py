"""Elementwise ops: forward on NumPy, derivatives as table entries written in glassgrad ops."""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _device, _dtype, _layout, _native
from .. import _quiet as quiet
from .._dtype import dtype, result_type
from ..autograd.graph import wrapped_number
from ..tensor import _NDARRAY, Tensor
from .creation import zeros_like
from .out_variant import into
from .table import AUTO_ELEMENT_WISE, Derivative, derivative

Operand = Tensor | float | int | bool
Kernel = Callable[..., Any]

def not_implemented_for(kernel: str, d: dtype) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel}\" not implemented for '{d.scalar_name}'")


_U16, _U32, _U64 = (d.np for d in _dtype.BAREBONES)


def refuse_barebones(kernel: str, input: Any, other: Any = None) -> None:
    """PyTorch's kernels for add, comparisons, max and most others have no uint16/32/64 version: refuse as it does
    when the op would compute in one of them (uint16 + 1.5 computes in float32, and runs)."""
    # Identity tests (NumPy's native dtypes are singletons): this runs on every add, where a set lookup costs 0.1 us.
    a = input._data.dtype if isinstance(input, Tensor) else None
    b = other._data.dtype if isinstance(other, Tensor) else None
    if a is not _U16 and a is not _U32 and a is not _U64 and b is not _U16 and b is not _U32 and b is not _U64:
        return
    common = input.dtype if other is None else result_type(input, other)
    if common in _dtype.BAREBONES:
        raise not_implemented_for(kernel, common)


def require_tensor(op: str, arg: str, position: int, x: object) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{arg}' (position {position}) must be Tensor, not {type(x).__name__}")
    return x


def broadcast_shape(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """PyTorch's broadcast of `shapes`, raising its RuntimeError when they do not broadcast."""
    result: tuple[int, ...] = ()
    for shape in shapes:
        for i in range(1, min(len(result), len(shape)) + 1):
            a, b = result[-i], shape[-i]
            if a != b and a != 1 and b != 1:
                raise RuntimeError(
                    f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension "
                    f"{max(len(result), len(shape)) - i}"
                )
        result = np.broadcast_shapes(result, shape)
    return result


def _run(kernel: Kernel, *arrays: np.ndarray) -> np.ndarray:
    """Run a NumPy kernel quietly (inf and nan are values here, not warnings) with PyTorch's broadcast error."""
    return _run_on((kernel, *arrays))


def _run_on(call: tuple[Any, ...]) -> np.ndarray:
    # `_run` with the kernel and its arrays in one tuple: the ops of this module call it directly (compiled, a C call)
    try:
        out = quiet.run_kernel(call)
    except ValueError:
        broadcast_shape(*(np.shape(a) for a in call[1:]))
        raise
    return out if type(out) is _NDARRAY else np.asarray(out)  # ufuncs return NumPy scalars for 0-d inputs


def as_tensor_operand(x: Operand, like: dtype) -> Tensor:
    """Python scalars join the graph as 0-d tensors (PyTorch's wrapped numbers)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (bool, int, float, complex, np.number, np.bool_)):
        inexact = like.is_floating_point or like.is_complex
        scalar_dtype = like if inexact and not isinstance(x, (bool, int, np.integer)) else _dtype.result_type(x)
        return wrapped_number(np.asarray(x, dtype=scalar_dtype.np))
    raise TypeError(f"expected a Tensor or a Python number, got {type(x).__name__}")


def _cast(array: np.ndarray, target: dtype) -> np.ndarray:
    return array if array.dtype == target.np else array.astype(target.np)


def _floating(d: dtype) -> dtype:
    """Integer inputs of float functions (exp, atan2, ...) compute in the default float dtype."""
    return d if d.is_floating_point or d.is_complex else _dtype.get_default_dtype()


def _binary(entry: Derivative, kernel: Kernel, input: Operand, other: Operand, *, to_float: bool = False, **attrs: Any) -> Tensor:
    return _binary_with(entry, kernel, input, other, to_float, attrs)


def _binary_with(entry: Derivative, kernel: Kernel, input: Operand, other: Operand, to_float: bool, attrs: dict[str, Any]) -> Tensor:
    """`_binary` without its keywords: the ops of this module call it directly (compiled, a C call whose tensors'
    fields are read as struct members through the names elementwise.pxd types)."""
    if isinstance(input, Tensor):
        first = input
        a = first._data
        a_dtype = a.dtype
        if isinstance(other, Tensor):
            second = other
            b = second._data
            if a_dtype is b.dtype and (not to_float or a_dtype.kind == "f"):  # nothing to promote: the hot path
                return _record(entry, _run_on((kernel, a, b)), (input, other), attrs)
        elif type(other) is float and a_dtype.kind == "f":  # `x * 0.5`: the scalar joins in the tensor's dtype
            scalar = wrapped_number(np.asarray(other, dtype=a_dtype))
            return _record(entry, _run_on((kernel, a, scalar._data)), (input, scalar), attrs)
    common = result_type(input, other)
    if to_float:
        common = _floating(common)
    first = as_tensor_operand(input, common)
    second = as_tensor_operand(other, common)
    return _record(entry, _run_on((kernel, _cast(first._data, common), _cast(second._data, common))), (first, second), attrs)


def _record(entry: Derivative, out: np.ndarray, inputs: tuple[Tensor, ...], attrs: dict[str, Any]) -> Tensor:
    # entry.record(out, inputs, **attrs) would build a new dict of attributes in the callee on every call
    return entry._record(out, inputs, attrs)


_NO_ATTRIBUTES: dict[str, Any] = {}  # read only (Derivative._record keeps values from it, never the dict)


def _float_unary(name: str, entry: Derivative, kernel: Kernel) -> Callable[[Tensor], Tensor]:
    """A function like exp: any dtype in, a floating result (the default dtype for integer inputs)."""

    def op(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        if out is not None:
            return into(out, op, input)
        return _float_result(name, entry, kernel, input)

    op.__name__ = op.__qualname__ = name
    return op


def _float_result(name: str, entry: Derivative, kernel: Kernel, input: Tensor) -> Tensor:
    if isinstance(input, Tensor):
        tensor = input  # a name elementwise.pxd types: its array is read as a struct member when compiled
        data = tensor._data
        real = data.dtype
        if real.kind == "f":  # the hot path: float in, the same float out
            out = _run_on((kernel, data))
            return entry._record_real(out if out.dtype is real else out.astype(real), (input,), _NO_ATTRIBUTES)
    target = _floating(require_tensor(name, "input", 1, input).dtype)
    return _record(entry, _cast(_run(kernel, _cast(input._data, target)), target), (input,), _NO_ATTRIBUTES)


def _exact_unary(name: str, entry: Derivative, kernel: Kernel, rejects: tuple[int, ...], kernel_name: str) -> Callable[[Tensor], Tensor]:
    """A function like floor: the result keeps the input's dtype; `rejects` are the dtype categories PyTorch refuses."""

    def op(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        if out is not None:
            return into(out, op, input)
        d = require_tensor(name, "input", 1, input).dtype
        if d._category in rejects:
            raise not_implemented_for(kernel_name, d)
        return entry.record(_cast(_run(kernel, input._data), d), (input,))

    op.__name__ = op.__qualname__ = name
    return op


def _scipy(name: str) -> Kernel:
    def kernel(*arrays: np.ndarray) -> np.ndarray:
        from scipy import special  # SciPy has the error-function family NumPy lacks

        return getattr(special, name)(*arrays)

    return kernel


def _not_implemented(op: str) -> Callable[[Tensor], Tensor]:
    """PyTorch records a node for ops without a derivative and raises only when backward reaches it."""

    def formula(grad: Tensor) -> Tensor:
        raise RuntimeError(f"derivative for aten::{op} is not implemented")

    return formula


def _zero(grad: Tensor) -> Tensor:
    return zeros_like(grad)


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
RsubBackward1 = derivative(
    "RsubBackward1", ("self", "other"), self=lambda grad, alpha: -grad if alpha == 1 else grad * -alpha
)
MulBackward0 = derivative(
    "MulBackward0", ("self", "other"),
    self=lambda grad, other: grad * other,
    other=lambda grad, self: grad * self,
)
DivBackward0 = derivative(
    "DivBackward0", ("self", "other"),
    self=lambda grad, other: grad / other,
    other=lambda grad, self, other: -grad * ((self / other) / other),  # PyTorch's order: other * other underflows
)
# Rounding division is differentiable (zero everywhere); floor_divide, oddly, is not.
DivBackward2 = derivative("DivBackward2", ("self", "other"), self=_zero, other=_zero)
FloorDivideBackward = derivative(
    "NotImplemented", ("self", "other"), self=_not_implemented("floor_divide"), other=_not_implemented("floor_divide")
)
# PyTorch names the overload: 0 for a Python-number divisor, 1 for a tensor divisor.
RemainderBackward0 = derivative("RemainderBackward0", ("self", "other"), self=lambda grad: grad)
RemainderBackward1 = derivative(
    "RemainderBackward1", ("self", "other"),
    self=lambda grad: grad,
    other=lambda grad, self, other: -grad * div(self, other, rounding_mode="floor"),
)
ScalarRemainderBackward = derivative(
    "NotImplemented", ("self", "other"), self=_not_implemented("remainder"), other=_not_implemented("remainder")
)
FmodBackward0 = derivative("FmodBackward0", ("self", "other"), self=lambda grad: grad)
FmodBackward1 = derivative(
    "FmodBackward1", ("self", "other"),
    self=lambda grad: grad,
    other=lambda grad, self, other: -grad * div(self, other, rounding_mode="trunc"),
)
PowBackward0 = derivative(
    "PowBackward0", ("self",),
    self=lambda grad, self, exponent: zeros_like(grad) if exponent == 0 else grad * (exponent * pow(self, exponent - 1)),
)
PowBackward1 = derivative(
    "PowBackward1", ("self", "exponent"),
    self=lambda grad, self, exponent: where(exponent == 0, 0.0, grad * (exponent * pow(self, exponent - 1))),
    exponent=lambda grad, self, exponent, result: _pow_exponent_grad(grad, self, exponent, result),
)
PowBackward2 = derivative(  # a Python-number base
    "PowBackward2", ("self", "exponent"),
    exponent=lambda grad, self, exponent, result: _pow_exponent_grad(grad, self, exponent, result),
)
ToCopyBackward0 = derivative("ToCopyBackward0", self=lambda grad: grad)


def _pow_exponent_grad(grad: Tensor, self: Tensor, exponent: Tensor, result: Tensor) -> Tensor:
    # 0 ** e has a zero derivative in e wherever e is real and >= 0 (PyTorch's subgradient; log(0) would give nan).
    # A real base of a complex power takes its complex log (a negative base's is not nan).
    real_nonnegative = (exponent.real >= 0) & (exponent.imag == 0) if exponent.is_complex() else exponent >= 0
    base = self if self.dtype == result.dtype else self.to(result.dtype)
    return grad * where((self == 0) & real_nonnegative, 0.0, result * log(base))


def _from_add_stub(out: Tensor) -> Tensor:
    """add, sub and rsub run PyTorch's add_stub, which has no uint16/32/64 kernel. Checked on the result's dtype (the
    common dtype), which costs the hot path least."""
    d = out._data.dtype
    if d is _U16 or d is _U32 or d is _U64:
        raise not_implemented_for("add_stub", out.dtype)
    return out


# The kernels of the most frequent ops as globals of this module: compiled, np.multiply is a lookup per call
_ADD, _MULTIPLY = np.add, np.multiply


def deprecated_overload(name: str, old: str, new: str) -> None:
    """PyTorch 2.13's warning for an overload it still takes but has deprecated (a scalar before the tensors)."""
    warnings.warn(
        f"This overload of {name} is deprecated:\n\t{name}({old})\nConsider using one of the following signatures "
        f"instead:\n\t{name}({new})",
        UserWarning,
        stacklevel=4,  # the caller of the op
    )


def _alpha_first(name: str, other: Operand, rest: tuple[Any, ...], alpha: float) -> tuple[Operand, float]:
    """(other, alpha) from the deprecated overload PyTorch 2.13 still takes, name(input, alpha, other): old
    optimizers' `exp_avg.mul_(beta1).add_(1 - beta1, grad)`."""
    if len(rest) > 1:
        raise TypeError(f"{name}() takes from 2 to 3 positional arguments but {2 + len(rest)} were given")
    deprecated_overload(
        name, "Tensor input, Number alpha, Tensor other, *, Tensor out = None",
        "Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None",
    )
    return rest[0], other.item() if isinstance(other, Tensor) else other  # a 0-dim tensor is taken as its number


def add(input: Operand, other: Operand, *rest: Operand, alpha: float = 1, out: Tensor | None = None) -> Tensor:
    if rest:  # a call, not a test, would cost every `a + b`
        other, alpha = _alpha_first("add", other, rest, alpha)
    if out is not None:
        return into(out, add, input, other, alpha=alpha)
    kernel = _ADD if alpha == 1 else lambda a, b: a + alpha * b
    return _from_add_stub(_binary_with(AddBackward0, kernel, input, other, False, {"alpha": alpha}))


def sub(input: Operand, other: Operand, *rest: Operand, alpha: float = 1, out: Tensor | None = None) -> Tensor:
    if rest:  # a call, not a test, would cost every `a - b`
        other, alpha = _alpha_first("sub", other, rest, alpha)
    if out is not None:
        return into(out, sub, input, other, alpha=alpha)
    if isinstance(input, Tensor) and input.dtype is _dtype.bool_ and isinstance(other, Tensor) and other.dtype is _dtype.bool_:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    kernel = np.subtract if alpha == 1 else lambda a, b: a - alpha * b
    return _from_add_stub(_binary_with(SubBackward0, kernel, input, other, False, {"alpha": alpha}))


def rsub(input: Tensor, other: Operand, *, alpha: float = 1) -> Tensor:
    if isinstance(other, Tensor):
        return sub(other, input, alpha=alpha)
    return _from_add_stub(_binary(RsubBackward1, lambda a, b: b - alpha * a, input, other, alpha=alpha))


def mul(input: Operand, other: Operand, *, out: Tensor | None = None) -> Tensor:
    if out is not None:
        return into(out, mul, input, other)
    return _binary_with(MulBackward0, _MULTIPLY, input, other, False, _NO_ATTRIBUTES)


def div(input: Operand, other: Operand, *, rounding_mode: str | None = None, out: Tensor | None = None) -> Tensor:
    if out is not None:
        return into(out, div, input, other, rounding_mode=rounding_mode)
    if rounding_mode is None:
        return _binary_with(DivBackward0, np.true_divide, input, other, True, _NO_ATTRIBUTES)
    if rounding_mode in ("floor", "trunc"):
        refuse_barebones(f"div_{rounding_mode}_cpu", input, other)
        return _binary(DivBackward2, _floor_div if rounding_mode == "floor" else _trunc_div, input, other)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")


def _integer_kernel(kernel: Kernel) -> Kernel:
    """Integer division by zero is an error in PyTorch, not a NumPy warning."""

    def checked(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if np.issubdtype(b.dtype, np.integer) and np.any(b == 0):
            raise RuntimeError("ZeroDivisionError")
        return kernel(a, b)

    return checked


@_integer_kernel
def _trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.issubdtype(a.dtype, np.integer):
        q = np.abs(a) // np.abs(b)
        return np.where((a < 0) ^ (b < 0), -q, q).astype(a.dtype)
    return np.trunc(a / b)


_floor_div = _integer_kernel(np.floor_divide)


def floor_divide(input: Operand, other: Operand) -> Tensor:
    refuse_barebones("div_floor_cpu", input, other)
    return _binary(FloorDivideBackward, _floor_div, input, other)


def remainder(input: Operand, other: Operand) -> Tensor:
    refuse_barebones("remainder_cpu", input, other)
    entry = RemainderBackward1 if isinstance(other, Tensor) else RemainderBackward0
    return _binary(entry if isinstance(input, Tensor) else ScalarRemainderBackward, _integer_kernel(np.remainder), input, other)


def fmod(input: Tensor, other: Operand) -> Tensor:
    require_tensor("fmod", "input", 1, input)
    refuse_barebones("fmod_cpu", input, other)
    return _binary(FmodBackward1 if isinstance(other, Tensor) else FmodBackward0, _integer_kernel(np.fmod), input, other)


def neg(input: Tensor) -> Tensor:
    if require_tensor("neg", "input", 1, input).dtype is _dtype.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    refuse_barebones("neg_cpu", input)
    return NegBackward0.record(np.negative(input._data), (input,))


def pow(input: Operand, exponent: Operand) -> Tensor:
    refuse_barebones("pow", input, exponent)
    if result_type(input, exponent) is _dtype.bool_:
        raise not_implemented_for("pow", _dtype.bool_)
    if isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        common = result_type(input, exponent)
        if not common.is_floating_point and isinstance(exponent, int) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        out = _run(np.power, _cast(input._data, common), exponent)
        return PowBackward0.record(_cast(out, common), (input,), exponent=exponent)
    return _binary(PowBackward1 if isinstance(input, Tensor) else PowBackward2, np.power, input, exponent)


def square(input: Tensor) -> Tensor:
    return pow(require_tensor("square", "input", 1, input), 2)


def to_dtype(input: Tensor, target: dtype, memory_format: Any = None) -> Tensor:
    """A differentiable cast (ToCopyBackward0), laid out as `memory_format` asks if it names an order; integer
    targets end the graph."""
    data = input._data
    if data.dtype.kind == "c" and not target.is_complex:
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)
        data = data.real
    if target.name == "float8_e4m3fn":  # PyTorch saturates to its largest finite value; ml_dtypes would give NaN
        data = np.clip(data, -448.0, 448.0)
    out = data.astype(target.np)
    if getattr(memory_format, "order", None) is not None:
        out = _layout.arranged(out, memory_format)
    return ToCopyBackward0.record(out, (input,))


def to(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """to(dtype), to(device), to(device, dtype), to(other); copy=False returns input when nothing changes."""
    target: dtype | None = kwargs.get("dtype")
    for arg in args:
        if isinstance(arg, Tensor):
            target = arg.dtype
        elif _device.is_device_like(arg):
            _device.place(arg, creating=False, op="to")
        elif arg is not None:
            target = _dtype.to_dtype(arg)
    if kwargs.get("device") is not None:
        _device.place(kwargs["device"], creating=False, op="to")
    memory_format = kwargs.get("memory_format")
    relaid = getattr(memory_format, "order", None) is not None and not input.is_contiguous(memory_format=memory_format)
    if (target is None or target is input.dtype) and not relaid:
        return input.clone() if kwargs.get("copy") else input
    return to_dtype(input, target or input.dtype, memory_format)


# -- unary math ----------------------------------------------------------------
_SQRT_PI = math.sqrt(math.pi)
_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_loops = _native.kernels("glassgrad.ops._loops")  # None on the pure path
NegBackward0 = derivative("NegBackward0", self=lambda grad: -grad, jvp=AUTO_ELEMENT_WISE)
ExpBackward0 = derivative("ExpBackward0", self=lambda grad, result: grad * result, jvp=AUTO_ELEMENT_WISE)
Exp2Backward0 = derivative("Exp2Backward0", self=lambda grad, result: grad * result * math.log(2), jvp=AUTO_ELEMENT_WISE)
Expm1Backward0 = derivative("Expm1Backward0", self=lambda grad, result: grad * (result + 1), jvp=AUTO_ELEMENT_WISE)
LogBackward0 = derivative("LogBackward0", self=lambda grad, self: grad / self, jvp=AUTO_ELEMENT_WISE)
Log2Backward0 = derivative("Log2Backward0", self=lambda grad, self: grad / (self * math.log(2)), jvp=AUTO_ELEMENT_WISE)
Log10Backward0 = derivative("Log10Backward0", self=lambda grad, self: grad / (self * math.log(10)), jvp=AUTO_ELEMENT_WISE)
Log1PBackward0 = derivative("Log1PBackward0", self=lambda grad, self: grad / (self + 1), jvp=AUTO_ELEMENT_WISE)
SqrtBackward0 = derivative("SqrtBackward0", self=lambda grad, result: grad / (2 * result), jvp=AUTO_ELEMENT_WISE)
RsqrtBackward0 = derivative("RsqrtBackward0", self=lambda grad, result: -0.5 * grad * pow(result, 3), jvp=AUTO_ELEMENT_WISE)
ReciprocalBackward0 = derivative("ReciprocalBackward0", self=lambda grad, result: -grad * (result * result), jvp=AUTO_ELEMENT_WISE)
SinBackward0 = derivative("SinBackward0", self=lambda grad, self: grad * cos(self), jvp=AUTO_ELEMENT_WISE)
CosBackward0 = derivative("CosBackward0", self=lambda grad, self: grad * -sin(self), jvp=AUTO_ELEMENT_WISE)
TanBackward0 = derivative("TanBackward0", self=lambda grad, result: grad * (1 + result * result), jvp=AUTO_ELEMENT_WISE)
AsinBackward0 = derivative("AsinBackward0", self=lambda grad, self: grad * rsqrt(1 - self * self), jvp=AUTO_ELEMENT_WISE)
AcosBackward0 = derivative("AcosBackward0", self=lambda grad, self: grad * -rsqrt(1 - self * self), jvp=AUTO_ELEMENT_WISE)
AtanBackward0 = derivative("AtanBackward0", self=lambda grad, self: grad / (self * self + 1), jvp=AUTO_ELEMENT_WISE)
SinhBackward0 = derivative("SinhBackward0", self=lambda grad, self: grad * cosh(self), jvp=AUTO_ELEMENT_WISE)
CoshBackward0 = derivative("CoshBackward0", self=lambda grad, self: grad * sinh(self), jvp=AUTO_ELEMENT_WISE)
# tanh, sigmoid and relu differentiate through ops of their own, as in PyTorch: one output buffer instead of
# three temporaries (the difference between 1.3x and 1.0x of the minimum peak memory of an MLP's backward).
TanhBackwardBackward0 = derivative(
    "TanhBackwardBackward0", ("grad_output", "output"),
    grad_output=lambda grad, output: tanh_backward(grad, output),
    output=lambda grad, grad_output, output: grad * (-2 * output * grad_output),
)
ThresholdBackwardBackward0 = derivative(
    "ThresholdBackwardBackward0", ("grad_output", "self"),
    grad_output=lambda grad, self, threshold: threshold_backward(grad, self, threshold),
    self=_zero,
)
SigmoidBackwardBackward0 = derivative(
    "SigmoidBackwardBackward0", ("grad_output", "output"),
    grad_output=lambda grad, output: sigmoid_backward(grad, output),
    output=lambda grad, grad_output, output: grad * grad_output * (1 - 2 * output),
)


def _fused_backward(
    entry: Derivative, kernel: Callable[..., None], grad_output: Tensor, output: Tensor, **attrs: Any
) -> Tensor:
    """An activation's backward from its output, `kernel(g, y, out, *attrs.values())` writing into one buffer, recorded as
    `entry` (its own double-backward node, as PyTorch's *_backward ops are)."""
    return _fused_backward_with(entry, kernel, grad_output, output, attrs)


def _fused_backward_with(
    entry: Derivative, kernel: Callable[..., None], grad_output: Tensor, output: Tensor, attrs: dict[str, Any]
) -> Tensor:
    # `_fused_backward` without its keywords, for the activations of this module (compiled, a C call)
    first, second = grad_output, output  # names elementwise.pxd types: their arrays are struct members
    g, y = first._data, second._data
    if g.shape == y.shape and g.dtype is y.dtype:  # what backward hands it: no broadcast, no promotion to work out
        out = np.empty_like(y, order="C")
    else:
        out = np.empty(np.broadcast_shapes(g.shape, y.shape), dtype=np.result_type(g, y))
    quiet.run_kernel((kernel, g, y, out, *attrs.values()))
    return _record(entry, out, (grad_output, output), attrs)


# The kernels pass `out` by position: parsing a keyword is a third of a 16-element kernel's cost.
# Each tries ops/_loops.pyx's loop first, which takes contiguous float32 and float64 arrays of one size.
def _tanh_backward_kernel(g: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    if _loops is not None and _loops.tanh_backward(g, y, out):
        return
    np.multiply(y, y, out)
    np.subtract(1, out, out)
    np.multiply(out, g, out)


def _sigmoid_backward_kernel(g: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    if _loops is not None and _loops.sigmoid_backward(g, y, out):
        return
    np.subtract(1, y, out)
    np.multiply(out, y, out)
    np.multiply(out, g, out)


def _threshold_backward_kernel(g: np.ndarray, y: np.ndarray, out: np.ndarray, threshold: float = 0) -> None:
    # The loop's threshold is 0: ReLU's backward and its double backward (ThresholdBackwardBackward0), W5's path
    if threshold == 0 and _loops is not None and _loops.threshold_backward(g, y, out):
        return
    dead = np.less_equal(y, threshold)  # a nan in y passes the gradient on, as PyTorch's kernel does
    np.multiply(g, np.logical_not(dead), out)  # a product is several times faster than np.where or copyto's where=
    if np.isnan(out).any():  # but nan * 0 stays nan, where PyTorch passes nothing through a dead unit
        np.copyto(out, 0, where=dead)


_RELU_THRESHOLD = {"threshold": 0}


def relu_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    """grad_output, zeroed where the ReLU result `output` is <= 0, into one buffer: threshold_backward at 0."""
    return _fused_backward_with(ThresholdBackwardBackward0, _threshold_backward_kernel, grad_output, output, _RELU_THRESHOLD)


def threshold_backward(grad_output: Tensor, self: Tensor, threshold: float) -> Tensor:
    """grad_output, zeroed where `self` is <= threshold, into one buffer (recorded as PyTorch's, with its own node)."""
    return _fused_backward(ThresholdBackwardBackward0, _threshold_backward_kernel, grad_output, self, threshold=threshold)


def tanh_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    """grad_output * (1 - output**2), into one buffer."""
    return _fused_backward_with(TanhBackwardBackward0, _tanh_backward_kernel, grad_output, output, _NO_ATTRIBUTES)


def sigmoid_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    """grad_output * output * (1 - output), into one buffer."""
    return _fused_backward_with(SigmoidBackwardBackward0, _sigmoid_backward_kernel, grad_output, output, _NO_ATTRIBUTES)


TanhBackward0 = derivative("TanhBackward0", self=lambda grad, result: tanh_backward(grad, result), jvp=AUTO_ELEMENT_WISE)
AsinhBackward0 = derivative("AsinhBackward0", self=lambda grad, self: grad * rsqrt(self * self + 1), jvp=AUTO_ELEMENT_WISE)
AcoshBackward0 = derivative("AcoshBackward0", self=lambda grad, self: grad * rsqrt(self * self - 1), jvp=AUTO_ELEMENT_WISE)
AtanhBackward0 = derivative("AtanhBackward0", self=lambda grad, self: grad / (1 - self * self), jvp=AUTO_ELEMENT_WISE)
SigmoidBackward0 = derivative("SigmoidBackward0", self=lambda grad, result: sigmoid_backward(grad, result), jvp=AUTO_ELEMENT_WISE)
ErfBackward0 = derivative("ErfBackward0", self=lambda grad, self: grad * (2 / _SQRT_PI) * exp(-self * self), jvp=AUTO_ELEMENT_WISE)
ErfcBackward0 = derivative("ErfcBackward0", self=lambda grad, self: grad * (-2 / _SQRT_PI) * exp(-self * self), jvp=AUTO_ELEMENT_WISE)
ErfinvBackward0 = derivative("ErfinvBackward0", self=lambda grad, self: grad * (_SQRT_PI / 2) * exp(square(erfinv(self))), jvp=AUTO_ELEMENT_WISE)
LogitBackward0 = derivative("LogitBackward0", self=lambda grad, self, eps: _logit_grad(grad, self, eps))
AbsBackward0 = derivative("AbsBackward0", self=lambda grad, self: grad * sign(self), jvp=AUTO_ELEMENT_WISE)
SignBackward0 = derivative("SignBackward0", self=_zero)
FloorBackward0 = derivative("FloorBackward0", self=_zero)
CeilBackward0 = derivative("CeilBackward0", self=_zero)
TruncBackward0 = derivative("TruncBackward0", self=_zero)
RoundBackward0 = derivative("RoundBackward0", self=_zero)
RoundBackward1 = derivative("RoundBackward1", self=_zero)
FracBackward0 = derivative("FracBackward0", self=lambda grad: grad)
ReluBackward0 = derivative("ReluBackward0", self=lambda grad, result: relu_backward(grad, result), jvp=AUTO_ELEMENT_WISE)
# isfinite is logic.py's (which imports this module), so the formula reaches it as a method.
NanToNumBackward0 = derivative("NanToNumBackward0", self=lambda grad, self: grad * self.isfinite())


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))  # PyTorch's formula; exp overflowing to inf gives the right limit, 0


def _positive_nan(ufunc: np.ufunc) -> Kernel:
    """`ufunc` with the NaN of an out-of-domain input unsigned, as PyTorch's log and sqrt give it (x86's is negative)."""

    def kernel(x: np.ndarray) -> np.ndarray:
        out = ufunc(x)
        nan = np.isnan(out)
        return np.where(nan, np.fabs(out), out) if nan.any() else out

    return kernel


exp = _float_unary("exp", ExpBackward0, np.exp)
exp2 = _float_unary("exp2", Exp2Backward0, np.exp2)
expm1 = _float_unary("expm1", Expm1Backward0, np.expm1)
log = _float_unary("log", LogBackward0, _positive_nan(np.log))
log2 = _float_unary("log2", Log2Backward0, _positive_nan(np.log2))
log10 = _float_unary("log10", Log10Backward0, _positive_nan(np.log10))
log1p = _float_unary("log1p", Log1PBackward0, np.log1p)
sqrt = _float_unary("sqrt", SqrtBackward0, _positive_nan(np.sqrt))
rsqrt = _float_unary("rsqrt", RsqrtBackward0, lambda x: 1 / np.sqrt(x))
reciprocal = _float_unary("reciprocal", ReciprocalBackward0, np.reciprocal)
sin = _float_unary("sin", SinBackward0, np.sin)
cos = _float_unary("cos", CosBackward0, np.cos)
tan = _float_unary("tan", TanBackward0, np.tan)
asin = _float_unary("asin", AsinBackward0, np.arcsin)
acos = _float_unary("acos", AcosBackward0, np.arccos)
atan = _float_unary("atan", AtanBackward0, np.arctan)
sinh = _float_unary("sinh", SinhBackward0, np.sinh)
cosh = _float_unary("cosh", CoshBackward0, np.cosh)
tanh = _float_unary("tanh", TanhBackward0, np.tanh)
asinh = _float_unary("asinh", AsinhBackward0, np.arcsinh)
acosh = _float_unary("acosh", AcoshBackward0, np.arccosh)
atanh = _float_unary("atanh", AtanhBackward0, np.arctanh)
sigmoid = _float_unary("sigmoid", SigmoidBackward0, _sigmoid)
erf = _float_unary("erf", ErfBackward0, _scipy("erf"))
erfc = _float_unary("erfc", ErfcBackward0, _scipy("erfc"))
erfinv = _float_unary("erfinv", ErfinvBackward0, _scipy("erfinv"))
_real_abs = _exact_unary("abs", AbsBackward0, np.abs, (_dtype.BOOL,), "abs_cpu")


def abs(input: Tensor) -> Tensor:
    if isinstance(input, Tensor) and input._data.dtype.kind == "c":  # |z| is real, with a formula of its own
        from .complex_ops import abs as complex_abs  # complex_ops builds on this module

        return complex_abs(input)
    refuse_barebones("abs_cpu", input)
    return _real_abs(input)


sign = _exact_unary("sign", SignBackward0, lambda x: x.copy() if x.dtype == np.bool_ else np.sign(x), (), "sign_cpu")
floor = _exact_unary("floor", FloorBackward0, np.floor, (_dtype.BOOL,), "floor_vml_cpu")
ceil = _exact_unary("ceil", CeilBackward0, np.ceil, (_dtype.BOOL,), "ceil_vml_cpu")
trunc = _exact_unary("trunc", TruncBackward0, np.trunc, (_dtype.BOOL,), "trunc_vml_cpu")
frac = _exact_unary("frac", FracBackward0, lambda x: x - np.trunc(x), (_dtype.BOOL, _dtype.INTEGER), "frac_cpu")
_round = _exact_unary("round", RoundBackward0, np.round, (_dtype.BOOL,), "round_vml_cpu")


def round(input: Tensor, *, decimals: int | None = None) -> Tensor:
    if decimals is None:
        return _round(input)
    if not input.dtype.is_floating_point:  # PyTorch's round.decimals overload refuses integers, even for decimals=0
        raise not_implemented_for("round_vml_cpu" if decimals == 0 else "round_cpu", input.dtype)
    # NumPy scales by 10**decimals and rounds half to even, exactly as PyTorch does.
    return RoundBackward1.record(np.round(input._data, decimals), (input,))


def _logit_grad(grad: Tensor, self: Tensor, eps: float | None) -> Tensor:
    outside = math.nan if eps is None else 0.0
    low, high = (0.0, 1.0) if eps is None else (eps, 1 - eps)
    return where((self < low) | (self > high), outside, grad / (self * (1 - self)))



def logit(input: Tensor, eps: float | None = None) -> Tensor:
    target = _floating(require_tensor("logit", "input", 1, input).dtype)
    x = _cast(input._data, target)
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    return LogitBackward0.record(_cast(_run(lambda z: np.log(z / (1 - z)), x), target), (input,), eps=eps)


def rdiv(input: Tensor, other: Operand) -> Tensor:
    """`number / tensor`, which PyTorch computes as `tensor.reciprocal() * number`."""
    if isinstance(other, Tensor):
        return div(other, input)
    return mul(reciprocal(input), other)


def relu(input: Tensor) -> Tensor:
    if require_tensor("relu", "input", 1, input).dtype is _dtype.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    # The input stays wherever it is not below 0, -0.0 included, as in PyTorch: NumPy's maximum keeps its second
    # operand on a tie. A zero of the input's own type: a Python 0 costs NumPy a third more on a 64x256 batch.
    data = input._data
    dtype = data.dtype
    out = _loops.relu(data) if _loops is not None and (dtype is _F32 or dtype is _F64) else None
    if out is not None:  # the same values, in a third of NumPy's time
        return ReluBackward0.record(out, (input,))
    if dtype is _F16:  # NumPy's float16 maximum returns its first operand on a tie: 0 for -0.0
        return ReluBackward0.record(np.where(data < 0, dtype.type(0), data), (input,))
    return ReluBackward0.record(np.maximum(dtype.type(0), data), (input,))


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    require_tensor("nan_to_num", "input", 1, input)
    out = np.nan_to_num(input._data, nan=nan, posinf=posinf, neginf=neginf)
    return NanToNumBackward0.record(out, (input,))


# -- clamp ---------------------------------
def _within(x: Tensor, low: Operand | None, high: Operand | None) -> Tensor:
    """Where clamp passes x through: the bounds themselves included, as PyTorch's subgradient."""
    inside = x == x if low is None else x >= low
    return inside if high is None else inside & (x <= high)


ClampBackward1 = derivative("ClampBackward1", ("self",), self=lambda grad, self, min, max: where(_within(self, min, max), grad, 0.0))
def _in_place(combine: Callable[[Tensor, Tensor], Tensor], mask: Tensor, other: Tensor) -> Tensor:
    """PyTorch combines clamp's masks in place (`mask.logical_and_(other)`), so a mask smaller than the other fails.

    The masks are bool, so `&` and `|` are logical_and and logical_or (which live in logic.py, above this module).
    """
    shape = broadcast_shape(mask.shape, other.shape)
    if shape != mask.shape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, mask.shape))}] doesn't match the broadcast shape [{', '.join(map(str, shape))}]"
        )
    return combine(mask, other)


def _clamp_self_grad(grad: Tensor, self: Tensor, min: Tensor | None, max: Tensor | None) -> Tensor:
    if min is None or max is None:
        return where(_within(self, min, max), grad, 0.0)
    return where(_in_place(operator.and_, self >= min, self <= max), grad, 0.0)


def _clamp_min_grad(grad: Tensor, self: Tensor, min: Tensor, max: Tensor | None) -> Tensor:
    return where(self < min if max is None else _in_place(operator.and_, self < min, min < max), grad, 0.0)


def _clamp_max_grad(grad: Tensor, self: Tensor, min: Tensor | None, max: Tensor) -> Tensor:
    return where(self > max if min is None else _in_place(operator.or_, self > max, max < min), grad, 0.0)


ClampBackward0 = derivative(
    "ClampBackward0", ("self", "min", "max"),
    self=_clamp_self_grad,
    min=_clamp_min_grad,
    max=_clamp_max_grad,
)


def _as_number(bound: Operand | None) -> Operand | None:
    """Beside a number, PyTorch's argument parser reads a 0-d tensor that needs no grad as a number."""
    if isinstance(bound, Tensor) and bound.ndim == 0 and not bound.requires_grad:
        return bound.item()
    return bound


def clamp(input: Tensor, min: Operand | None = None, max: Operand | None = None) -> Tensor:
    require_tensor("clamp", "input", 1, input)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if not all(isinstance(b, Tensor) for b in (min, max) if b is not None):
        min, max = (_as_number(b) for b in (min, max))
    bounds = [b for b in (min, max) if b is not None]
    common = result_type(input, *bounds)
    if not any(isinstance(b, Tensor) for b in bounds):
        if common in _dtype.BAREBONES:
            kernel = "clamp" if len(bounds) == 2 else "clamp_min" if max is None else "clamp_max"
            raise not_implemented_for(f"{kernel}_scalar_cpu", common)
        out = _cast(input._data, common)
        # Bound first: NumPy's maximum and minimum keep their second operand on a tie, and PyTorch keeps the
        # input there (clamp(-0.0, min=0.0) is -0.0), which np.clip with one bound does not.
        out = out if min is None else _run(np.maximum, min, out)
        out = out if max is None else _run(np.minimum, max, out)
        return ClampBackward1.record(_cast(out, common), (input,), min=min, max=max)
    if not all(isinstance(b, Tensor) for b in bounds):
        raise TypeError("clamp() received an invalid combination of arguments: 'min' and 'max' must both be Tensors or both numbers")
    if common in _dtype.BAREBONES:  # tensor bounds run maximum's kernel for min, then minimum's for max
        raise not_implemented_for("maximum_cpu" if min is not None else "minimum_cpu", common)
    # A missing bound enters the node as a placeholder; its formula sees None.
    low, high = (Tensor._wrap(np.zeros((), common.np)) if b is None else b for b in (min, max))
    x = _cast(input._data, common)
    out = x if min is None else _run(np.maximum, x, _cast(low._data, common))
    out = out if max is None else _run(np.minimum, out, _cast(high._data, common))
    absent = {name: None for name, b in (("min", min), ("max", max)) if b is None}
    return ClampBackward0.record(np.asarray(out), (input, low, high), **absent)


# -- where, masked_fill ---------------------------------------------------------------------
WhereBackward0 = derivative(
    "WhereBackward0", ("self", "other"),
    self=lambda grad, condition: where(condition, grad, 0.0),
    other=lambda grad, condition: where(condition, 0.0, grad),
)
MaskedFillBackward0 = derivative("MaskedFillBackward0", ("self",), self=lambda grad, mask: where(mask, 0.0, grad))
MaskedFillBackward1 = derivative(
    "MaskedFillBackward1", ("self", "value"),
    self=lambda grad, mask: where(mask, 0.0, grad),
    value=lambda grad, mask: where(mask, grad, 0.0).sum(),
)
def where(condition: Tensor, input: Operand | None = None, other: Operand | None = None) -> Any:
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not {type(condition).__name__}")
    if input is None and other is None:  # where(condition) is nonzero(as_tuple=True)
        return tuple(Tensor._wrap(i.astype(np.int64)) for i in np.nonzero(np.atleast_1d(condition._data)))
    if input is None or other is None:
        raise TypeError("where(): expected both 'input' and 'other', or neither")
    if condition.dtype is not _dtype.bool_:
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype {condition.dtype.scalar_name}"
        )
    return _binary(WhereBackward0, lambda a, b: np.where(condition._data, a, b), input, other, condition=condition)


def masked_fill(input: Tensor, mask: Tensor, value: Operand) -> Tensor:
    require_tensor("masked_fill", "input", 1, input)
    if require_tensor("masked_fill", "mask", 2, mask).dtype is not _dtype.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {_TYPE_NAMES[mask.dtype.name]}")
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(
            f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.ndim} dimension(s)."
        )
    if not isinstance(value, (Tensor, bool, int, float, np.number)):
        raise TypeError(f"masked_fill(): argument 'value' must be Number or Tensor, not {type(value).__name__}")
    fill = value._data if isinstance(value, Tensor) else value
    out = _run(lambda x, m: np.where(m, np.asarray(fill).astype(x.dtype), x), input._data, mask._data)
    if isinstance(value, Tensor):
        return MaskedFillBackward1.record(out, (input, value), mask=mask)
    return MaskedFillBackward0.record(out, (input,), mask=mask)


# PyTorch's C++ type names in masked_fill's message.
_TYPE_NAMES = {
    "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int", "int64": "long int",
    "float16": "c10::Half", "float32": "float", "float64": "double",
}




# -- what this module exports (collected by ops/__init__.py) --------------------------------
_BOTH = {
    "add": add, "sub": sub, "mul": mul, "div": div, "floor_divide": floor_divide, "remainder": remainder,
    "fmod": fmod, "neg": neg, "pow": pow, "square": square, "abs": abs, "sign": sign, "exp": exp, "exp2": exp2,
    "expm1": expm1, "log": log, "log2": log2, "log10": log10, "log1p": log1p, "sqrt": sqrt, "rsqrt": rsqrt,
    "reciprocal": reciprocal, "sin": sin, "cos": cos, "tan": tan, "asin": asin, "acos": acos, "atan": atan,
    "sinh": sinh, "cosh": cosh, "tanh": tanh, "asinh": asinh, "acosh": acosh, "atanh": atanh, "sigmoid": sigmoid,
    "logit": logit, "erf": erf, "erfc": erfc, "erfinv": erfinv, "floor": floor, "ceil": ceil, "round": round,
    "trunc": trunc, "frac": frac, "relu": relu, "clamp": clamp, "nan_to_num": nan_to_num, "masked_fill": masked_fill,
    # PyTorch's aliases
    "clip": clamp, "negative": neg, "multiply": mul, "subtract": sub, "divide": div, "true_divide": div,
    "absolute": abs, "arcsin": asin, "arccos": acos, "arctan": atan, "arcsinh": asinh, "arccosh": acosh,
    "arctanh": atanh, "fix": trunc,
}
FUNCTIONS = {**_BOTH, "rsub": rsub, "where": where}
METHODS = {**_BOTH, "to": to, "where": lambda self, condition, other: where(condition, self, other)}
ALSO = {"glassgrad.nn.functional": {"sigmoid": sigmoid, "tanh": tanh}}  # F.sigmoid, F.tanh
INPLACE = (
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "neg", "pow", "square", "abs",
    "sign", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos",
    "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "logit", "erf",
    "erfc", "erfinv", "floor", "ceil", "round", "trunc", "frac", "relu", "clamp", "clip", "nan_to_num", "masked_fill",
    "negative", "multiply", "subtract", "divide", "absolute", "arcsin", "arccos", "arctan", "arcsinh", "arccosh",
    "arctanh", "fix",
)
INPLACE_FUNCTIONS = ("relu",)
