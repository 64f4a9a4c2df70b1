"""glassgrad.special, laid out like torch.special; the functions live in glassgrad/ops/special.py."""

from ._missing import module_getattr as _module_getattr
from .ops import NAMESPACES

globals().update(NAMESPACES["glassgrad.special"])

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
