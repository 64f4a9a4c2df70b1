"""glassgrad.utils, laid out like torch.utils."""

from .._missing import module_getattr as _module_getattr
from . import checkpoint, data, hooks, weak

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
