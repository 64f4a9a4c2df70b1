"""torch.nn.attention: choosing scaled_dot_product_attention's kernel. glassgrad has one, the math one, which
every backend choice runs; `sdpa_kernel` checks its argument as PyTorch does and changes nothing else."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from contextlib import contextmanager

from ..._missing import module_getattr as _module_getattr


class SDPBackend(enum.IntEnum):
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


@contextmanager
def sdpa_kernel(backends: SDPBackend | list[SDPBackend], set_priority: bool = False) -> Iterator[None]:
    chosen = backends if isinstance(backends, list) else [backends]
    if not all(isinstance(b, SDPBackend) for b in chosen):
        raise AssertionError("Backend must be an instance of SDPBackend")
    yield


__all__ = ["SDPBackend", "sdpa_kernel"]
__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
