"""glassgrad: define-by-run autodiff on NumPy with PyTorch's API and semantics, and a graph you can see through.

`import glassgrad as torch` runs PyTorch programs unchanged, within the
surface implemented so far.
"""

from __future__ import annotations

from . import autograd
from ._dtype import (
    bool_ as bool,  # noqa: A004 - torch.bool
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
)
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .ops import *  # noqa: F403
from .ops import abs, max, min, pow, sum  # noqa: A004
from .tensor import Size, Tensor, device, is_tensor

half, float, double = float16, float32, float64  # noqa: A001
long, int, short = int64, int32, int16  # noqa: A001


def result_type(tensor1: object, tensor2: object) -> dtype:
    from ._dtype import result_type as _result_type

    return _result_type(tensor1, tensor2)


def is_floating_point(input: Tensor) -> builtins_bool:  # type: ignore[valid-type]
    return input.dtype.is_floating_point


def numel(input: Tensor) -> int:  # type: ignore[valid-type]
    return input.numel()


import builtins as _builtins  # noqa: E402

builtins_bool = _builtins.bool

__version__ = "0.1.0"
