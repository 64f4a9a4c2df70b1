"""torch.profiler.itt: Intel's Instrumentation and Tracing Technology annotations. glassgrad has no ITT to
emit to, so it is not available and the annotations do nothing (as emit_itt does)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["is_available", "mark", "range", "range_pop", "range_push"]


def is_available() -> bool:
    return False


def range_push(msg: str) -> int:
    return 0


def range_pop() -> int:
    return 0


def mark(msg: str) -> None:
    return None


@contextmanager
def range(msg: str, *args: Any, **kwargs: Any) -> Iterator[None]:
    yield
