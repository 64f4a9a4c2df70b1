"""Upsample, UpsamplingNearest2d and UpsamplingBilinear2d at torch.nn.modules.upsampling: F.interpolate with its
arguments kept on the module."""

from __future__ import annotations

from collections.abc import Sequence

from ...tensor import Tensor
from .. import functional as F
from .module import Module


class Upsample(Module):
    def __init__(self, size: int | Sequence[int] | None = None, scale_factor: float | tuple[float, ...] | None = None,
                 mode: str = "nearest", align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        # As PyTorch: factors are kept as floats, and a factor of 0 as None.
        if isinstance(scale_factor, tuple):
            self.scale_factor: float | tuple[float, ...] | None = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        shown = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return f"{shown}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size: int | Sequence[int] | None = None, scale_factor: float | tuple[float, ...] | None = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear with align_corners=True, as this legacy layer always was."""

    def __init__(self, size: int | Sequence[int] | None = None, scale_factor: float | tuple[float, ...] | None = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
