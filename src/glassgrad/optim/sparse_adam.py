"""SparseAdam: Adam's moments and step, updated only at the elements a sparse gradient has entries for."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, check_hyperparameters, zeros_state


class SparseAdam(Optimizer):
    def __init__(
        self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        check_hyperparameters(lr, eps=eps, betas=betas)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        sparse = [
            [i, j] for i, group in enumerate(self.param_groups) for j, p in enumerate(group["params"]) if p.is_sparse
        ]
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense parameter tensors")

    def _sparse_gradient(self, grad: Tensor, group: dict[str, Any]) -> Tensor:
        return grad.coalesce()  # one entry per element, so each is updated once

    def _update(self, param: np.ndarray, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        if not isinstance(grad, Tensor):
            raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
        if not state:
            state.update(step=0, exp_avg=zeros_state(param), exp_avg_sq=zeros_state(param))
        state["step"] += 1
        at, values = tuple(grad._sparse_indices), grad._sparse_values
        beta1, beta2 = group["betas"]
        exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
        # Each moment moves by its change at the entries (PyTorch's update values), then the step uses old + change.
        old_avg, old_sq = exp_avg[at], exp_avg_sq[at]
        avg_change = (values - old_avg) * (1 - beta1)
        sq_change = (values * values - old_sq) * (1 - beta2)
        exp_avg[at] += avg_change
        exp_avg_sq[at] += sq_change
        step = state["step"]
        step_size = group["lr"] * math.sqrt(1 - beta2**step) / (1 - beta1**step)
        param[at] += -step_size * ((avg_change + old_avg) / (np.sqrt(sq_change + old_sq) + group["eps"]))
        return param
