"""The out-of-place halves of copy_, zero_ and fill_ (the in-place machinery is autograd.inplace)."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .creation import zeros_like
from .elementwise import as_tensor_operand
from .table import Derivative, derivative

# The overwritten value gets a zero gradient (not None), as in PyTorch.
CopyBackwards = derivative("CopyBackwards", ("self", "src"), self=lambda grad: zeros_like(grad), src=lambda grad: grad)
ZeroBackward0 = derivative("ZeroBackward0", ("self", "value"), self=lambda grad: zeros_like(grad))
FillBackward2 = derivative("FillBackward2", ("self", "value"), self=lambda grad: zeros_like(grad))
FillBackward3 = derivative(
    "FillBackward3", ("self", "value"), self=lambda grad: zeros_like(grad), value=lambda grad: grad.sum()
)


def copy_from(destination: Tensor, src: Tensor | float) -> Tensor:
    """`destination`'s shape and dtype, `src`'s values: no gradient reaches the old value."""
    source = as_tensor_operand(src, destination.dtype)
    try:
        out = np.broadcast_to(source._data, destination.shape).astype(destination._data.dtype)
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({destination.shape[-1] if destination.ndim else 1}) must match the size of "
            f"tensor b ({source.shape[-1] if source.ndim else 1}) at non-singleton dimension {max(destination.ndim - 1, 0)}"
        ) from None
    return CopyBackwards.record(out, (destination, source))


def zeroed(destination: Tensor) -> Tensor:
    return filled(destination, 0, ZeroBackward0)


def filled(destination: Tensor, value: Tensor | float, entry: Derivative | None = None) -> Tensor:
    if entry is None:
        entry = FillBackward3 if isinstance(value, Tensor) else FillBackward2
    source = as_tensor_operand(value, destination.dtype)
    if source.ndim:
        raise RuntimeError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {source.ndim} dimensions."
        )
    out = np.full(destination.shape, source._data, dtype=destination._data.dtype)
    return entry.record(out, (destination, source))
