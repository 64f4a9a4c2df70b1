"""Adadelta: per-parameter step sizes from running averages of squared gradients and squared updates."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .optimizer import Optimizer, check_hyperparameters, scalar_tensor, weight_decayed, zeros_state


class Adadelta(Optimizer):
    def __init__(
        self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
        foreach: bool | None = None, *, capturable: bool = False, maximize: bool = False, differentiable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_hyperparameters(lr, eps=eps, weight_decay=weight_decay)
        defaults = {
            "lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
            "capturable": capturable, "foreach": foreach, "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        if not state:
            state.update(step=scalar_tensor(0.0), square_avg=zeros_state(param), acc_delta=zeros_state(param))
        rho, eps = group["rho"], group["eps"]
        state["step"]._data += 1
        param, grad = weight_decayed(param, grad, group)
        square_avg, acc_delta = state["square_avg"]._data, state["acc_delta"]._data
        square_avg *= rho
        square_avg += (1 - rho) * (grad * grad)
        delta = np.sqrt(acc_delta + eps) / np.sqrt(square_avg + eps) * grad
        acc_delta *= rho
        acc_delta += (1 - rho) * (delta * delta)
        return param - group["lr"] * delta
