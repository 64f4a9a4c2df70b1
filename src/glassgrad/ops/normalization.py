"""Normalization layers' functions of glassgrad.nn.functional.

Each is composed of glassgrad ops (mean, subtraction, sqrt, ...), so values, gradients and
higher derivatives follow from theirs. Running statistics are updated in place outside the graph,
as PyTorch does.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._dtype import CPP_NAMES, float16, float32, is_low_precision, machine_limits
from .._quiet import restore, silence
from ..autograd.inplace import bump_version
from ..tensor import Size, Tensor
from .convolution import pad
from .elementwise import not_implemented_for, pow, rsqrt, sqrt
from .pooling import avg_pool2d, avg_pool3d
from .reduction import mean
from .reduction import sum as reduce_sum
from .shape import reshape, squeeze, unsqueeze
from .table import derivative, formulas_record

NAMESPACE = "glassgrad.nn.functional"


def _normalize(x: Tensor, dims: tuple[int, ...], eps: float) -> tuple[Tensor, np.ndarray, np.ndarray]:
    """(x - mean) / sqrt(var + eps) over dims, with the mean and biased variance as arrays."""
    mu = mean(x, dims, keepdim=True)
    centered = x - mu
    var = mean(centered * centered, dims, keepdim=True)
    return centered / sqrt(var + eps), mu._data, var._data


def _affine(y: Tensor, weight: Tensor | None, bias: Tensor | None, shape: tuple[int, ...]) -> Tensor:
    if weight is not None:
        y = y * reshape(weight, shape)
    if bias is not None:
        y = y + reshape(bias, shape)
    return y


def _check_vector(t: Tensor | None, size: int, what: str, input: Tensor) -> None:
    if t is not None and t.numel() != size:
        raise RuntimeError(f"{what} should contain {size} elements not {t.numel()} (input of shape {list(input.shape)})")


def _mixed(input: Tensor, *params: Tensor | None) -> bool:
    """Whether a half-precision or bfloat16 input comes with float32 parameters, which PyTorch's CPU kernels accept
    (computing in float32: what a BatchNorm sees under CPU autocast); any other mix of dtypes raises."""
    defined = [p for p in params if p is not None]
    if all(p.dtype is input.dtype for p in defined):
        return False
    low = input.dtype is float16 or is_low_precision(input._data.dtype)
    if low and all(p.dtype is float32 for p in defined):
        return True
    raise RuntimeError(f"mixed dtype (CPU): expect parameter to have scalar type of {'Float' if low else input.dtype.name.capitalize()}")


def _update_running(running: Tensor | None, value: np.ndarray, momentum: float) -> None:
    if running is not None:
        np.copyto(running._data, (1 - momentum) * running._data + momentum * value, casting="unsafe")
        bump_version(running)


def _check_trailing_shape(input: Tensor, shape: tuple[int, ...], star: str = "*, ", **params: Tensor | None) -> None:
    """layer_norm's and rms_norm's checks: input ends in `shape`, and so does every parameter.

    `star` begins the expected shape in the message: layer_norm prints [*, 2, 4] and rms_norm [*2, 4].
    """
    k = len(shape)
    if k == 0 or input.ndim < k or tuple(input.shape[input.ndim - k :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape [{star}{', '.join(map(str, shape))}], but "
            f"got input of size{list(input.shape)}"
        )
    for name, t in params.items():
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape {list(t.shape)} and "
                f"normalized_shape = {list(shape)}"
            )


def layer_norm(input: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    _check_trailing_shape(input, shape, weight=weight, bias=bias)
    if _mixed(input, weight, bias):
        return layer_norm(input.float(), shape, weight, bias, eps).to(input.dtype)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    x = input._data
    if is_low_precision(x.dtype):  # PyTorch's CPU kernel computes bfloat16 in float32, rounding once at the end
        wide = [None if t is None else t.float() for t in (weight, bias)]
        return layer_norm(input.float(), shape, *wide, eps).to(input.dtype)
    if x.dtype not in (np.float32, np.float64) or x.size == 0:  # half precision and empty inputs: the composite
        y, _, _ = _normalize(input, dims, eps)
        return _affine(y, weight, bias, shape)
    # PyTorch's native_layer_norm: one node, one output array (and one temporary, for the variance)
    token = silence()
    try:
        mu = np.mean(x, axis=dims, keepdims=True)
        out = np.subtract(x, mu)
        squares = np.multiply(out, out)
        rstd = 1 / np.sqrt(np.mean(squares, axis=dims, keepdims=True) + eps)
        del squares
        out *= rstd
        if weight is not None:
            out *= weight._data
        if bias is not None:
            out += bias._data
    finally:
        restore(token)
    # a missing weight or bias enters the node as a placeholder without grad; its formulas see None
    absent = {name: None for name, p in (("weight", weight), ("bias", bias)) if p is None}
    placeholder = Tensor._wrap(np.zeros((), x.dtype))
    return NativeLayerNormBackward0.record(
        out, (input, placeholder if weight is None else weight, placeholder if bias is None else bias),
        normalized_shape=shape, result1=Tensor._wrap(mu), result2=Tensor._wrap(rstd), eps=eps, **absent,
    )


def _layer_norm_input_grad(grad: Tensor, input: Tensor, weight: Tensor | None, result1: Tensor, result2: Tensor,
                           normalized_shape: tuple[int, ...], eps: float) -> Tensor:
    """rstd * (g - mean(g) - x_hat * mean(g * x_hat)) over the normalized dims, with g = grad * weight.

    With a graph to record, the statistics are computed again from input with glassgrad ops, so that higher
    derivatives see how they depend on it; without one, it is NumPy's alone, in three arrays.
    """
    dims = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    if formulas_record():
        x_hat, rstd = _standardized(input, dims, eps)
        g = grad if weight is None else grad * weight
        return rstd * (g - mean(g, dims, keepdim=True) - x_hat * mean(g * x_hat, dims, keepdim=True))
    token = silence()
    try:
        x_hat = np.subtract(input._data, result1._data)
        x_hat *= result2._data
        out = np.multiply(grad._data, weight._data) if weight is not None else grad._data.copy()
        projection = np.multiply(out, x_hat)
        coefficient = np.mean(projection, axis=dims, keepdims=True)
        del projection
        out -= np.mean(out, axis=dims, keepdims=True)
        x_hat *= coefficient
        out -= x_hat
        out *= result2._data
    finally:
        restore(token)
    return Tensor._wrap(out)


def _layer_norm_weight_grad(grad: Tensor, input: Tensor, result1: Tensor, result2: Tensor,
                            normalized_shape: tuple[int, ...], eps: float) -> Tensor:
    """grad * x_hat summed over the batch dims."""
    batch = tuple(range(input.ndim - len(normalized_shape)))
    if formulas_record():
        x_hat, _ = _standardized(input, tuple(range(len(batch), input.ndim)), eps)
        return _batch_sum(grad * x_hat, batch)
    x_hat = np.subtract(input._data, result1._data)
    x_hat *= result2._data
    x_hat *= grad._data
    return Tensor._wrap(np.sum(x_hat, axis=batch) if batch else x_hat)


def _batch_sum(t: Tensor, batch: tuple[int, ...]) -> Tensor:
    """t summed over the batch dims (sum over no dims would sum them all)."""
    return reduce_sum(t, batch) if batch else t


def _standardized(input: Tensor, dims: tuple[int, ...], eps: float) -> tuple[Tensor, Tensor]:
    """(x - mean) * rstd and rstd over dims, recorded."""
    centered = input - mean(input, dims, keepdim=True)
    rstd = rsqrt(mean(centered * centered, dims, keepdim=True) + eps)
    return centered * rstd, rstd


NativeLayerNormBackward0 = derivative(
    "NativeLayerNormBackward0", ("input", "weight", "bias"),
    input=_layer_norm_input_grad,
    weight=_layer_norm_weight_grad,
    bias=lambda grad, input, normalized_shape: _batch_sum(grad, tuple(range(input.ndim - len(normalized_shape)))),
)


def rms_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    if isinstance(normalized_shape, int):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int")
    shape = tuple(normalized_shape)
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
            "normalized_shape = []"
        )
    if input.ndim < len(shape):
        raise ValueError(f"Input tensor must have at least {len(shape)} dimensions, but got {input.ndim}")
    _check_trailing_shape(input, shape, "*", weight=weight)
    if not input.dtype.is_floating_point:
        raise not_implemented_for("rms_norm", input.dtype)
    if weight is not None and weight.dtype is not input.dtype:
        names = (CPP_NAMES[t.dtype] for t in (input, weight))
        warnings.warn(
            "Mismatch dtype between input and weight: input dtype = {}, weight dtype = {}, Cannot dispatch to fused "
            "implementation.".format(*names), UserWarning, stacklevel=2,
        )
    # PyTorch's composite: half precision and bfloat16 are computed in float32 (and so is the default eps).
    x = input.to(float32) if input.dtype is float16 or is_low_precision(input._data.dtype) else input
    if eps is None:
        eps = float(machine_limits(x._data.dtype).eps)
    dims = tuple(range(input.ndim - 1, input.ndim - len(shape) - 1, -1))
    y = x * rsqrt(mean(pow(x, 2), dims, keepdim=True) + eps)
    return (y if weight is None else y * weight).to(input.dtype)


def _channel_shape(input: Tensor) -> tuple[int, ...]:
    return (input.shape[1], *(1,) * (input.ndim - 2))


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    if input.ndim < 2:
        raise ValueError(f"expected 2D or higher input (got {input.ndim}D input)")
    channels = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        _check_vector(t, channels, name, input)
    if _mixed(input, running_mean, running_var, weight, bias):
        return batch_norm(input.float(), running_mean, running_var, weight, bias, training, momentum, eps).to(input.dtype)
    shape = _channel_shape(input)
    if training:
        count = input.numel() // max(channels, 1)
        if count == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {Size(input.shape)!r}")
        y, mu, var = _normalize(input, (0, *range(2, input.ndim)), eps)
        if count:  # an empty batch leaves the statistics alone
            _update_running(running_mean, mu.reshape(-1), momentum)
            _update_running(running_var, var.reshape(-1) * count / (count - 1), momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        y = (input - reshape(running_mean.detach(), shape)) / sqrt(reshape(running_var.detach(), shape) + eps)
    return _affine(y, weight, bias, shape)


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    if input.ndim < 3:
        raise ValueError(f"expected 3D or higher input (got {input.ndim}D input)")
    channels = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        _check_vector(t, channels, name, input)
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
        # Unlike batch_norm, instance_norm accepts statistics of another dtype.
        stats = (running_mean.to(input.dtype), running_var.to(input.dtype))
        return batch_norm(input, *stats, weight, bias, False, momentum, eps)
    count = int(np.prod(input.shape[2:]))
    if count == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {Size(input.shape)!r}")
    if input.shape[0] == 0 and (weight is not None or bias is not None):
        # PyTorch repeats weight and bias once per instance and then fails to index the empty result.
        raise IndexError("select(): index 0 out of range for tensor of size [0] at dimension 0")
    y, mu, var = _normalize(input, tuple(range(2, input.ndim)), eps)
    if input.shape[0]:
        # Each instance updates the running statistics; PyTorch keeps their average over the batch.
        _update_running(running_mean, mu.reshape(input.shape[:2]).mean(0), momentum)
        _update_running(running_var, (var.reshape(input.shape[:2]) * count / (count - 1)).mean(0), momentum)
    return _affine(y, weight, bias, _channel_shape(input))


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    if input.ndim < 2 or num_groups <= 0 or input.shape[1] % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{list(input.shape)} and num_groups={num_groups}"
        )
    channels = input.shape[1]
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.shape[0] != channels):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in input, but got {name} of "
                f"shape {list(t.shape)} and input of shape {list(input.shape)}"
            )
    if _mixed(input, weight, bias):
        return group_norm(input.float(), num_groups, weight, bias, eps).to(input.dtype)
    per_group = input.numel() // max(input.shape[0] * num_groups, 1)
    # PyTorch's check counts the values that share one channel's statistics across the batch.
    if input.shape[0] * channels // num_groups * int(np.prod(input.shape[2:])) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {Size(input.shape)!r}")
    grouped = reshape(input, (input.shape[0], num_groups, per_group))
    y, _, _ = _normalize(grouped, (2,), eps)
    return _affine(reshape(y, input.shape), weight, bias, _channel_shape(input))


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """input / (k + alpha * mean of squares over `size` neighbouring channels)^beta, composed as PyTorch composes it."""
    if input.ndim < 3:
        # PyTorch's message carries the run of spaces its source line continuation leaves.
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    squares = input * input
    # The channel dim becomes a spatial dim of a one-channel pool, padded by size // 2 before and (size - 1) // 2 after.
    if input.ndim == 3:
        padded = pad(unsqueeze(squares, 1), (0, 0, size // 2, (size - 1) // 2))
        div = squeeze(avg_pool2d(padded, (size, 1), stride=1), 1)
    else:
        shape = input.shape
        padded = pad(reshape(squares, (shape[0], 1, shape[1], shape[2], -1)), (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = reshape(squeeze(avg_pool3d(padded, (size, 1, 1), stride=1), 1), shape)
    return input / pow(div * alpha + k, beta)


# torch.batch_norm/layer_norm/group_norm: ATen's signatures, which end in a cuDNN flag (a CPU build ignores it) and
# put batch_norm's weight and bias before the running statistics.
def _aten_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                     running_var: Tensor | None, training: bool, momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def _aten_layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None, bias: Tensor | None = None,
                     eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    return layer_norm(input, normalized_shape, weight, bias, eps)


def _aten_group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
                     eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    return group_norm(input, num_groups, weight, bias, eps)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "layer_norm": layer_norm, "rms_norm": rms_norm, "batch_norm": batch_norm, "instance_norm": instance_norm, "group_norm": group_norm,
    "local_response_norm": local_response_norm,
}
METHODS: dict[str, Callable[..., Any]] = {}
ALSO: dict[str, dict[str, Callable[..., Any]]] = {
    "glassgrad": {
        "rms_norm": rms_norm, "batch_norm": _aten_batch_norm, "layer_norm": _aten_layer_norm, "group_norm": _aten_group_norm,
    },
}
INPLACE: tuple[str, ...] = ()
