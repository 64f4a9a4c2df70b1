"""torch._dynamo on an engine that never traces: the names libraries import and test against.

`torch.compile` hands back the module itself (glassgrad.jit), so no OptimizedModule is ever made and
`isinstance(m, OptimizedModule)` is False; the graph hints are accepted and change nothing.
"""

from typing import Any

from .._missing import module_getattr as _module_getattr
from .._missing import unimplemented
from ..compiler import allow_in_graph, assume_constant_result, disable, is_compiling, reset
from . import exc

OptimizedModule = unimplemented(__name__ + ".OptimizedModule")


def mark_static_address(t: Any, guard: bool = True) -> None:
    """A hint that `t`'s address never changes between compiled calls: nothing is compiled here."""


def is_dynamo_supported() -> bool:
    return False


__all__ = ["OptimizedModule", "allow_in_graph", "assume_constant_result", "disable", "exc", "is_compiling",
           "mark_static_address", "reset"]
__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
