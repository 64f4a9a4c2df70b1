"""Adamax: Adam with an infinity-norm second moment."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .optimizer import Optimizer, check_hyperparameters, lerp_, scalar_tensor, weight_decayed, zeros_state


class Adamax(Optimizer):
    def __init__(
        self, params: Iterable[Any], lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
        weight_decay: float = 0, foreach: bool | None = None, *, maximize: bool = False, differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_hyperparameters(lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        if not state:
            state.update(step=scalar_tensor(0.0), exp_avg=zeros_state(param), exp_inf=zeros_state(param))
        beta1, beta2 = group["betas"]
        state["step"]._data += 1
        step = float(state["step"].item())
        param, grad = weight_decayed(param, grad, group)
        exp_avg, exp_inf = state["exp_avg"]._data, state["exp_inf"]._data
        lerp_(exp_avg, grad, 1 - beta1)
        exp_inf *= beta2
        np.maximum(exp_inf, np.abs(grad) + group["eps"], out=exp_inf)
        clr = group["lr"] / (1 - beta1**step)
        return param - clr * (exp_avg / exp_inf)
