"""The out-of-place halves of copy_, zero_ and fill_ (the in-place machinery is autograd.inplace), and the
shortcut for in-place arithmetic that records nothing."""

from __future__ import annotations

import numpy as np

from .._quiet import restore, silence
from ..autograd import grad_mode, inplace
from ..autograd.forward_ad import state as forward_state
from ..autograd.inplace import bump_version
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


def ufunc_inplace(t: Tensor, ufunc: np.ufunc, other: object) -> bool:
    """`t.op_(other)` straight into t's storage, when that is all it is; False leaves it to apply_inplace.

    That is: no node to record, a float tensor that may be written, and an operand of its own dtype and shape
    (or 0-d) or a Python number, so there is nothing to promote, broadcast or check.
    """
    data = t._data
    if data.dtype.kind != "f" or not data.flags.writeable:
        return False
    if type(other) is Tensor:
        operand = other._data
        if operand.dtype is not data.dtype or (operand.shape != data.shape and operand.ndim):
            return False
        records = other._requires_grad or t._requires_grad
    elif type(other) is float or type(other) is int:
        operand, records = other, t._requires_grad
    else:
        return False
    if (records and grad_mode.state.grad_enabled) or forward_state.propagating:  # a dual's tangent changes too
        return False
    base = t._base
    if base is not None and base._requires_grad and grad_mode.state.grad_enabled:  # apply_inplace's checks refuse it
        return False
    if inplace.before_write is not None:
        inplace.before_write(t)
    token = silence()
    try:
        ufunc(data, operand, out=data)
    finally:
        restore(token)
    bump_version(t)
    return True
