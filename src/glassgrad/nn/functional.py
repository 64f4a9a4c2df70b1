"""glassgrad.nn.functional, laid out like torch.nn.functional; the ops live in glassgrad/ops/
(activations.py, losses.py, convolution.py, normalization.py)."""

from .._missing import module_getattr as _module_getattr
from ..ops import NAMESPACES

globals().update(NAMESPACES["glassgrad.nn.functional"])

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
