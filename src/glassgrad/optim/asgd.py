"""ASGD: SGD with a decaying step size eta and a running average `ax` of the iterates."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .optimizer import Optimizer, check_hyperparameters, scalar_tensor, weight_decayed, zeros_state


class ASGD(Optimizer):
    def __init__(
        self, params: Iterable[Any], lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
        weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False, differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_hyperparameters(lr, weight_decay=weight_decay)
        defaults = {
            "lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        lr, lambd = group["lr"], group["lambd"]
        if not state:
            # eta and mu are scalar-dtype tensors (float32 by default) in PyTorch: their rounding is part of the trajectory.
            state.update(step=scalar_tensor(0.0), eta=scalar_tensor(lr), mu=scalar_tensor(1.0), ax=zeros_state(param))
        state["step"]._data += 1
        _, grad = weight_decayed(param, grad, group)
        eta = float(state["eta"].item())
        param = param * (1 - lambd * eta) - eta * grad
        ax, mu = state["ax"]._data, float(state["mu"].item())
        if mu != 1:
            ax += (param - ax) * mu
        else:
            ax[...] = param
        step = float(state["step"].item())
        state["eta"]._data[...] = lr / ((1 + lambd * lr * step) ** group["alpha"])
        state["mu"]._data[...] = 1 / max(1, step - group["t0"])
        return param
