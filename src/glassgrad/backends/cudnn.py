"""torch.backends.cudnn: settable flags with PyTorch's defaults; there is no cuDNN to obey them.

Scripts set `deterministic = True` and `benchmark = False` for reproducibility. glassgrad's NumPy
kernels are deterministic whatever the flags say, so the flags are kept only to be read back.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from ._flags import Flag

benchmark_limit: int | None = None  # a plain attribute in a build without cuDNN


def is_available() -> bool:
    return False


def version() -> int | None:
    return None


def is_acceptable(tensor: Any) -> bool:
    tensor.device  # noqa: B018  # PyTorch reads it first, so a non-tensor fails with AttributeError there too
    return False


class _CudnnModule(ModuleType):
    enabled = Flag(True, "set_enabled_cudnn")
    benchmark = Flag(False, "set_benchmark_cudnn")
    deterministic = Flag(False, "set_deterministic_cudnn")
    allow_tf32 = Flag(True, "set_allow_tf32_cublas")  # sic: PyTorch's message names cuBLAS for this flag


sys.modules[__name__].__class__ = _CudnnModule
_module = sys.modules[__name__]


@contextmanager
def flags(
    enabled: bool = False, benchmark: bool = False, benchmark_limit: int | None = 10, deterministic: bool = False,
    allow_tf32: bool = True, fp32_precision: str = "none", depthwise_kernel: str = "auto",
) -> Iterator[None]:
    """Set the flags for a block, then restore them; the defaults are PyTorch's (note enabled=False)."""
    names = ("enabled", "benchmark", "deterministic", "allow_tf32")
    previous = {name: getattr(_module, name) for name in names}
    for name, value in zip(names, (enabled, benchmark, deterministic, allow_tf32), strict=True):
        setattr(_module, name, value)
    try:
        yield
    finally:
        for name, value in previous.items():
            setattr(_module, name, value)
