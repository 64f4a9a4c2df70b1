"""Every OpInfo, gathered from one module per op family."""

from __future__ import annotations

import importlib
import pkgutil

from ..opinfo import OpInfo

OPS: list[OpInfo] = [
    op
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name)
    for op in importlib.import_module(f"{__name__}.{module_info.name}").OPS
]
