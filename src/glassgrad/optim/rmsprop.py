"""RMSprop with centering, momentum, weight decay and maximize."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .optimizer import Optimizer, check_hyperparameters, lerp_, scalar_tensor, weight_decayed, zeros_state


class RMSprop(Optimizer):
    def __init__(
        self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
        momentum: float = 0, centered: bool = False, capturable: bool = False, foreach: bool | None = None,
        maximize: bool = False, differentiable: bool = False,
    ) -> None:
        check_hyperparameters(lr, eps=eps, momentum=momentum, alpha=alpha, weight_decay=weight_decay)
        defaults = {
            "lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
            "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        if not state:
            state.update(step=scalar_tensor(0.0), square_avg=zeros_state(param))
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_state(param)
            if group["centered"]:
                state["grad_avg"] = zeros_state(param)
        alpha = group["alpha"]
        state["step"]._data += 1
        param, grad = weight_decayed(param, grad, group)
        square_avg = state["square_avg"]._data
        square_avg *= alpha
        square_avg += (1 - alpha) * grad * grad
        if group["centered"]:
            grad_avg = state["grad_avg"]._data
            lerp_(grad_avg, grad, 1 - alpha)
            avg = np.sqrt(square_avg - grad_avg * grad_avg) + group["eps"]
        else:
            avg = np.sqrt(square_avg) + group["eps"]
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]._data
            buf *= group["momentum"]
            buf += grad / avg
            return param - group["lr"] * buf
        return param - group["lr"] * (grad / avg)
