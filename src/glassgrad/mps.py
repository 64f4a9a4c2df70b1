"""torch.mps: the runtime of Apple's Metal GPUs (MPS). glassgrad computes on the CPU with NumPy: as on PyTorch's CPU build, no
device is available; everything else raises, saying glassgrad does not provide it."""

from __future__ import annotations

from ._missing import unprovided_module as _unprovided_module


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


__getattr__ = _unprovided_module(__name__, "glassgrad computes on the CPU only, with NumPy")
