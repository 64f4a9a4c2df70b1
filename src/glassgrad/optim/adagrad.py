"""Adagrad with learning-rate decay, an initial accumulator value, weight decay and maximize."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, check_hyperparameters, scalar_tensor, weight_decayed


class Adagrad(Optimizer):
    def __init__(
        self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
        initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
        maximize: bool = False, differentiable: bool = False, fused: bool | None = None,
    ) -> None:
        check_hyperparameters(lr, eps=eps, weight_decay=weight_decay)
        if not lr_decay >= 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not initial_accumulator_value >= 0.0:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        defaults = {
            "lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable, "fused": fused,
        }
        super().__init__(params, defaults)
        # Unlike the other optimizers, Adagrad creates its state eagerly (it shows in state_dict before any step).
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p].update(
                    step=scalar_tensor(0.0),
                    sum=Tensor._wrap(np.full_like(p._data, group["initial_accumulator_value"])),
                )

    def _sparse_gradient(self, grad: Tensor, group: dict[str, Any]) -> np.ndarray:
        """The dense array the gradient sums to: PyTorch's sparse route gives the same values (an element with no
        entry keeps its parameter and its sum of squares)."""
        if group["weight_decay"] != 0:
            raise RuntimeError("weight_decay option is not compatible with sparse gradients")
        return grad.to_dense()._data

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        state["step"]._data += 1
        step = float(state["step"].item())
        param, grad = weight_decayed(param, grad, group)
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state_sum = state["sum"]._data
        state_sum += grad * grad
        return param - clr * (grad / (np.sqrt(state_sum) + group["eps"]))
