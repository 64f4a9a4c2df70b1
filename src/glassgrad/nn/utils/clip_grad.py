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
def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale all gradients together so that their joint norm is at most max_norm; returns the norm before clipping."""
    grads = _grads(parameters)
    norm_type = float(norm_type)
    if not grads:
        return Tensor._wrap(np.array(0.0, dtype=np.float32))
    dtype = grads[0].dtype
    for g in grads[1:]:
        dtype = _dtype.promote_types(dtype, g.dtype)
    norms = np.array([_vector_norm(g._data, norm_type) for g in grads])
    total = Tensor._wrap(np.array(_vector_norm(norms, norm_type), dtype=dtype.np))
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    coef = min(max_norm / (total.item() + 1e-6), 1.0)
    for g in grads:
        g.mul_(coef)
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
