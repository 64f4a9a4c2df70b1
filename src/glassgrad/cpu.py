"""torch.cpu: the device-agnostic face of the CPU, which `torch.get_device_module()` returns when no accelerator exists.

Code written for any device calls `torch.get_device_module(device).synchronize()` or enters its `stream(...)`;
on the CPU every op has finished when it returns, so these answer at once, as PyTorch's torch.cpu does.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

__all__ = [
    "Event", "Stream", "StreamContext", "current_device", "current_stream", "device_count", "is_available",
    "is_initialized", "set_device", "stream", "synchronize",
]


class Stream:
    """A stand-in stream: CPU work runs in program order, so there is nothing to wait for or record."""

    def __init__(self, priority: int = -1) -> None:
        self.priority = priority

    def wait_stream(self, stream: Any) -> None:
        return None

    def record_event(self) -> None:
        return None

    def wait_event(self, event: Any) -> None:
        return None


class Event:
    """A stand-in event: always complete."""

    def query(self) -> bool:
        return True

    def record(self, stream: Any = None) -> None:
        return None

    def synchronize(self) -> None:
        return None

    def wait(self, stream: Any = None) -> None:
        return None


_default_stream = Stream()
_current_stream = _default_stream


class StreamContext:
    """`with torch.cpu.stream(s):` makes `s` the current stream inside the block (None selects nothing)."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream
        self.prev_stream = _default_stream

    def __enter__(self) -> None:
        global _current_stream
        if self.stream is not None:
            self.prev_stream, _current_stream = _current_stream, self.stream

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        global _current_stream
        if self.stream is not None:
            _current_stream = self.prev_stream


def stream(stream: Stream | None) -> StreamContext:
    return StreamContext(stream)


def current_stream(device: Any = None) -> Stream:
    return _current_stream


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def current_device() -> str:
    return "cpu"


def device_count() -> int:
    return 1


def synchronize(device: Any = None) -> None:
    return None


def set_device(device: Any) -> None:
    return None
