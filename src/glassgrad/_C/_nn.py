"""torch._C._nn: `_parse_to`, which reads the arguments of Tensor.to and Module.to, and the test op whose backward
warns."""

from __future__ import annotations

import warnings
from typing import Any

from .. import _device, _dtype
from ..autograd.function import Function
from ..tensor import Tensor, device


def _parse_to(*args: Any, **kwargs: Any) -> tuple[device | None, _dtype.dtype | None, bool, Any]:
    """(device, dtype, non_blocking, memory_format) from to(device, dtype, non_blocking), to(dtype), to(tensor)."""
    place: device | None = None
    target: _dtype.dtype | None = None
    non_blocking = bool(kwargs.get("non_blocking", False))
    for arg in args:
        if isinstance(arg, Tensor):
            place, target = arg.device, arg.dtype
        elif isinstance(arg, bool):
            non_blocking = arg
        elif _device.is_device_like(arg):
            place = device(arg)
        elif arg is not None:
            target = _dtype.to_dtype(arg)
    if kwargs.get("device") is not None:
        place = device(kwargs["device"])
    if kwargs.get("dtype") is not None:
        target = _dtype.to_dtype(kwargs["dtype"])
    return place, target, non_blocking, kwargs.get("memory_format")


class _WarnInBackward(Function):
    @staticmethod
    def forward(ctx: Any, input: Tensor) -> Tensor:
        return input.clone()

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        warnings.warn("Warn from backward", UserWarning, stacklevel=2)
        return grad


def _test_warn_in_autograd(input: Tensor) -> Tensor:
    """A copy of input whose backward warns "Warn from backward" (PyTorch's check that such warnings surface)."""
    return _WarnInBackward.apply(input)
