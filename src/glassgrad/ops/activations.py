"""Activation functions of glassgrad.nn.functional, with linear layers and softmax (vector norms and similarities
are in distance.py).

Forwards run on NumPy in numerically stable forms (softmax shifts by the max, logsigmoid and
softplus never exponentiate a large positive number); each derivative is a table entry written
in glassgrad ops, with PyTorch's choice at the kinks (hardtanh's gradient is zero at its bounds,
leaky_relu takes the slope at 0).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from .._quiet import restore, silence
from ..autograd.inplace import apply_inplace
from ..tensor import Tensor
from .creation import default_generator
from .elementwise import (
    _fused_backward,
    abs,
    add,
    clamp,
    div,
    erf,
    exp,
    neg,
    not_implemented_for,
    require_tensor,
    sigmoid,
    sub,
    tanh,
    threshold_backward,
    where,
)
from .elementwise import (
    relu as _relu,
)
from .linalg import addmm, matmul
from .reduction import max as reduce_max
from .reduction import sum as reduce_sum
from .shape import cat, narrow, permute, reshape, t, unsqueeze, view
from .table import NoForwardAD, derivative

NAMESPACE = "glassgrad.nn.functional"

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_GELU_CUBIC = 0.044715


# -- pointwise activations ------------------------------------------------------------------
def _elu_grad(grad: Tensor, self: Tensor, alpha: float, scale: float, input_scale: float) -> Tensor:
    # exp of the clamped input: the branch `where` discards must not overflow, or its zero gradient turns nan.
    negative = grad * (alpha * scale * input_scale) * exp(clamp(self, max=0) * input_scale)
    return where(self > 0, grad * scale, negative)


def _gelu_grad(grad: Tensor, self: Tensor, approximate: str) -> Tensor:
    if approximate == "tanh":
        inner = tanh((self + _GELU_CUBIC * self * self * self) * _SQRT_2_OVER_PI)
        slope = (1 + inner) * 0.5 + self * 0.5 * (1 - inner * inner) * _SQRT_2_OVER_PI * (1 + 3 * _GELU_CUBIC * self * self)
        return grad * slope
    cdf = (erf(self * math.sqrt(0.5)) + 1) * 0.5
    pdf = exp(self * self * -0.5) * (1 / math.sqrt(2 * math.pi))
    return grad * (cdf + self * pdf)


def _silu_grad(grad: Tensor, self: Tensor) -> Tensor:
    s = sigmoid(self)
    return grad * s * (1 + self * (1 - s))


def _mish_grad(grad: Tensor, self: Tensor) -> Tensor:
    t_sp = tanh(softplus(self))
    return grad * (t_sp + self * sigmoid(self) * (1 - t_sp * t_sp))


HardtanhBackward0 = derivative(
    "HardtanhBackward0",
    self=lambda grad, self, min_val, max_val: where((self > min_val) & (self < max_val), grad, 0.0),
)
LeakyReluBackward0 = derivative(
    "LeakyReluBackward0", self=lambda grad, self, negative_slope: where(self > 0, grad, grad * negative_slope)
)
EluBackward0 = derivative("EluBackward0", self=_elu_grad)
CeluBackward0 = derivative("CeluBackward0", self=_elu_grad)
# In place, PyTorch saves the result instead of the overwritten input (the Backward1 nodes), which only determines
# the input where the slope is not negative.
_NEGATIVE_SLOPE_IN_PLACE = (
    "In-place {} backward calculation is triggered with a negative slope which is not supported. This is caused by "
    "calling in-place forward function with a negative slope, please call out-of-place version instead."
)


def _elu_result_grad(grad: Tensor, result: Tensor, alpha: float, scale: float, input_scale: float) -> Tensor:
    if alpha < 0:
        raise RuntimeError(_NEGATIVE_SLOPE_IN_PLACE.format("elu"))
    return where(result <= 0, grad * input_scale * (result + alpha * scale), grad * scale)


def _leaky_relu_result_grad(grad: Tensor, result: Tensor, negative_slope: float) -> Tensor:
    if negative_slope < 0:
        raise RuntimeError(
            _NEGATIVE_SLOPE_IN_PLACE.format("leakyReLu") + " File an issue at https://github.com/pytorch/pytorch if you "
            "do require supporting in-place leakRelu backward calculation with negative slope"
        )
    return where(result > 0, grad, grad * negative_slope)


EluBackward1 = derivative("EluBackward1", self=_elu_result_grad)
CeluBackward1 = derivative("CeluBackward1", self=_elu_result_grad)
LeakyReluBackward1 = derivative("LeakyReluBackward1", self=_leaky_relu_result_grad)
GeluBackward0 = derivative("GeluBackward0", self=_gelu_grad)
SiluBackward0 = derivative("SiluBackward0", self=_silu_grad)
MishBackward0 = derivative("MishBackward0", self=_mish_grad)
SoftplusBackward0 = derivative(
    "SoftplusBackward0",
    self=lambda grad, self, beta, threshold: where(self * beta > threshold, grad, grad * sigmoid(self * beta)),
)
HardsigmoidBackward0 = derivative(
    "HardsigmoidBackward0", self=lambda grad, self: where((self > -3) & (self < 3), grad / 6, 0.0)
)
HardswishBackward0 = derivative(
    "HardswishBackward0",
    self=lambda grad, self: where(self < -3, 0.0, where(self <= 3, grad * (self / 3 + 0.5), grad)),
)
LogSigmoidBackward0 = derivative("LogSigmoidBackward0", self=lambda grad, self: grad * sigmoid(neg(self)))


def _pointwise(
    entry: Any, name: str, kernel: str, forward: Callable[[np.ndarray], np.ndarray], input: Tensor, inplace: bool = False,
    **attrs: Any,
) -> Tensor:
    """A floating-point-only activation; `inplace=True` writes the result back into `input`."""

    def compute(x: Tensor) -> Tensor:
        require_tensor(name, "input", 1, x)
        if not x.dtype.is_floating_point:
            raise not_implemented_for(kernel, x.dtype)
        with np.errstate(all="ignore"):
            out = forward(x._data)
        return entry.record(np.asarray(out, dtype=x._data.dtype), (x,), **attrs)

    return apply_inplace(input, compute) if inplace else compute(input)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return apply_inplace(input, _relu) if inplace else _relu(input)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _hardtanh(input, min_val, max_val, inplace)


def _hardtanh(input: Tensor, min_val: float, max_val: float, inplace: bool) -> Tensor:
    def compute(x: Tensor) -> Tensor:  # integer inputs are accepted and keep their dtype
        out = np.clip(require_tensor("hardtanh", "input", 1, x)._data, min_val, max_val).astype(x._data.dtype)
        return HardtanhBackward0.record(out, (x,), min_val=min_val, max_val=max_val)

    return apply_inplace(input, compute) if inplace else compute(input)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return _pointwise(
        LeakyReluBackward1 if inplace else LeakyReluBackward0, "leaky_relu", "leaky_relu_cpu",
        lambda x: np.where(x > 0, x, x * negative_slope), input, inplace, negative_slope=negative_slope,
    )


def _elu(entries: tuple[Any, Any], name: str, input: Tensor, alpha: float, scale: float, input_scale: float,
         inplace: bool) -> Tensor:
    """`entries`: the out-of-place node and the in-place one."""
    return _pointwise(
        entries[inplace], name, "elu_cpu", lambda x: np.where(x > 0, x * scale, np.expm1(x * input_scale) * (alpha * scale)),
        input, inplace, alpha=alpha, scale=scale, input_scale=input_scale,
    )


_ELU, _CELU = (EluBackward0, EluBackward1), (CeluBackward0, CeluBackward1)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _elu(_ELU, "elu", input, alpha, 1.0, 1.0, inplace)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    return _elu(_ELU, "selu", input, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _elu(_CELU, "celu", input, alpha, 1.0, 1.0 / alpha, inplace)


# PyTorch's in-place functions: F.elu_ and the others are `inplace=True`.
def relu_(input: Tensor) -> Tensor:
    return relu(input, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return _hardtanh(input, min_val, max_val, inplace=True)  # unchecked: min_val > max_val gives max_val, as PyTorch's


def _gelu_forward(x: np.ndarray, approximate: str) -> np.ndarray:
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(_SQRT_2_OVER_PI * (x + _GELU_CUBIC * x * x * x)))
    from scipy import special  # NumPy has no erf

    return x * 0.5 * (1 + special.erf(x * math.sqrt(0.5)))


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _pointwise(
        GeluBackward0, "gelu", "GeluKernelImpl", lambda x: _gelu_forward(x, approximate), input, approximate=approximate
    )


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _pointwise(SiluBackward0, "silu", "silu_cpu", lambda x: x / (1 + np.exp(-x)), input, inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _pointwise(MishBackward0, "mish", "mish_cpu", lambda x: x * np.tanh(np.logaddexp(0, x)), input, inplace)


def softplus(input: Tensor, beta: float = 1, threshold: float = 20) -> Tensor:
    return _pointwise(
        SoftplusBackward0, "softplus", "softplus_cpu",
        lambda x: np.where(x * beta > threshold, x, np.logaddexp(0, x * beta) / beta), input,
        beta=beta, threshold=threshold,
    )


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return _pointwise(HardsigmoidBackward0, "hardsigmoid", "hardsigmoid_cpu", lambda x: np.clip(x + 3, 0, 6) / 6, input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return _pointwise(HardswishBackward0, "hardswish", "hardswish_cpu", lambda x: x * np.clip(x + 3, 0, 6) / 6, input, inplace)


def logsigmoid(input: Tensor) -> Tensor:
    return _pointwise(
        LogSigmoidBackward0, "log_sigmoid", "log_sigmoid_cpu",
        lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))), input,
    )


def softsign(input: Tensor) -> Tensor:
    return div(input, add(abs(input), 1))


def tanhshrink(input: Tensor) -> Tensor:
    return sub(input, tanh(input))


# -- threshold, shrinkage, and leaky units with a learned or random slope ------------------------------------
def _as_scalar_of(value: float, dtype: _dtype.dtype) -> Any:
    """A Python number as `dtype`'s scalar (integers truncate), or PyTorch's error when it does not fit."""
    kind = dtype.np
    floating = _dtype.is_floating(kind)
    if floating:
        largest = float(_dtype.machine_limits(kind).max)
        fits = kind != np.float32 or not math.isfinite(value) or -largest <= value <= largest
    else:
        fits = math.isfinite(value) and np.iinfo(kind).min <= value <= np.iinfo(kind).max
    if not fits:
        name = _dtype.CPP_NAMES[_dtype._BY_NUMPY[kind]] if floating else f"{kind.name}_t"  # c10 names int64_t, not long
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return kind.type(value if floating else int(value))


def _zero_inside(grad: Tensor, self: Tensor, lambd: float) -> Tensor:
    # Written as PyTorch's kernels are, so that nan inputs pass the gradient on.
    return where((self >= -lambd) & (self <= lambd), 0.0, grad)


def _threshold_grad(grad: Tensor, self: Tensor, threshold: float) -> Tensor:
    return threshold_backward(grad, self, threshold)


ThresholdBackward0 = derivative("ThresholdBackward0", self=_threshold_grad)
ThresholdBackward1 = derivative("ThresholdBackward1", self=_threshold_grad)  # threshold_, as PyTorch names it
HardshrinkBackward0 = derivative("HardshrinkBackward0", self=_zero_inside)
SoftshrinkBackward0 = derivative("SoftshrinkBackward0", self=_zero_inside)


def _threshold(input: Tensor, limit: float, value: float, inplace: bool) -> Tensor:
    def compute(x: Tensor) -> Tensor:  # integer inputs are accepted and keep their dtype
        if require_tensor("threshold", "input", 1, x).dtype is _dtype.bool_:
            raise not_implemented_for("threshold_cpu", x.dtype)
        data = x._data
        out = np.where(data <= _as_scalar_of(limit, x.dtype), _as_scalar_of(value, x.dtype), data)
        return (ThresholdBackward1 if inplace else ThresholdBackward0).record(out, (x,), threshold=limit)

    return apply_inplace(input, compute) if inplace else compute(input)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    return _threshold(input, threshold, value, inplace)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _threshold(input, threshold, value, inplace=True)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _pointwise(
        HardshrinkBackward0, "hardshrink", "hardshrink_cpu",
        lambda x: np.where((x >= -lambd) & (x <= lambd), 0, x), input, lambd=lambd,
    )


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    x = require_tensor("softshrink", "input", 1, input)
    if x.dtype.is_floating_point and not 0 <= lambd <= _dtype.machine_limits(x._data.dtype).max:
        raise RuntimeError(
            f"lambda must be in range [0, {_dtype.machine_limits(x._data.dtype).max:g}] for input dtype {x.dtype.scalar_name}, "
            f"but found {lambd:g}"
        )
    return _pointwise(
        SoftshrinkBackward0, "softshrink", "softshrink_check",
        lambda x: np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, x * 0)), x, lambd=lambd,
    )


PreluKernelBackward0 = derivative(
    "PreluKernelBackward0", ("self", "weight"),
    self=lambda grad, self, weight: where(self > 0, grad, weight * grad),
    weight=lambda grad, self: where(self > 0, 0.0, self * grad),
)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    x, w = require_tensor("prelu", "input", 1, input), require_tensor("prelu", "weight", 2, weight)
    if x.dtype is not w.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {x.dtype.scalar_name} and {w.dtype.scalar_name}")
    if w.numel() != 1:
        if x.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = x.shape[1] if x.ndim > 1 else 1
        if channels != w.numel():
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter numbers = {w.numel()} and "
                f"channel size = {channels}."
            )
    if w.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {w.ndim}")
    if not x.dtype.is_floating_point:
        raise not_implemented_for("prelu_cpu", x.dtype)
    if x.ndim != w.ndim:  # one slope per channel (dim 1), broadcast over the other dims
        w = reshape(w, tuple(w.numel() if i == 1 else 1 for i in range(x.ndim)))
    data = x._data
    return PreluKernelBackward0.record(np.where(data > 0, data, w._data * data), (x, w))


def _rrelu_grad(grad: Tensor, sign_of: Tensor, noise: Tensor | None, lower: float, upper: float, training: bool) -> Tensor:
    if training and upper - lower > 1e-6:
        return grad * noise
    # In evaluation (or with no room to draw from) the slope is fixed: leaky_relu's gradient.
    return where(sign_of > 0, grad, grad * ((lower + upper) / 2))


RreluWithNoiseBackward0 = derivative(
    "RreluWithNoiseBackward0",
    self=lambda grad, self, noise, lower, upper, training: _rrelu_grad(grad, self, noise, lower, upper, training),
)
# rrelu_ saves its result, which has the input's sign wherever the slope is positive.
RreluWithNoiseBackward1 = derivative(
    "RreluWithNoiseBackward1", jvp=NoForwardAD("rrelu_with_noise_"),
    self=lambda grad, result, noise, lower, upper, training: _rrelu_grad(grad, result, noise, lower, upper, training),
)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")

    def compute(x: Tensor) -> Tensor:
        if not require_tensor("rrelu", "input", 1, x).dtype.is_floating_point:
            raise not_implemented_for("rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu", x.dtype)
        data, noise = x._data, None
        if training:  # each non-positive element gets its own slope, drawn from glassgrad's generator
            slopes = default_generator._rng.uniform(lower, upper, data.shape)
            noise = Tensor._wrap(np.where(data <= 0, slopes, 1.0).astype(data.dtype))
            out = data * noise._data
        else:
            out = np.where(data > 0, data, data * ((lower + upper) / 2)).astype(data.dtype)
        entry = RreluWithNoiseBackward1 if inplace else RreluWithNoiseBackward0
        return entry.record(out, (x,), noise=noise, lower=lower, upper=upper, training=training)

    return apply_inplace(input, compute) if inplace else compute(input)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True)


# -- softmax family -----------------------------------------------------------------------------
# The backward of each is an op of its own, as PyTorch's _softmax_backward_data and _log_softmax_backward_data:
# one buffer instead of three or four arrays and nodes, and the double-backward nodes PyTorch shows.
def _softmax_backward_kernel(g: np.ndarray, y: np.ndarray, out: np.ndarray, dim: int) -> None:
    np.multiply(g, y, out=out)
    np.subtract(g, np.add.reduce(out, axis=dim, keepdims=True), out=out)
    np.multiply(out, y, out=out)


def _log_softmax_backward_kernel(g: np.ndarray, y: np.ndarray, out: np.ndarray, dim: int) -> None:
    np.exp(y, out=out)
    np.multiply(out, np.add.reduce(g, axis=dim, keepdims=True), out=out)
    np.subtract(g, out, out=out)


def _in_float32(kernel: Callable[..., None]) -> Callable[..., None]:
    """A fused backward kernel that, on bfloat16 and float8 arrays, computes in float32 and rounds once into `out`,
    as PyTorch's CPU does: rounding its partial sums would cancel away small gradients."""

    def run(g: np.ndarray, y: np.ndarray, out: np.ndarray, *attrs: Any) -> None:
        if not _dtype.is_low_precision(out.dtype):
            return kernel(g, y, out, *attrs)
        wide = np.empty(out.shape, np.float32)
        kernel(_dtype.widened(g), _dtype.widened(y), wide, *attrs)
        np.copyto(out, wide, casting="unsafe")
        return None

    return run


_softmax_backward_kernel = _in_float32(_softmax_backward_kernel)
_log_softmax_backward_kernel = _in_float32(_log_softmax_backward_kernel)


def softmax_backward(grad_output: Tensor, output: Tensor, dim: int) -> Tensor:
    """output * (grad_output - sum(grad_output * output, dim)), into one buffer."""
    return _fused_backward(SoftmaxBackwardDataBackward0, _softmax_backward_kernel, grad_output, output, dim=dim)


def log_softmax_backward(grad_output: Tensor, output: Tensor, dim: int) -> Tensor:
    """grad_output - exp(output) * sum(grad_output, dim), into one buffer."""
    return _fused_backward(LogSoftmaxBackwardDataBackward0, _log_softmax_backward_kernel, grad_output, output, dim=dim)


def _softmax_output_grad(grad: Tensor, grad_output: Tensor, output: Tensor, dim: int) -> Tensor:
    """PyTorch's softmax_double_backward."""
    return (
        grad_output * grad - reduce_sum(output * grad_output, dim, keepdim=True) * grad
        - grad_output * reduce_sum(output * grad, dim, keepdim=True)
    )


SoftmaxBackwardDataBackward0 = derivative(
    "SoftmaxBackwardDataBackward0", ("grad_output", "output"),
    grad_output=lambda grad, output, dim: softmax_backward(grad, output, dim),
    output=_softmax_output_grad,
)
LogSoftmaxBackwardDataBackward0 = derivative(
    "LogSoftmaxBackwardDataBackward0", ("grad_output", "output"),
    grad_output=lambda grad, output, dim: grad - reduce_sum(grad * exp(output), dim, keepdim=True),
    output=lambda grad, grad_output, output, dim: -reduce_sum(grad_output, dim, keepdim=True) * exp(output) * grad,
)
SoftmaxBackward0 = derivative("SoftmaxBackward0", self=lambda grad, result, dim: softmax_backward(grad, result, dim))
LogSoftmaxBackward0 = derivative(
    "LogSoftmaxBackward0", self=lambda grad, result, dim: log_softmax_backward(grad, result, dim)
)


def _softmax(input: Tensor, dim: int, dtype: Any, log: bool) -> Tensor:
    x = require_tensor("log_softmax" if log else "softmax", "input", 1, input)
    if dtype is not None:
        x = x.to(_dtype.to_dtype(dtype))
    d = x._wrap_dim(dim)
    if not x.dtype.is_floating_point:
        raise not_implemented_for("log_softmax_lastdim_kernel_impl" if log else "softmax_lastdim_kernel_impl", x.dtype)
    data = _dtype.widened(x._data.reshape(x._data.shape or (1,)))
    token = silence()
    try:  # the output is the one full-size array; log_softmax needs one more, for exp
        # The ufuncs' own reduce: np.max and np.sum add a Python layer that costs more than a row of ten classes
        out = np.subtract(data, np.maximum.reduce(data, axis=d, keepdims=True, initial=-np.inf))
        if log:
            out -= np.log(np.add.reduce(np.exp(out), axis=d, keepdims=True))
        else:
            np.exp(out, out=out)
            out /= np.add.reduce(out, axis=d, keepdims=True)
    finally:
        restore(token)
    entry = LogSoftmaxBackward0 if log else SoftmaxBackward0
    return entry.record(out.reshape(x._data.shape).astype(x._data.dtype, copy=False), (x,), dim=d)


def _implicit_dim(name: str, input: Tensor) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        UserWarning, stacklevel=3,
    )
    return 0 if input.ndim in (0, 1, 3) else 1


def tensor_softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """Tensor.softmax and torch.softmax: dim is required."""
    return _softmax(input, dim, dtype, log=False)


def tensor_log_softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    return _softmax(input, dim, dtype, log=True)


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    return _softmax(input, _implicit_dim("softmax", input) if dim is None else dim, dtype, log=False)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    return _softmax(input, _implicit_dim("log_softmax", input) if dim is None else dim, dtype, log=True)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    return _softmax(neg(input), _implicit_dim("softmin", input) if dim is None else dim, dtype, log=False)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """softmax((logits + Gumbel(0, 1) noise) / tau), the noise drawn from glassgrad's generator. With hard=True, the
    one-hot of the sample's argmax whose gradient is the soft sample's (straight-through), as in PyTorch."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -np.log(default_generator._rng.exponential(size=logits.shape))
    y_soft = tensor_softmax((logits + Tensor._wrap(gumbels.astype(logits._data.dtype))) / tau, dim)
    if not hard:
        return y_soft
    _, index = reduce_max(y_soft, dim, keepdim=True)
    one_hot = np.zeros_like(y_soft._data)
    np.put_along_axis(one_hot, index._data, 1, axis=y_soft._wrap_dim(dim))
    return Tensor._wrap(one_hot) - y_soft.detach() + y_soft


def _glu_grad(grad: Tensor, self: Tensor, dim: int) -> Tensor:
    half = self.shape[dim] // 2
    a, s = narrow(self, dim, 0, half), sigmoid(narrow(self, dim, half, half))
    return cat([grad * s, grad * a * s * (1 - s)], dim)


GluBackward0 = derivative("GluBackward0", self=_glu_grad)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    x = require_tensor("glu", "input", 1, input)
    if x.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = x._wrap_dim(dim)
    if x.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {x.shape[d]}")
    if not x.dtype.is_floating_point:
        raise not_implemented_for("glu_cpu", x.dtype)
    a, b = np.split(x._data, 2, axis=d)
    with np.errstate(all="ignore"):
        out = a / (1 + np.exp(-b))
    return GluBackward0.record(out.astype(x._data.dtype, copy=False), (x,), dim=d)


# -- linear layers -----------------------------------------------------------------------------------
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and {weight.ndim}D"
        )
    if weight.ndim == 2 and input.ndim > 2 and input.shape[-1] != weight.shape[1]:
        # Checked here because matmul would report it as a batched product's mismatch, not PyTorch's mm message.
        rows = int(np.prod(input.shape[:-1]))
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]} and {weight.shape[1]}x{weight.shape[0]})"
        )
    if bias is not None and weight.ndim == 2:
        # PyTorch's choice: addmm for a matrix, and for a contiguous input of 3 dims (or any, with a 1-D bias) addmm on
        # its rows viewed back; one node and one output either way. Other inputs take matmul and an add.
        if input.ndim == 2:
            return addmm(bias, input, t(weight))
        if input._data.flags.c_contiguous and (input.ndim == 3 or bias.ndim == 1):
            rows = view(input, (math.prod(input.shape[:-1]), input.shape[-1]))
            return view(addmm(bias, rows, t(weight)), (*input.shape[:-1], weight.shape[0]))
    out = matmul(input, t(weight))
    return out if bias is None else add(out, bias)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    if input1.ndim == 0 or weight.ndim != 3:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1], strict=True)):
        if a != b:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {a} and {b}")
    outputs, in1, in2 = weight.shape
    for which, size, expected in (("input1", input1.shape[-1], in1), ("input2", input2.shape[-1], in2)):
        if size != expected:
            raise RuntimeError(f"bilinear(): {which} size does not match weight size: got {size} but expected {expected}")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != outputs):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[-1]} but expected {outputs}")
    # x1 @ W[o] @ x2 for every o as one matrix product: W laid out as (in1, out * in2).
    flat = reshape(permute(weight, 1, 0, 2), (in1, outputs * in2))
    rows = reshape(matmul(input1, flat), (*input1.shape[:-1], outputs, in2))
    out = reduce_sum(rows * unsqueeze(input2, -2), -1)
    return out if bias is None else add(out, bias)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "relu": relu, "relu6": relu6, "hardtanh": hardtanh, "leaky_relu": leaky_relu, "elu": elu, "selu": selu,
    "celu": celu, "gelu": gelu, "silu": silu, "mish": mish, "softplus": softplus, "softsign": softsign,
    "hardsigmoid": hardsigmoid, "hardswish": hardswish, "tanhshrink": tanhshrink, "logsigmoid": logsigmoid,
    "softmax": softmax, "log_softmax": log_softmax, "softmin": softmin, "gumbel_softmax": gumbel_softmax, "glu": glu,
    "linear": linear,
    "bilinear": bilinear, "threshold": threshold, "threshold_": threshold_, "hardshrink": hardshrink,
    "softshrink": softshrink, "prelu": prelu, "rrelu": rrelu, "rrelu_": rrelu_, "relu_": relu_, "elu_": elu_,
    "selu_": selu_, "celu_": celu_, "leaky_relu_": leaky_relu_, "hardtanh_": hardtanh_,
}
METHODS: dict[str, Callable[..., Any]] = {
    "softmax": tensor_softmax, "log_softmax": tensor_log_softmax, "hardshrink": hardshrink, "prelu": prelu,
}
# PyTorch also has these as torch.X, with the same signatures.
ALSO: dict[str, dict[str, Callable[..., Any]]] = {
    "glassgrad": {
        **METHODS, "selu": selu, "celu": celu, "bilinear": bilinear, "threshold": threshold, "threshold_": threshold_,
        "selu_": selu_, "celu_": celu_, "rrelu_": rrelu_,
    },
}
INPLACE: tuple[str, ...] = ()
