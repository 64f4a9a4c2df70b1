"""torch.utils.hooks: the handle every register_*_hook returns (glassgrad's lives with the graph's hooks)."""

from .._missing import module_getattr as _module_getattr
from ..autograd.graph import RemovableHandle

__all__ = ["RemovableHandle"]
__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
