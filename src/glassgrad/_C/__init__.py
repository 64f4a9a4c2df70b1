"""torch._C: the few names of PyTorch's C extension that libraries reach for from Python.

Lightning annotates with `_TensorMeta` (the metaclass of Tensor), parses `.to()` arguments with
`_nn._parse_to` and logs API usage with `_log_api_usage_once`; these are their glassgrad equivalents.
"""

from .._missing import module_getattr as _module_getattr
from ..ops.creation import Generator
from ..tensor import Tensor
from . import _nn

_TensorMeta = type(Tensor)


def _log_api_usage_once(event: str) -> None:
    """PyTorch's usage logging: nothing is logged here."""


__all__ = ["Generator", "_TensorMeta", "_log_api_usage_once", "_nn"]
__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
