"""Timing settings against each other: interleaved round by round after a warm-up, so drift hits them alike."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager


def interleaved(
    step: Callable[[], object], settings: Mapping[str, Callable[[], AbstractContextManager[object]]], rounds: int, repeats: int
) -> dict[str, list[float]]:
    """Seconds per call of `step` under each setting, one sample per round (the mean of `repeats` calls)."""
    times: dict[str, list[float]] = {name: [] for name in settings}
    for setting in settings.values():  # warm-up
        with setting():
            for _ in range(repeats):
                step()
    for _ in range(rounds):
        for name, setting in settings.items():
            with setting():
                start = time.perf_counter()
                for _ in range(repeats):
                    step()
                times[name].append((time.perf_counter() - start) / repeats)
    return times
