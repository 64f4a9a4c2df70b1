"""torch.accelerator as PyTorch's CPU-only build has it: no accelerator, and the same answers and errors.

Since PyTorch 2.6 the official examples choose their device with
`torch.accelerator.is_available()` and `torch.accelerator.current_accelerator()` instead of asking
torch.cuda. The CPU-only build answers those (False, None, 0) and raises RuntimeError where a call
needs a device; glassgrad does the same, checked against the installed wheel by
tests/test_accelerator_compat.py.
"""

from __future__ import annotations

import warnings
from types import TracebackType
from typing import Any, NoReturn

from ._device import device as _torch_device

__all__ = [
    "current_accelerator", "current_device_idx", "current_device_index", "current_stream", "device_count",
    "device_index", "empty_cache", "empty_host_cache", "get_device_capability", "get_memory_info", "is_available",
    "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
    "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_idx", "set_device_index", "set_stream",
    "synchronize",
]

_NONE_AVAILABLE = "Cannot access accelerator device when none is available."


def _no_device(*args: Any) -> NoReturn:
    raise RuntimeError(_NONE_AVAILABLE)


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def current_accelerator(check_available: bool = False) -> _torch_device | None:
    return None  # no accelerator was compiled in, whether or not availability is checked


def current_device_index() -> int:
    _no_device()


def current_device_idx() -> int:
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_index(device: Any, /) -> None:
    if device is None:
        raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
    _no_device()


def set_device_idx(device: Any, /) -> None:
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


def set_stream(stream: Any) -> NoReturn:
    raise TypeError(
        "_accelerator_setStream(): incompatible function arguments. The following argument types are supported:\n"
        f"    1. (arg0: torch.Stream) -> None\n\nInvoked with: {stream!r}"
    )


def synchronize(device: Any = None, /) -> None:
    _no_device()


def current_stream(device: Any = None, /) -> Any:
    _no_device()


def get_device_capability(device: Any = None, /) -> dict[str, Any]:
    _no_device()


# -- memory: every counter needs a device ------------------------------------------------------------
def empty_cache() -> None:
    _no_device()


def empty_host_cache() -> None:
    _no_device()


def memory_allocated(device_index: Any = None, /) -> int:
    _no_device()


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def memory_stats(device_index: Any = None, /) -> dict[str, Any]:
    _no_device()


def reset_peak_memory_stats(device_index: Any = None, /) -> None:
    _no_device()


reset_accumulated_memory_stats = reset_peak_memory_stats


def get_memory_info(device_index: Any = None, /) -> tuple[int, int]:
    _no_device()


class device_index:  # PyTorch's name: a class used as a context manager
    """`with torch.accelerator.device_index(i):` a no-op for None, as in PyTorch; any index needs a device."""

    def __init__(self, device: int | None, /) -> None:
        self.idx = device

    def __enter__(self) -> None:
        if self.idx is not None:
            _no_device()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        return None
