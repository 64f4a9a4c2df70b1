"""glassgrad.autograd: the engine's public face, laid out like torch.autograd.

Its modules sit on two floors of the core (docs/architecture.md). At the bottom, beside tensor.py,
are graph (nodes, saved tensors), grad_mode, anomaly, steps and seams. Above them are engine
(backward, grad), function (custom Functions) and inplace. The core imports neither glassgrad.ops
nor glassgrad.diagnostics: ops install their tensor methods from above, and diagnostics fill the
seams. functional and gradcheck are built on ops, so they sit above the core even though they live
here. tests/test_layering.py checks all of this.
"""

from __future__ import annotations

import importlib
from typing import Any

from .._missing import module_getattr as _module_getattr
from ..tensor import Tensor
from . import forward_ad, functional, graph, profiler, profiler_util
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import backward, grad
from .function import Function, FunctionCtx, InplaceFunction, NestedIOFunction, once_differentiable
from .grad_mode import (
    _force_original_view_tracking,
    enable_grad,
    enforce_grad_layout_policy,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    is_multithreading_enabled,
    is_view_replay_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import SavedTensor, _unsafe_preserve_version_counter
from .graph_hooks import queue_callback, register_multi_grad_hook
from .profiler import _profiler_enabled, kineto_available
from .saved_mutation import allow_mutation_on_saved_tensors

# torch.autograd.graph's names built above the core, which graph.py sits in
graph.register_multi_grad_hook = register_multi_grad_hook  # type: ignore[attr-defined]
graph.allow_mutation_on_saved_tensors = allow_mutation_on_saved_tensors  # type: ignore[attr-defined]


class _ExecutionEngine:
    """Variable._execution_engine: the one call of PyTorch's engine object that real code reaches for."""

    queue_callback = staticmethod(queue_callback)


class _VariableMeta(type):
    def __instancecheck__(cls, instance: object) -> bool:
        return isinstance(instance, Tensor)


class Variable(metaclass=_VariableMeta):
    """The legacy wrapper: Variable(t) returns a detached alias of t (optionally requiring grad), as in PyTorch."""

    _execution_engine = _ExecutionEngine()

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
    "Function", "FunctionCtx", "GradcheckError", "InplaceFunction", "NestedIOFunction", "SavedTensor", "Variable", "backward",
    "detect_anomaly", "enable_grad", "enforce_grad_layout_policy", "forward_ad", "functional", "grad", "gradcheck", "gradgradcheck",
    "graph", "inference_mode", "profiler", "profiler_util", "is_anomaly_enabled", "is_grad_enabled", "is_inference_mode_enabled",
    "is_multithreading_enabled", "is_view_replay_enabled", "no_grad", "once_differentiable", "set_detect_anomaly",
    "set_grad_enabled", "set_multithreading_enabled",
]

_missing_name = _module_getattr(__name__)


def __getattr__(name: str) -> Any:
    if name == "torch":  # PyTorch's torch.autograd imports torch, and old code reaches it as torch.autograd.torch
        import glassgrad

        return glassgrad
    if name == "_functions":  # imported on first use, as PyTorch's own modules import it
        return importlib.import_module(f"{__name__}._functions")
    return _missing_name(name)  # a PyTorch name glassgrad lacks: say so, and where it was used
