"""Gradient clipping, in place on each parameter's .grad."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from ... import _dtype
from ...autograd import grad_mode
from ...tensor import Tensor


def _grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p.grad for p in params if p.grad is not None]


def _vector_norm(values: np.ndarray, norm_type: float) -> float:
    return float(np.linalg.norm(values.astype(np.float64).ravel(), ord=norm_type))


@grad_mode.no_grad()
def get_total_norm(
    tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach: bool | None = None
) -> Tensor:
    """The norm of all `tensors` together (the norm of their norms), in their promoted dtype."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return Tensor._wrap(np.array(0.0, dtype=np.float32))
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _dtype.promote_types(dtype, t.dtype)
    norms = np.array([_vector_norm(t._data, norm_type) for t in tensors])
    total = Tensor._wrap(np.array(_vector_norm(norms, norm_type), dtype=dtype.np))
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    return total


@grad_mode.no_grad()
def clip_grads_with_norm_(
    parameters: Tensor | Iterable[Tensor], max_norm: float, total_norm: Tensor | float, foreach: bool | None = None
) -> None:
    """Scale the parameters' gradients by max_norm / total_norm where that is below 1 (total_norm from
    get_total_norm, perhaps reduced across processes first)."""
    coef = min(max_norm / (float(total_norm) + 1e-6), 1.0)
    for g in _grads(parameters):
        g.mul_(coef)


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale all gradients together so that their joint norm is at most max_norm; returns the norm before clipping."""
    parameters = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(*args: Any, **kwargs: Any) -> Tensor:
    """The old name of clip_grad_norm_, deprecated (with PyTorch's warning) but still in 2.13."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(*args, **kwargs)


@grad_mode.no_grad()
def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient element into [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        g.clamp_(min=-clip_value, max=clip_value)
