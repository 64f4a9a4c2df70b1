"""The out-of-place halves of copy_, zero_ and fill_ (the in-place machinery is autograd.inplace)."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .elementwise import as_tensor_operand
from .table import derivative

CopyBackwards = derivative("CopyBackwards", ("self", "src"), src=lambda grad: grad)
FillBackward0 = derivative("FillBackward0", ("self", "value"), value=lambda grad: grad.sum())


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


def filled(destination: Tensor, value: Tensor | float) -> Tensor:
    source = as_tensor_operand(value, destination.dtype)
    if source.ndim:
        raise RuntimeError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {source.ndim} dimensions."
        )
    out = np.full(destination.shape, source._data, dtype=destination._data.dtype)
    return FillBackward0.record(out, (destination, source))
