"""Pooling modules at torch.nn.modules.pooling; arguments are kept as PyTorch keeps them (as given, or as tuples
where its constructor makes them so)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from ...tensor import Tensor
from .. import functional as F
from .module import Module

Size = int | tuple[int, ...]


def _ntuple(value: Any, n: int) -> Any:
    """PyTorch's _single/_pair/_triple: a sequence as a tuple, anything else repeated n times."""
    return tuple(value) if isinstance(value, Iterable) else (value,) * n


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


class MaxPool3d(_MaxPoolNd):
    _function = F.max_pool3d


class _MaxUnpoolNd(Module):
    _function: ClassVar[Callable[..., Tensor]]
    _dims: ClassVar[int]

    def __init__(self, kernel_size: Size, stride: Size | None = None, padding: Size = 0) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, self._dims)
        self.stride = _ntuple(stride if stride is not None else kernel_size, self._dims)
        self.padding = _ntuple(padding, self._dims)

    def forward(self, input: Tensor, indices: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        return type(self)._function(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _function, _dims = F.max_unpool1d, 1


class MaxUnpool2d(_MaxUnpoolNd):
    _function, _dims = F.max_unpool2d, 2


class MaxUnpool3d(_MaxUnpoolNd):
    _function, _dims = F.max_unpool3d, 3


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
    def __init__(
        self, kernel_size: Size, stride: Size | None = None, padding: Size = 0, ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__(_ntuple(kernel_size, 1), _ntuple(stride if stride is not None else kernel_size, 1),
                         _ntuple(padding, 1), ceil_mode, count_include_pad)

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)


class _DivisorAvgPoolNd(_AvgPoolNd):
    """The 2-d and 3-d average pools, which also take divisor_override."""

    _function: ClassVar[Callable[..., Tensor]]

    def __init__(
        self, kernel_size: Size, stride: Size | None = None, padding: Size = 0, ceil_mode: bool = False,
        count_include_pad: bool = True, divisor_override: int | None = None,
    ) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad, self.divisor_override
        )


class AvgPool2d(_DivisorAvgPoolNd):
    _function = F.avg_pool2d


class AvgPool3d(_DivisorAvgPoolNd):
    _function = F.avg_pool3d


class _LPPoolNd(Module):
    _function: ClassVar[Callable[..., Tensor]]

    def __init__(self, norm_type: float, kernel_size: Size, stride: Size | None = None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, ceil_mode={self.ceil_mode}"


class LPPool1d(_LPPoolNd):
    _function = F.lp_pool1d


class LPPool2d(_LPPoolNd):
    _function = F.lp_pool2d


class LPPool3d(_LPPoolNd):
    _function = F.lp_pool3d


class _FractionalMaxPoolNd(Module):
    """Windows at random offsets drawn per plane from glassgrad's generator, unless _random_samples fixes them."""

    _function: ClassVar[Callable[..., Any]]
    _dims: ClassVar[int]

    def __init__(
        self, kernel_size: Size, output_size: Size | None = None, output_ratio: float | tuple[float, ...] | None = None,
        return_indices: bool = False, _random_samples: Tensor | None = None,
    ) -> None:
        super().__init__()
        name, n = type(self).__name__, self._dims
        if n == 3 and any(k <= 0 for k in _ntuple(kernel_size, n)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _ntuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        return type(self)._function(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                                    _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    _function, _dims = F.fractional_max_pool2d, 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _function, _dims = F.fractional_max_pool3d, 3


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


class AdaptiveAvgPool2d(_AdaptivePoolNd):
    _function = F.adaptive_avg_pool2d


class AdaptiveAvgPool3d(_AdaptivePoolNd):
    _function = F.adaptive_avg_pool3d


class _AdaptiveMaxPoolNd(_AdaptivePoolNd):
    def __init__(self, output_size: int | tuple[int | None, ...] | None, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return type(self)._function(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    _function = F.adaptive_max_pool1d


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    _function = F.adaptive_max_pool2d


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    _function = F.adaptive_max_pool3d
