"""torch.profiler: the names Lightning's profilers import; glassgrad has no op profiler yet (see
glassgrad.autograd.profiler). The enums are PyTorch's; making a profiler or a trace handler raises."""

from __future__ import annotations

import enum

from ._missing import module_getattr as _module_getattr
from ._missing import unimplemented
from .autograd.profiler import record_function


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


class ProfilerActivity(enum.IntEnum):
    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5


def kineto_available() -> bool:
    return False  # no Kineto tracer behind this engine


profile = unimplemented(__name__ + ".profile")
tensorboard_trace_handler = unimplemented(__name__ + ".tensorboard_trace_handler")

__all__ = ["ProfilerAction", "ProfilerActivity", "kineto_available", "profile", "record_function", "tensorboard_trace_handler"]
__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
