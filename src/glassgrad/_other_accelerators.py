"""What torch.xpu, torch.mtia and torch.mps share here: as on PyTorch's CPU build, no device is available."""

from __future__ import annotations

CPU_ONLY = "glassgrad computes on the CPU only, with NumPy"


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0
