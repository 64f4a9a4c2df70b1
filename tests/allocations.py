"""How many bytes a call allocates at its peak: NumPy reports its arrays to tracemalloc, so a test can count the
full-size arrays an op makes (Python's own objects are counted too, a few KiB a call)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

SLACK = 64 << 10  # the per-row sums, small arrays and Python objects of a call


def peak_bytes(run: Callable[[], object]) -> int:
    """Peak of the traced allocations while `run` runs, above what was allocated before it."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        run()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
