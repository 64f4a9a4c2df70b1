"""Adam (and, with decoupled weight decay, AdamW), with amsgrad and maximize."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import optimizer
from .optimizer import (
    Optimizer,
    check_hyperparameters,
    counted,
    one_pass,
    scalar_tensor,
    update_moments,
    weight_decayed,
    zeros_state,
)


class Adam(Optimizer):
    def __init__(
        self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
        weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None, maximize: bool = False,
        capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        check_hyperparameters(lr, eps=eps, betas=betas, weight_decay=weight_decay)
        # PyTorch's Adam (and AdamW) insist on one kind for both betas, so an int such as betas=(0, 0.99) is refused
        if not (all(isinstance(b, float) for b in betas) or all(isinstance(b, Tensor) for b in betas)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
            "maximize": maximize, "foreach": foreach, "capturable": capturable, "differentiable": differentiable,
            "fused": fused, "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _sparse_gradient(self, grad: Tensor, group: dict[str, Any]) -> np.ndarray:
        raise RuntimeError("Adam does not support sparse gradients, please consider SparseAdam instead")

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        if not state:
            state.update(step=scalar_tensor(0.0), exp_avg=zeros_state(param), exp_avg_sq=zeros_state(param))
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_state(param)
        beta1, beta2 = group["betas"]
        step = counted(state)
        step_size = group["lr"] / (1 - beta1**step)
        bias_correction2_sqrt = math.sqrt(1 - beta2**step)
        exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
        max_exp_avg_sq = state["max_exp_avg_sq"]._data if group["amsgrad"] else None
        flat = one_pass(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq)
        if flat is not None:  # the loop applies the weight decay too
            optimizer.fused.adam(
                *flat, beta1, beta2, step_size, bias_correction2_sqrt, group["eps"], group["weight_decay"],
                group.get("decoupled_weight_decay", False), group["lr"],
            )
            return param
        param, grad = weight_decayed(param, grad, group)
        update_moments(grad, state, group)
        second = exp_avg_sq
        if max_exp_avg_sq is not None:
            second = max_exp_avg_sq
            np.maximum(second, exp_avg_sq, out=second)
        # PyTorch's denom = sqrt(v) / sqrt(1 - beta2^t) + eps and param.addcdiv_(m, denom, -step_size), in place
        # through one temporary
        update = np.sqrt(second, out=np.empty_like(second))  # an array even for a 0-d parameter (the divide writes into it)
        update /= bias_correction2_sqrt
        update += group["eps"]
        np.divide(exp_avg, update, out=update)
        update *= step_size
        param -= update
        return param
