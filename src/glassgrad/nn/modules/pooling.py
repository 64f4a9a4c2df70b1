"""Pooling modules at torch.nn.modules.pooling; arguments are kept as given (ints stay ints), as PyTorch does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from ...tensor import Tensor
from .. import functional as F
from .module import Module

Size = int | tuple[int, ...]


class _MaxPoolNd(Module):
    _function: ClassVar[Callable[..., Any]]

    def __init__(
        self, kernel_size: Size, stride: Size | None = None, padding: Size = 0, dilation: Size = 1,
        return_indices: bool = False, ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Any:
        return type(self)._function(
            input, self.kernel_size, self.stride, self.padding, self.dilation, ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    _function = F.max_pool1d


class MaxPool2d(_MaxPoolNd):
    _function = F.max_pool2d


class _AvgPoolNd(Module):
    def __init__(
        self, kernel_size: Size, stride: Size | None = None, padding: Size = 0, ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    def __init__(
        self, kernel_size: Size, stride: Size | None = None, padding: Size = 0, ceil_mode: bool = False,
        count_include_pad: bool = True, divisor_override: int | None = None,
    ) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad, self.divisor_override
        )


class _AdaptivePoolNd(Module):
    _function: ClassVar[Callable[..., Tensor]]

    def __init__(self, output_size: int | tuple[int | None, ...] | None) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePoolNd):
    _function = F.adaptive_avg_pool1d


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    def __init__(self, output_size: int | tuple[int | None, ...] | None, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return type(self)._function(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    _function = F.adaptive_max_pool1d


class AdaptiveAvgPool2d(_AdaptivePoolNd):
    _function = F.adaptive_avg_pool2d
