"""Adafactor: Adam-like steps whose second moment of a matrix is factored into row and column averages,
with a relative step size and update clipping (PyTorch 2.13's torch.optim.Adafactor, which has no momentum)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from .optimizer import Optimizer, lerp_, scalar_tensor, zeros_state


class Adafactor(Optimizer):
    def __init__(
        self, params: Iterable[Any], lr: float = 1e-2, beta2_decay: float = -0.8, eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0, weight_decay: float = 0.0, *, foreach: bool | None = None, maximize: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not beta2_decay <= 0.0:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not eps[0] >= 0.0:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not eps[1] >= 0.0:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not d >= 1.0:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not weight_decay >= 0.0:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay, "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        factored = grad.ndim > 1
        if not state:
            state["step"] = scalar_tensor(0.0)
            if factored:  # one average per row (last dim reduced) and one per column (second-to-last reduced)
                state["row_var"] = Tensor._wrap(np.zeros((*grad.shape[:-1], 1), dtype=grad.dtype))
                state["col_var"] = Tensor._wrap(np.zeros((*grad.shape[:-2], 1, grad.shape[-1]), dtype=grad.dtype))
            else:
                state["variance"] = zeros_state(param)
        lr, (eps1, eps2) = group["lr"], group["eps"]
        if eps1 is None:
            eps1 = float(_dtype.machine_limits(param.dtype).eps)
        state["step"]._data += 1
        step = float(state["step"].item())
        one_minus_beta2 = step ** group["beta2_decay"]
        alpha = max(eps2, float(np.linalg.norm(param.reshape(-1))) / math.sqrt(param.size)) * min(lr, 1 / step**0.5)
        if group["weight_decay"] != 0:
            param = param * (1 - lr * group["weight_decay"])
        if factored:
            row_var, col_var = state["row_var"]._data, state["col_var"]._data
            lerp_(row_var, np.linalg.norm(grad, axis=-1, keepdims=True) ** 2 / grad.shape[-1], one_minus_beta2)
            lerp_(col_var, np.linalg.norm(grad, axis=-2, keepdims=True) ** 2 / grad.shape[-2], one_minus_beta2)
            estimate = (row_var @ col_var) / np.maximum(row_var.mean(axis=-2, keepdims=True), eps1)
        else:
            variance = state["variance"]._data
            lerp_(variance, grad * grad, one_minus_beta2)
            estimate = variance.copy()
        update = grad / np.sqrt(np.maximum(estimate, eps1 * eps1))
        denom = max(1.0, float(np.linalg.norm(update.reshape(-1))) / (math.sqrt(update.size) * group["d"]))
        return param - (alpha / denom) * update
