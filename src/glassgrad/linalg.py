"""glassgrad.linalg, laid out like torch.linalg; the ops live in glassgrad/ops/linalg_decomp.py."""

from ._missing import module_getattr as _module_getattr
from .ops import NAMESPACES
from .ops.linalg_decomp import LinAlgError as LinAlgError

globals().update(NAMESPACES["glassgrad.linalg"])

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
