"""Conv1d/2d/3d and ConvTranspose1d/2d/3d at torch.nn.modules.conv, with PyTorch's weight layout and initialisation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...ops.creation import empty
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _ntuple(value: int | Sequence[int], n: int) -> tuple[int, ...]:
    return tuple(value) if isinstance(value, Sequence) else (value,) * n


def _reversed_padding(padding: str | tuple[int, ...], dilation: tuple[int, ...], kernel: tuple[int, ...]) -> list[int]:
    """F.pad's argument for a non-zero padding_mode: last dim first, (left, right) per dim; 'same' puts an odd
    total's extra element on the right."""
    if padding == "valid":
        return [0, 0] * len(kernel)
    totals = [d * (k - 1) for d, k in zip(dilation, kernel, strict=True)] if padding == "same" else [2 * p for p in padding]
    return [p for total in reversed(totals) for p in (total // 2, total - total // 2)]


class _ConvNd(Module):
    """The shared constructor: weight (out, in/groups, *kernel), or (in, out/groups, *kernel) when transposed."""

    _dims: int

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int], stride: int | Sequence[int],
        padding: str | int | Sequence[int], dilation: int | Sequence[int], transposed: bool,
        output_padding: int | Sequence[int], groups: int, bias: bool, padding_mode: str, device: Any, dtype: Any,
    ) -> None:
        super().__init__()
        n = self._dims
        kernel, strides, dilations = _ntuple(kernel_size, n), _ntuple(stride, n), _ntuple(dilation, n)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in {"same", "valid"}:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'same', 'valid'}}")
            if padding == "same" and any(s != 1 for s in strides):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel
        self.stride = strides
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = dilations
        self.transposed = transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = _reversed_padding(self.padding, dilations, kernel)
        shape = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(empty((*shape, *kernel), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init._default_reset_(self.weight, self.bias)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    def __init__(
        self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int], stride: int | Sequence[int] = 1,
        padding: str | int | Sequence[int] = 0, dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True,
        padding_mode: str = "zeros", device: Any = None, dtype: Any = None,
    ) -> None:
        super().__init__(
            in_channels, out_channels, kernel_size, stride, padding, dilation, False, 0, groups, bias, padding_mode,
            device, dtype,
        )

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        conv = getattr(F, f"conv{self._dims}d")
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    _dims = 1


class Conv2d(_Conv):
    _dims = 2


class Conv3d(_Conv):
    _dims = 3


class _ConvTransposeNd(_ConvNd):
    def __init__(
        self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int], stride: int | Sequence[int] = 1,
        padding: int | Sequence[int] = 0, output_padding: int | Sequence[int] = 0, groups: int = 1, bias: bool = True,
        dilation: int | Sequence[int] = 1, padding_mode: str = "zeros", device: Any = None, dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels, out_channels, kernel_size, stride, padding, dilation, True, output_padding, groups, bias,
            padding_mode, device, dtype,
        )

    def _output_padding(
        self, input: Tensor, output_size: Sequence[int] | None, stride: Sequence[int], padding: Sequence[int],
        kernel_size: Sequence[int], num_spatial_dims: int, dilation: Sequence[int] | None = None,
    ) -> tuple[int, ...]:
        """The output_padding that makes the output exactly `output_size` (PyTorch's signature, rule and messages)."""
        if output_size is None:
            return self.output_padding
        n = num_spatial_dims
        leading = 2 if input.dim() == n + 2 else 1
        sizes = list(output_size)
        if len(sizes) == leading + n:
            sizes = sizes[leading:]
        if len(sizes) != n:
            raise ValueError(
                f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or {leading + n} elements (got {len(sizes)})"
            )
        dilation = dilation or (1,) * n
        min_sizes = [
            (input.size(d + leading) - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel_size[d] - 1) + 1 for d in range(n)
        ]
        max_sizes = [m + s - 1 for m, s in zip(min_sizes, stride, strict=True)]
        for size, lo, hi in zip(sizes, min_sizes, max_sizes, strict=True):
            if not lo <= size <= hi:
                raise ValueError(
                    f"requested an output size of {sizes}, but valid sizes range from {min_sizes} to {max_sizes} "
                    f"(for an input of {input.size()[2:]})"
                )
        return tuple(size - lo for size, lo in zip(sizes, min_sizes, strict=True))

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        output_padding = self._output_padding(
            input, output_size, self.stride, self.padding, self.kernel_size, self._dims, self.dilation
        )
        return getattr(F, f"conv_transpose{self._dims}d")(
            input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups, self.dilation
        )


class ConvTranspose1d(_ConvTransposeNd):
    _dims = 1


class ConvTranspose2d(_ConvTransposeNd):
    _dims = 2


class ConvTranspose3d(_ConvTransposeNd):
    _dims = 3
