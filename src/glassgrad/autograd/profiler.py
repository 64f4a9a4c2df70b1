"""torch.autograd.profiler: glassgrad has no op profiler yet.

`record_function` labels a range for a profiler to record; with no profiler running it does nothing, in
PyTorch as here, so code that labels its steps runs unchanged. Making a profiler raises.
"""

from __future__ import annotations

import contextlib

from .._missing import module_getattr as _module_getattr
from .._missing import unimplemented


class record_function(contextlib.ContextDecorator):
    def __init__(self, name: str, args: str | None = None) -> None:
        self.name, self.args = name, args

    def __enter__(self) -> record_function:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None


profile = unimplemented(__name__ + ".profile")
emit_nvtx = unimplemented(__name__ + ".emit_nvtx")
EventList = unimplemented(__name__ + ".EventList")

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
