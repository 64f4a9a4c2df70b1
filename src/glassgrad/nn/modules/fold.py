"""Fold and Unfold at torch.nn.modules.fold: F.fold and F.unfold with their arguments kept as given."""

from __future__ import annotations

from collections.abc import Sequence

from ...tensor import Tensor
from .. import functional as F
from .module import Module

IntOrPair = int | Sequence[int]


class Fold(Module):
    """Sums sliding blocks (N, C * prod(kernel_size), L) back into an image (N, C, *output_size)."""

    def __init__(self, output_size: IntOrPair, kernel_size: IntOrPair, dilation: IntOrPair = 1, padding: IntOrPair = 0,
                 stride: IntOrPair = 1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """Extracts sliding blocks of an image (N, C, H, W) as columns (N, C * prod(kernel_size), L)."""

    def __init__(self, kernel_size: IntOrPair, dilation: IntOrPair = 1, padding: IntOrPair = 0, stride: IntOrPair = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
