"""nn.utils.skip_init: a module made without running its parameter initialization."""

from __future__ import annotations

import inspect
from typing import Any, TypeVar

_Module = TypeVar("_Module")

__all__ = ["skip_init"]


def skip_init(module_cls: type[_Module], *args: Any, **kwargs: Any) -> _Module:
    """`module_cls(*args, **kwargs)` whose parameters and buffers hold unspecified values, to be set by the caller.

    PyTorch builds the module on the meta device and allocates storage afterwards; glassgrad, which has no meta
    device, builds it on the CPU, so the values are whatever its initialization drew: equally unspecified."""
    from ..modules.module import Module

    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)
