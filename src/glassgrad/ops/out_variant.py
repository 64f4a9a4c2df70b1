"""out=: an op's result written into a tensor the caller gives, as PyTorch's out= overloads do.

PyTorch records no graph for them: with grad mode on, an input or `out` that requires grad is an error, and so
is a dual tensor under forward AD. The write itself is `out.copy_(result)`, an in-place op like any other, so
it bumps out's version and meets the in-place rules (inference tensors, saved-tensor mutation); `out` is
resized first when its shape differs, with PyTorch's deprecation warning when it had elements.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .._dtype import can_cast
from ..autograd import forward_ad, grad_mode
from ..tensor import Tensor


def into(out: Tensor, op: Callable[..., Tensor], *args: Any, **kwargs: Any) -> Tensor:
    """op(*args, **kwargs) written into `out`, which is returned."""
    name = op.__name__
    tensors = [a for a in args if isinstance(a, Tensor)]
    tensors.append(out)
    if grad_mode.state.grad_enabled and any(t._requires_grad for t in tensors):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic differentiation, but one of the "
            "arguments requires grad."
        )
    if forward_ad.state.propagating and any(forward_ad.tangent_of(t) is not None for t in tensors):
        raise NotImplementedError(
            f"Trying to use forward AD with {name}_out that does not support it because it is an out= function"
        )
    with grad_mode.no_grad():
        result = op(*args, **kwargs)
        if not can_cast(result.dtype, out.dtype):
            raise RuntimeError(f"result type {result.dtype.scalar_name} can't be cast to the desired output type {out.dtype.scalar_name}")
        if out.shape != result.shape:
            if out.numel():
                warnings.warn(
                    f"An output with one or more elements was resized since it had shape {list(out.shape)}, which does "
                    f"not match the required output shape {list(result.shape)}. This behavior is deprecated, and in a "
                    "future PyTorch release outputs will not be resized unless they have zero elements. You can "
                    "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
                    UserWarning,
                    stacklevel=3,
                )
            out.resize_(result.shape)
        out.copy_(result)
    return out
