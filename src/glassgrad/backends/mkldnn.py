"""torch.backends.mkldnn: PyTorch's CPU wheel ships oneDNN; glassgrad computes with NumPy and does not.

is_available() is therefore False (PyTorch's CPU wheel says True): code that branches on it would
otherwise reach for oneDNN tensor layouts glassgrad cannot make. The `enabled` flag is kept settable.
"""

from __future__ import annotations

import sys
from types import ModuleType

from ._flags import Flag


def is_available() -> bool:
    return False


class _MkldnnModule(ModuleType):
    enabled = Flag(True, "set_enabled_mkldnn")


sys.modules[__name__].__class__ = _MkldnnModule
