"""glassgrad.autograd: the engine's public face, laid out like torch.autograd."""

from __future__ import annotations

from typing import Any

from .._missing import module_getattr as _module_getattr
from ..tensor import Tensor
from . import forward_ad, functional, graph
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import backward, grad
from .function import Function, FunctionCtx, InplaceFunction, NestedIOFunction, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck


class _VariableMeta(type):
    def __instancecheck__(cls, instance: object) -> bool:
        return isinstance(instance, Tensor)


class Variable(metaclass=_VariableMeta):
    """The legacy wrapper: Variable(t) returns a detached alias of t (optionally requiring grad), as in PyTorch."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = False, volatile: bool = False) -> Any:  # type: ignore[misc]
        if data is None:
            from ..ops.creation import tensor

            data = tensor([])
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        alias = data.detach()
        if requires_grad:
            alias.requires_grad_(True)
        return alias


__all__ = [
    "Function", "FunctionCtx", "GradcheckError", "InplaceFunction", "NestedIOFunction", "Variable", "backward",
    "detect_anomaly", "enable_grad", "forward_ad", "functional", "grad", "gradcheck", "gradgradcheck", "graph", "inference_mode",
    "is_anomaly_enabled", "is_grad_enabled", "is_inference_mode_enabled", "no_grad", "once_differentiable",
    "set_detect_anomaly", "set_grad_enabled",
]

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
