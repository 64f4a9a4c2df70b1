"""glassgrad.fft, laid out like torch.fft; the transforms live in glassgrad/ops/fft.py."""

from ._missing import module_getattr as _module_getattr
from .ops import NAMESPACES

globals().update(NAMESPACES["glassgrad.fft"])

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
