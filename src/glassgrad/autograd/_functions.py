"""torch.autograd._functions: the legacy Functions PyTorch still ships; Resize is the one its tests and old code
call (a reshape recorded as a custom Function)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..tensor import Tensor
from .function import Function


class Resize(Function):
    @staticmethod
    def forward(ctx: Any, tensor: Tensor, sizes: Sequence[int]) -> Tensor:
        if tensor.numel() != math.prod(sizes):
            raise RuntimeError(
                f"requested resize to {'x'.join(map(str, sizes))} ({math.prod(sizes)} elements in total), but the "
                f"given tensor has a size of {'x'.join(map(str, tensor.shape))} ({tensor.numel()} elements). "
                "autograd's resize can only change the shape of a given tensor, while preserving the number of "
                "elements. "
            )
        ctx.input_sizes = tensor.shape
        return tensor.contiguous().clone().view(*sizes)

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor, None]:
        return grad_output.contiguous().view(ctx.input_sizes), None


__all__ = ["Resize"]
