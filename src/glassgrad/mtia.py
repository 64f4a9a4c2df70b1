"""torch.mtia: the runtime of Meta's MTIA accelerators. No device is available, as on PyTorch's CPU build; any other name
raises, saying glassgrad does not provide torch.mtia."""

from __future__ import annotations

from ._missing import unprovided_module as _unprovided_module
from ._other_accelerators import CPU_ONLY as _CPU_ONLY
from ._other_accelerators import device_count, is_available

__all__ = ["device_count", "is_available"]
__getattr__ = _unprovided_module(__name__, _CPU_ONLY)
