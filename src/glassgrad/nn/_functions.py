"""torch.nn._functions' CrossMapLRN2d: the legacy (Lua Torch) cross-channel LRN as an autograd.Function.

Forward and backward are PyTorch's running sums over channels, in its order, quirks included, so that values
and gradients match: the forward's window keeps channel 0 one step after it should have left (PyTorch
subtracts only for c > pre_pad), and the backward is the symmetric window's formula, not the exact
derivative of that forward. Like PyTorch's, it has no second derivative.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Function, FunctionCtx
from ..tensor import Tensor


class CrossMapLRN2d(Function):
    @staticmethod
    def forward(ctx: FunctionCtx, input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        x = input._data
        channels = x.shape[1]
        squares = x * x
        pre_pad = int((size - 1) / 2 + 1)
        scale = np.zeros_like(x)
        for c in range(min(pre_pad, channels)):
            scale[:, 0] += squares[:, c]
        for c in range(1, channels):  # each window is the previous one, plus the channel entering, minus the one leaving
            scale[:, c] = scale[:, c - 1]
            if c < channels - pre_pad + 1:
                scale[:, c] += squares[:, c + pre_pad - 1]
            if c > pre_pad:
                scale[:, c] -= squares[:, c - pre_pad]
        scale = scale * (alpha / size) + k
        out = Tensor._wrap((scale ** -beta * x).astype(x.dtype, copy=False))
        ctx.size, ctx.alpha, ctx.beta, ctx.scale = size, alpha, beta, scale
        ctx.save_for_backward(input, out)
        return out

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, ...]:
        input, output = ctx.saved_tensors
        x, size, scale = input._data, ctx.size, ctx.scale
        channels = x.shape[1]
        inverse_pre_pad = int(size - (size - 1) / 2)
        if inverse_pre_pad + channels > channels + size - 1:  # PyTorch's narrow of its padded buffer fails so
            raise RuntimeError(f"start ({inverse_pre_pad}) + length ({channels}) exceeds dimension size ({channels + size - 1}).")
        padded = np.zeros((x.shape[0], channels + size - 1, *x.shape[2:]), dtype=x.dtype)
        padded[:, inverse_pre_pad : inverse_pre_pad + channels] = grad_output._data * output._data / scale
        grad = scale ** -ctx.beta * grad_output._data
        accum = padded[:, : size - 1].sum(1)
        for c in range(channels):
            accum += padded[:, c + size - 1]
            grad[:, c] -= (2 * ctx.alpha * ctx.beta / size) * x[:, c] * accum
            accum -= padded[:, c]
        return Tensor._wrap(grad.astype(x.dtype, copy=False)), None, None, None, None
