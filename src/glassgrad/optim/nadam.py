"""NAdam: Adam with Nesterov momentum and a momentum-decay schedule."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .optimizer import Optimizer, adam_moments, check_hyperparameters, scalar_tensor, zeros_state


class NAdam(Optimizer):
    def __init__(
        self, params: Iterable[Any], lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
        weight_decay: float = 0, momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *,
        foreach: bool | None = None, maximize: bool = False, capturable: bool = False, differentiable: bool = False,
    ) -> None:
        check_hyperparameters(lr, eps=eps, betas=betas, weight_decay=weight_decay)
        if not momentum_decay >= 0.0:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize, "foreach": foreach,
            "capturable": capturable, "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        if not state:
            state.update(
                step=scalar_tensor(0.0), mu_product=scalar_tensor(1.0), exp_avg=zeros_state(param),
                exp_avg_sq=zeros_state(param),
            )
        beta1, beta2 = group["betas"]
        lr, decay = group["lr"], group["momentum_decay"]
        param, grad, step = adam_moments(param, grad, state, group)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * decay))
        # mu_product is a scalar-dtype tensor in PyTorch (float32 by default): its rounding is part of the trajectory.
        state["mu_product"]._data *= mu
        mu_product = float(state["mu_product"].item())
        exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
        denom = np.sqrt(exp_avg_sq / (1 - beta2**step)) + group["eps"]
        param = param + (-lr * (1.0 - mu) / (1.0 - mu_product)) * (grad / denom)
        return param + ((-lr * mu_next) / (1.0 - mu_product * mu_next)) * (exp_avg / denom)
