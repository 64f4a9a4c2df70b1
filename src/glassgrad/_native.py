"""The compiled core: which modules Cython compiles, and the switch back to their .py sources.

Cython compiles these files unchanged into extension modules that sit beside the sources (`pip install`
builds them; see setup.py, which reads COMPILED_MODULES from this file without importing glassgrad, so the
list is kept here only). The import system prefers an extension module to a source file of the same name,
so a build is used as soon as it exists. GLASSGRAD_PURE=1 puts a finder first on `sys.meta_path` that
finds these modules as sources only: the same program then runs on the pure-Python path.

The .pxd files beside some of them give their classes a C layout and hot functions typed locals (see
docs/architecture.md); the .py files stay plain Python.

Imports only the standard library: it runs before the rest of glassgrad, and setup.py runs it too.
"""

from __future__ import annotations

import importlib
import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES, SOURCE_SUFFIXES, FileFinder, ModuleSpec, SourceFileLoader
from types import ModuleType

# The per-op path of the workloads users write: tensor creation, the creation-site walk, the kernels' error state,
# nodes and saved tensors, the backward loop, the derivative table and the frequent op families. A compiled
# function runs without a frame of its own: _sites.py counts that in, and the diagnostics that read their callers'
# frames stay Python.
COMPILED_MODULES: tuple[str, ...] = (
    "glassgrad._sites",
    "glassgrad._quiet",
    "glassgrad.tensor",
    "glassgrad.autograd.grad_mode",
    "glassgrad.autograd.forward_ad",
    "glassgrad.autograd.graph",
    "glassgrad.autograd.engine",
    "glassgrad.ops.table",
    "glassgrad.ops.elementwise",
    "glassgrad.ops.linalg",
    "glassgrad.ops.reduction",
    "glassgrad.ops.shape",
    "glassgrad.ops.subscript",
)

# Loops that only run fast compiled, written in Cython proper (.pyx, with no .py of the same name): the modules
# that use them get them from kernels() and take their NumPy routes where that returns None.
KERNEL_MODULES: tuple[str, ...] = ("glassgrad.ops._loops", "glassgrad.optim._fused")

PURE = os.environ.get("GLASSGRAD_PURE", "") not in ("", "0")


class SourceFinder:
    """Finds the compiled modules as their .py sources, passing over the extension modules beside them."""

    @staticmethod
    def find_spec(fullname: str, path: list[str] | None = None, target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname not in COMPILED_MODULES or path is None:
            return None  # every other module: the usual finders
        for entry in path:
            spec = FileFinder(entry, (SourceFileLoader, SOURCE_SUFFIXES)).find_spec(fullname)
            if spec is not None:
                return spec
        return None


if PURE:  # on import, which glassgrad/__init__.py does before importing any compiled module
    sys.meta_path.insert(0, SourceFinder)


def kernels(name: str) -> ModuleType | None:
    """The kernel module `name` of KERNEL_MODULES, or None on the pure path or where it was not built."""
    if PURE:
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def is_extension(module: ModuleType) -> bool:
    return (module.__file__ or "").endswith(tuple(EXTENSION_SUFFIXES))


def compiled_imports() -> tuple[bool, bool]:
    """Whether every module of COMPILED_MODULES was imported compiled, and whether any was."""
    compiled = [is_extension(sys.modules[name]) for name in COMPILED_MODULES if name in sys.modules]
    return len(compiled) == len(COMPILED_MODULES) and all(compiled), any(compiled)
