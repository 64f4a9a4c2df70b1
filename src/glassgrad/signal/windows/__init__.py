"""torch.signal.windows: SciPy-style window functions, each an ordinary glassgrad tensor computation."""

from ..._missing import module_getattr as _module_getattr
from .windows import (
    bartlett,
    blackman,
    cosine,
    exponential,
    gaussian,
    general_cosine,
    general_hamming,
    hamming,
    hann,
    kaiser,
    nuttall,
)

__all__ = [
    "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming", "hamming", "hann",
    "kaiser", "nuttall",
]
__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
