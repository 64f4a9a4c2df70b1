"""Convolutions, padding, unfold/fold and dropout of glassgrad.nn.functional.

The pooling and resampling functions live in pooling.py and are exported from here, so that this
family module stays the one that ops/__init__.py registers.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..autograd.inplace import apply_inplace
from ..tensor import Tensor
from . import pooling
from .creation import default_generator
from .elementwise import mul
from .indexing import scatter_into_zeros
from .shape import squeeze, unsqueeze
from .table import derivative, for_complex, refuse_forward_ad
from .windows import ConvParams, col2im, convolution, exact_pads, im2col, ntuple, pad_crop
from .windows import output_size as block_counts  # fold has an argument named output_size

NAMESPACE = "glassgrad.nn.functional"
IntOrTuple = int | Sequence[int]


# -- convolutions ----------------------------------------------------------------------------------------------
def _batched(input: Tensor, n: int, name: str) -> tuple[Tensor, bool]:
    """PyTorch's unbatched inputs (one dim fewer) run as a batch of one."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input of size: {list(input.shape)}"
        )
    return (unsqueeze(input, 0), True) if input.ndim == n + 1 else (input, False)


def _check_conv(input: Tensor, weight: Tensor, bias: Tensor | None, groups: int, transposed: bool) -> None:
    n = input.ndim - 2
    if weight.ndim != n + 2:
        raise RuntimeError(
            f"Expected {n + 2}-dimensional weight for {n + 2}-dimensional input {list(input.shape)}, but got "
            f"{weight.ndim}-dimensional weight of size {list(weight.shape)} instead"
        )
    for other in (weight, bias):
        if other is not None and other.dtype is not input.dtype:
            raise RuntimeError(f"expected scalar type {input.dtype.name.capitalize()} but found {other.dtype.name.capitalize()}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of size "
            f"{list(weight.shape)} instead"
        )
    channels = weight.shape[0] if transposed else weight.shape[1] * groups
    if input.shape[1] != channels:
        raise RuntimeError(
            f"Given {'transposed=1' if transposed else f'groups={groups}'}, weight of size {list(weight.shape)}, expected "
            f"input{list(input.shape)} to have {channels} channels, but got {input.shape[1]} channels instead"
        )
    out_channels = weight.shape[1] * groups if transposed else weight.shape[0]
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(
            f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with {out_channels} elements, "
            f"but got bias of size {list(bias.shape)} instead"
        )


def _geometry(stride: IntOrTuple, dilation: IntOrTuple, n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    strides, dilations = ntuple(stride, n, "stride"), ntuple(dilation, n, "dilation")
    if any(s <= 0 for s in strides):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilations):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilations)}")
    return strides, dilations


def _conv_pads(padding: str | IntOrTuple, kernel: tuple[int, ...], strides: tuple[int, ...], dilations: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * len(kernel)
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in strides):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        # An odd total puts the extra element on the high side, as PyTorch does.
        return tuple((d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for k, d in zip(kernel, dilations, strict=True))
    pads = ntuple(padding, len(kernel), "padding")
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    return tuple((p, p) for p in pads)


def _conv(n: int, name: str, input: Tensor, weight: Tensor, bias: Tensor | None, stride: IntOrTuple,
          padding: str | IntOrTuple, dilation: IntOrTuple, groups: int) -> Tensor:
    x, unbatched = _batched(input, n, name)
    _check_conv(x, weight, bias, groups, transposed=False)
    strides, dilations = _geometry(stride, dilation, n)
    kernel = tuple(weight.shape[2:])
    pads = _conv_pads(padding, kernel, strides, dilations)
    padded = tuple(size + lo + hi for size, (lo, hi) in zip(x.shape[2:], pads, strict=True))
    if any(p < d * (k - 1) + 1 for p, k, d in zip(padded, kernel, dilations, strict=True)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
            f"({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual input size"
        )
    params = ConvParams(strides, pads, dilations, groups)
    out = convolution(x, weight, bias, params._replace(pads=exact_pads(x.shape[2:], kernel, params)))
    return squeeze(out, 0) if unbatched else out


def _per_dim(output_padding: tuple[int, ...], strides: tuple[int, ...], dilations: tuple[int, ...]) -> str:
    """PyTorch's listing of transposed-convolution geometry, where a 1-d convolution runs as a 2-d one of height 1."""
    names = ("depth", "height", "width")[-max(len(strides), 2):]
    if len(strides) == 1:
        output_padding, strides, dilations = (0, *output_padding), (1, *strides), (1, *dilations)
    return " ".join(f"{what}_{name}: {v}" for what, values in (("output_padding", output_padding), ("stride", strides),
                                                             ("dilation", dilations)) for name, v in zip(names, values, strict=True))


def _conv_transpose(n: int, name: str, input: Tensor, weight: Tensor, bias: Tensor | None, stride: IntOrTuple,
                    padding: IntOrTuple, output_padding: IntOrTuple, groups: int, dilation: IntOrTuple) -> Tensor:
    x, unbatched = _batched(input, n, name)
    _check_conv(x, weight, bias, groups, transposed=True)
    strides, dilations = _geometry(stride, dilation, n)
    pads, extra = ntuple(padding, n, "padding"), ntuple(output_padding, n, "output_padding")
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    if any(e >= s and e >= d for e, s, d in zip(extra, strides, dilations, strict=True)):
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {_per_dim(extra, strides, dilations)}")
    # The transposed direction's exact pads: `output_padding` extends the high side.
    params = ConvParams(strides, tuple((p, p - e) for p, e in zip(pads, extra, strict=True)), dilations, groups)
    sizes = tuple((i - 1) * s + d * (k - 1) + 1 - 2 * p + e for i, k, s, d, p, e in
                  zip(x.shape[2:], weight.shape[2:], strides, dilations, pads, extra, strict=True))
    if any(s <= 0 for s in sizes):
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, x.shape[2:]))}). Calculated output size per channel: "
            f"({' x '.join(map(str, sizes))}). Output size is too small"
        )
    out = convolution(x, weight, bias, params, transposed=True)
    return squeeze(out, 0) if unbatched else out


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: IntOrTuple = 1,
           padding: str | IntOrTuple = 0, dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    return _conv(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: IntOrTuple = 1,
           padding: str | IntOrTuple = 0, dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    return _conv(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: IntOrTuple = 1,
           padding: str | IntOrTuple = 0, dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    return _conv(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: IntOrTuple = 1,
                     padding: IntOrTuple = 0, output_padding: IntOrTuple = 0, groups: int = 1,
                     dilation: IntOrTuple = 1) -> Tensor:
    return _conv_transpose(1, "conv_transpose1d", input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: IntOrTuple = 1,
                     padding: IntOrTuple = 0, output_padding: IntOrTuple = 0, groups: int = 1,
                     dilation: IntOrTuple = 1) -> Tensor:
    return _conv_transpose(2, "conv_transpose2d", input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: IntOrTuple = 1,
                     padding: IntOrTuple = 0, output_padding: IntOrTuple = 0, groups: int = 1,
                     dilation: IntOrTuple = 1) -> Tensor:
    return _conv_transpose(3, "conv_transpose3d", input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """A 1-d convolution of (time, batch, channels) sequences, summed kernel tap by kernel tap as PyTorch's CPU
    kernel does: a matmul per tap, so an output of no steps is simply empty."""
    refuse_forward_ad("conv_tbc", input, weight, bias)
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    if not isinstance(pad, (int, np.integer)) or isinstance(pad, bool):
        raise TypeError(f"conv_tbc(): argument 'pad' (position 4) must be int, not {type(pad).__name__}")
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {input.dtype.scalar_name} and "
                           f"{weight.dtype.scalar_name}")
    kernel = weight.shape[0]
    steps = input.shape[0] + 2 * pad - kernel + 1
    if steps < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {steps}: [{steps}, {input.shape[1]}, {weight.shape[2]}]")
    padded = _constant_pad(input, ((pad, pad), (0, 0), (0, 0)), 0) if pad else input
    return sum((padded[k : k + steps] @ weight[k] for k in range(kernel)), start=bias)


# -- unfold (im2col) and fold (col2im): each other's adjoint --------------------------------------------------------
Im2ColBackward0 = derivative("Im2ColBackward0", self=lambda grad, size, geometry: _col2im(grad, size, geometry))
Col2ImBackward0 = derivative("Col2ImBackward0", self=lambda grad, geometry: _im2col(grad, geometry))


def _im2col(x: Tensor, geometry: tuple[tuple[int, ...], ConvParams]) -> Tensor:
    cols = im2col(x._data, *geometry)
    out = cols.reshape(*cols.shape[:2], math.prod(cols.shape[2:]))
    return Im2ColBackward0.record(out, (x,), size=tuple(x.shape[2:]), geometry=geometry)


def _col2im(x: Tensor, size: tuple[int, ...], geometry: tuple[tuple[int, ...], ConvParams]) -> Tensor:
    blocks = block_counts(size, *geometry)
    out = col2im(x._data.reshape(*x.shape[:2], *blocks), size, *geometry)
    return Col2ImBackward0.record(out, (x,), geometry=geometry)


def _pair(value: IntOrTuple, name: str) -> tuple[int, int]:
    if isinstance(value, (int, np.integer)):
        return (int(value),) * 2
    values = tuple(int(v) for v in value)
    if len(values) != 2:  # unlike the convolutions, one value in a list is not repeated
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(values)}")
    return values[0], values[1]


def _fold_geometry(kernel_size: IntOrTuple, dilation: IntOrTuple, padding: IntOrTuple, stride: IntOrTuple) -> tuple[tuple[int, ...], ConvParams]:
    kernel, dilations, pads, strides = (_pair(v, name) for v, name in (
        (kernel_size, "kernel_size"), (dilation, "dilation"), (padding, "padding"), (stride, "stride")))
    for what, name, (h, w), least in (("kernel size", "kernel", kernel, 1), ("stride", "stride", strides, 1),
                                      ("dilation", "dilation", dilations, 1), ("padding", "pad", pads, 0)):
        if min(h, w) < least:
            bound = "non-negative" if least == 0 else "greater than zero"
            raise RuntimeError(f"{what} should be {bound}, but got {name}_height: {h} {name}_width: {w}")
    return kernel, ConvParams(strides, tuple((p, p) for p in pads), dilations)


def _described(kernel: tuple[int, ...], p: ConvParams) -> str:
    return f"kernel_size={kernel}, dilation={p.dilation}, padding={tuple(lo for lo, _ in p.pads)}"


def unfold(input: Tensor, kernel_size: IntOrTuple, dilation: IntOrTuple = 1, padding: IntOrTuple = 0, stride: IntOrTuple = 1) -> Tensor:
    kernel, p = geometry = _fold_geometry(kernel_size, dilation, padding, stride)
    if input.ndim < 3:
        last = max(input.ndim, 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-last}, {last - 1}], but got {last})")
    if input.ndim > 4 or 0 in input.shape[-3:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: {list(input.shape)}")
    x, unbatched = (unsqueeze(input, 0), True) if input.ndim == 3 else (input, False)
    blocks = block_counts(x.shape[2:], kernel, p)
    if min(blocks) < 1:
        raise RuntimeError(
            f"Given input with spatial size {tuple(x.shape[2:])}, {_described(kernel, p)}, calculated shape of the array of "
            f"sliding blocks as {blocks}, but its components must be at least one."
        )
    out = _im2col(x, geometry)
    return squeeze(out, 0) if unbatched else out


def fold(input: Tensor, output_size: IntOrTuple, kernel_size: IntOrTuple, dilation: IntOrTuple = 1,
         padding: IntOrTuple = 0, stride: IntOrTuple = 1) -> Tensor:
    size = _pair(output_size, "output_size")
    kernel, p = geometry = _fold_geometry(kernel_size, dilation, padding, stride)
    if input.ndim not in (2, 3) or 0 in input.shape[-2:]:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: {list(input.shape)}")
    x, unbatched = (unsqueeze(input, 0), True) if input.ndim == 2 else (input, False)
    if x.shape[1] % math.prod(kernel):
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={x.shape[1]} and kernel_size={kernel}."
        )
    blocks = block_counts(size, kernel, p)
    described = f"Given output_size={size}, {_described(kernel, p)}, stride={p.stride}"
    if x.shape[2] != math.prod(blocks):
        raise RuntimeError(
            f"{described}, expected size of input's dimension 2 to match the calculated number of sliding blocks "
            f"{blocks[0]} * {blocks[1]} = {math.prod(blocks)}, but got input.size(2)={x.shape[2]}."
        )
    if min(blocks) < 1:
        raise RuntimeError(f"{described}, calculated shape of the array of sliding blocks as {blocks}, which is too small (non-positive)")
    out = _col2im(x, size, geometry)
    return squeeze(out, 0) if unbatched else out


# -- pad -------------------------------------------------------------------------------------------------------
ConstantPadNdBackward0 = derivative(
    "ConstantPadNdBackward0", self=lambda grad, pads: _constant_pad(grad, tuple((-lo, -hi) for lo, hi in pads), 0)
)


def _constant_pad(x: Tensor, pads: tuple[tuple[int, int], ...], value: Any) -> Tensor:
    lead = x.ndim - len(pads)
    for i, (lo, hi) in enumerate(pads):
        if x.shape[lead + i] + lo + hi < 0:
            raise RuntimeError(
                f"The input size {x.shape[lead + i]}, plus negative padding {lo} and {hi} resulted in a negative output "
                f"size, which is invalid. Check dimension {lead + i} of your input."
            )
    return ConstantPadNdBackward0.record(pad_crop(x._data, pads, value), (x,), pads=pads)


def _untake(grad: Tensor, picks: tuple[tuple[int, np.ndarray], ...], self_shape: tuple[int, ...]) -> Tensor:
    """The adjoint of taking `idx` along each dim: gradients summed back where they were taken from."""
    for dim, idx in reversed(picks):
        shape = (*grad.shape[:dim], self_shape[dim], *grad.shape[dim + 1 :])
        index = np.broadcast_to(idx.reshape((-1,) + (1,) * (grad.ndim - dim - 1)), grad.shape)
        grad = scatter_into_zeros(grad, shape, dim, Tensor._wrap(index))
    return grad


_PAD_INDEX: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "reflect": lambda j, n: np.abs((j + n - 1) % (2 * n - 2) - (n - 1)) if n > 1 else np.zeros_like(j),
    "replicate": lambda j, n: np.clip(j, 0, n - 1),
    "circular": lambda j, n: j % n,
}
_PAD_NAMES = {"reflect": "ReflectionPad{}DBackward0", "replicate": "ReplicationPad{}DBackward0", "circular": "CircularPad{}DBackward0"}
_PAD_ENTRIES = {
    name.format(k): derivative(name.format(k), self=lambda grad, picks, self_shape: _untake(grad, picks, self_shape))
    for name in _PAD_NAMES.values() for k in (1, 2, 3)
}
for _entry in _PAD_ENTRIES.values():  # linear, reading no input values: the formula holds for complex tensors as written
    for_complex(_entry, **_entry.formulas)


def _index_pad(x: Tensor, pads: tuple[tuple[int, int], ...], mode: str) -> Tensor:
    k = len(pads)
    if not (k + 1 <= x.ndim <= k + 2):
        raise NotImplementedError(
            f"Padding size {2 * k} is not supported for {x.ndim}D input tensor.\nSupported combinations for non-constant "
            "padding:\n  - 2D or 3D input: padding size = 2 (pads last dimension)\n  - 3D or 4D input: padding size = 4 "
            "(pads last 2 dimensions)\n  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    lead = x.ndim - k
    if any(s == 0 for s in x.shape[1:]):
        raise RuntimeError(f"Expected {lead + k - 1}D or {lead + k}D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: {list(x.shape)}")
    picks, out = [], x._data
    for i, (lo, hi) in enumerate(pads):
        n = x.shape[lead + i]
        if (mode == "reflect" and max(lo, hi) >= n) or (mode == "circular" and max(lo, hi) > n):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, but got: padding ({lo}, {hi}) at "
                f"dimension {lead + i} of input {list(x.shape)}"
            )
        idx = _PAD_INDEX[mode](np.arange(-lo, n + hi), n)
        picks.append((lead + i, idx))
        out = np.take(out, idx, axis=lead + i)
    entry = _PAD_ENTRIES[_PAD_NAMES[mode].format(k)]
    return entry.record(out, (x,), picks=tuple(picks), self_shape=tuple(x.shape))


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input dimension but got padding length "
            f"{len(pad)} and input of dimension {input.ndim}"
        )
    # PyTorch's pad tuple starts from the last dim.
    pads = tuple((int(pad[2 * i]), int(pad[2 * i + 1])) for i in reversed(range(len(pad) // 2)))
    if mode == "constant":
        return _constant_pad(input, pads, 0 if value is None else value)
    if mode not in _PAD_INDEX:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    return _index_pad(input, pads, mode)


# -- dropout ---------------------------------------------------------------------------------------------------
def _noisy(input: Tensor, p: float, training: bool, inplace: bool, alpha: bool, features: str = "") -> Tensor:
    """Dropout's noise times the input. `features` draws one value per channel, as PyTorch's feature_dropout:
    "batched" per (sample, channel) of an (N, C, ...) input, "unbatched" per channel of a (C, ...) one (which
    PyTorch gets by unsqueezing a batch dim and squeezing it off again)."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if features and input.ndim < (2 if features == "batched" else 1):
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    lead = {"batched": 2, "unbatched": 1}.get(features, input.ndim)
    shape = (*input.shape[:lead], *(1,) * (input.ndim - lead))
    keep = default_generator._rng.random(shape) < 1 - p
    dtype = input._data.dtype
    shift = None
    if not alpha:
        noise = keep / (1 - p) if p < 1 else np.zeros(shape)
    else:
        # alpha_dropout keeps the mean and variance of a standard normal input (SELU's fixed point).
        a_selu = 1.7580993408473766
        a = 1.0 / np.sqrt((a_selu * a_selu * p + 1) * (1 - p)) if p < 1 else 0.0
        noise = keep * a
        shift = Tensor._wrap(((keep - 1.0) * a_selu * a + a_selu * a * p).astype(dtype))
    factor = Tensor._wrap(noise.astype(dtype))

    def compute(x: Tensor) -> Tensor:
        y = mul(x, factor)
        return y if shift is None else y + shift

    return apply_inplace(input, compute) if inplace else compute(input)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _noisy(input, p, training, inplace, alpha=False)


def aten_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """torch.dropout: ATen's op under F.dropout, with `train` required and a RuntimeError for a bad p."""
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    return _noisy(input, p, train, inplace=False, alpha=False)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    return _noisy(input, p, training, inplace, alpha=True)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that dropout1d exists to "
            "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional "
            "batch dimension (i.e. 2D or 3D inputs)."
        )
    return _noisy(input, p, training, inplace, alpha=False, features="batched" if input.ndim == 3 else "unbatched")


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and will result in an "
            "error in a future release. To retain the behavior and silence this warning, please use dropout instead. "
            "Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial dimensions, a "
            "channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _noisy(input, p, training, inplace, alpha=False, features="batched")


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and will result in an "
            "error in a future release. To retain the behavior and silence this warning, please use dropout instead. "
            "Note that dropout3d exists to provide channel-wise dropout on inputs with 3 spatial dimensions, a "
            "channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    return _noisy(input, p, training, inplace, alpha=False, features="batched" if input.ndim == 5 else "unbatched")


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    return _noisy(input, p, training, inplace, alpha=True, features="batched")


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "conv1d": conv1d, "conv2d": conv2d, "conv3d": conv3d, "conv_transpose1d": conv_transpose1d,
    "conv_transpose2d": conv_transpose2d, "conv_transpose3d": conv_transpose3d, "conv_tbc": conv_tbc,
    "unfold": unfold, "fold": fold, "pad": pad, "dropout": dropout,
    "alpha_dropout": alpha_dropout, "dropout1d": dropout1d, "dropout2d": dropout2d, "dropout3d": dropout3d,
    "feature_alpha_dropout": feature_alpha_dropout, **pooling.FUNCTIONS,
}
METHODS: dict[str, Callable[..., Any]] = {}
# PyTorch also has these as torch.X: the convolutions as the very same functions, dropout with ATen's signature.
ALSO: dict[str, dict[str, Callable[..., Any]]] = {
    "glassgrad": {
        **{name: FUNCTIONS[name] for name in ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                                              "conv_transpose3d", "conv_tbc")},
        "dropout": aten_dropout,
    },
}
INPLACE: tuple[str, ...] = ()
