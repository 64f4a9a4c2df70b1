"""SGD with momentum, dampening, Nesterov, weight decay and maximize."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import optimizer
from .optimizer import Optimizer, check_hyperparameters, one_pass, weight_decayed


class SGD(Optimizer):
    def __init__(
        self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0, dampening: float = 0, weight_decay: float = 0,
        nesterov: bool = False, *, maximize: bool = False, foreach: bool | None = None, differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_hyperparameters(lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {
            "lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay, "nesterov": nesterov,
            "maximize": maximize, "foreach": foreach, "differentiable": differentiable, "fused": fused,
        }
        super().__init__(params, defaults)

    def _sparse_gradient(self, grad: Tensor, group: dict[str, Any]) -> np.ndarray:
        """The dense array the gradient sums to: PyTorch's sparse route gives the same values (an element with no
        entry moves as a zero gradient moves it)."""
        if group["weight_decay"] != 0:  # PyTorch's grad.add(param, alpha=weight_decay), sparse + dense
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
        return grad.to_dense()._data

    def _update(self, param: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> np.ndarray:
        """In place, as PyTorch's param.add_(grad, alpha=-lr); the NumPy route through one temporary, lr * grad
        (NumPy has no axpy)."""
        momentum = group["momentum"]
        created = momentum != 0 and "momentum_buffer" not in state
        buf = None if momentum == 0 else np.empty_like(param) if created else state["momentum_buffer"]._data
        flat = one_pass(param, grad, buf)
        if flat is not None:  # the loop adds the weight decay and fills a new buffer itself
            optimizer.fused.sgd(
                *flat, not created, group["lr"], momentum, group["dampening"], group["nesterov"], group["weight_decay"]
            )
        else:
            param, grad = weight_decayed(param, grad, group)
            if buf is not None:
                if created:
                    buf = grad.copy()  # the first step takes the gradient as it is
                else:
                    buf *= momentum
                    dampening = group["dampening"]
                    buf += grad if dampening == 0 else (1 - dampening) * grad
                grad = grad + momentum * buf if group["nesterov"] else buf
            step = np.multiply(grad, group["lr"], dtype=param.dtype)
            param -= step
        if created:
            state["momentum_buffer"] = Tensor._wrap(buf)
        return param
