"""Padding modules at torch.nn.modules.padding: F.pad with the module's mode, 1 to 3 padded dims."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from ...tensor import Tensor
from .. import functional as F
from .module import Module

Padding = int | tuple[int, ...]


class _PadNd(Module):
    """`padding` as 2 * dims ints, last dim first ((left, right), then (top, bottom), ...), as F.pad takes it."""

    _mode: ClassVar[str]
    _dims: ClassVar[int]

    def __init__(self, padding: Padding) -> None:
        super().__init__()
        # PyTorch's _ntuple: a sequence is taken as given (its length checked only by F.pad), an int repeated.
        self.padding = tuple(padding) if isinstance(padding, Iterable) else (padding,) * (2 * self._dims)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input (got {input.dim()}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    _dims = 1


class CircularPad2d(_CircularPadNd):
    _dims = 2


class CircularPad3d(_CircularPadNd):
    _dims = 3


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    _dims = 1


class ReflectionPad2d(_ReflectionPadNd):
    _dims = 2


class ReflectionPad3d(_ReflectionPadNd):
    _dims = 3


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    _dims = 1


class ReplicationPad2d(_ReplicationPadNd):
    _dims = 2


class ReplicationPad3d(_ReplicationPadNd):
    _dims = 3


class _ConstantPadNd(_PadNd):
    _mode = "constant"

    def __init__(self, padding: Padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    _dims = 3


class _ZeroPad:
    """ZeroPadNd is a ConstantPadNd (isinstance holds, as in PyTorch) whose value is 0.0."""

    def __init__(self, padding: Padding) -> None:
        super().__init__(padding, 0.0)  # type: ignore[call-arg]

    def extra_repr(self) -> str:
        return f"{self.padding}"  # type: ignore[attr-defined]


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    pass


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    pass


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    pass

