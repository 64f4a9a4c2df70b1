"""RAdam: Adam with the variance rectification term (plain momentum SGD while the variance is intractable)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from .optimizer import Optimizer, adam_moments, check_hyperparameters, scalar_tensor, zeros_state


class RAdam(Optimizer):
    def __init__(
        self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
        weight_decay: float = 0, decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
        maximize: bool = False, capturable: bool = False, differentiable: bool = False,
    ) -> None:
        check_hyperparameters(lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
            "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        if not state:
            state.update(step=scalar_tensor(0.0), exp_avg=zeros_state(param), exp_avg_sq=zeros_state(param))
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        param, grad, step = adam_moments(param, grad, state, group)
        exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
        bias_correction2 = 1 - beta2**step
        corrected = exp_avg / (1 - beta1**step)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * beta2**step / bias_correction2
        if rho_t <= 5.0:
            return param - corrected * lr
        rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        adaptive_lr = math.sqrt(bias_correction2) / (np.sqrt(exp_avg_sq) + group["eps"])
        return param - corrected * lr * adaptive_lr * rect
