"""Rprop: per-element step sizes that grow while the gradient keeps its sign and shrink when it flips."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, check_hyperparameters, scalar_tensor, zeros_state


class Rprop(Optimizer):
    def __init__(
        self, params: Iterable[Any], lr: float = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False, foreach: bool | None = None,
        maximize: bool = False, differentiable: bool = False,
    ) -> None:
        check_hyperparameters(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
            "differentiable": differentiable, "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        if not state:
            state.update(step=scalar_tensor(0.0), prev=zeros_state(param),
                         step_size=Tensor._wrap(np.full_like(grad, group["lr"])))
        etaminus, etaplus = group["etas"]
        state["step"]._data += 1
        prev, step_size = state["prev"]._data, state["step_size"]._data
        agreement = np.sign(grad * prev)
        factor = np.where(agreement > 0, etaplus, np.where(agreement < 0, etaminus, 1)).astype(grad.dtype)
        np.clip(step_size * factor, *group["step_sizes"], out=step_size)
        grad = np.where(factor == factor.dtype.type(etaminus), 0, grad)  # after a sign flip, no step and no memory
        prev[...] = grad
        return param - np.sign(grad) * step_size
