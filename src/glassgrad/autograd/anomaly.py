"""Anomaly mode switches. The NaN checks and forward stacks belong to the diagnostics issue;
for now the switches exist so that PyTorch programs that turn them on run unchanged."""

from __future__ import annotations

from typing import Any

_enabled = False


def is_anomaly_enabled() -> bool:
    return _enabled


class set_detect_anomaly:
    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        global _enabled
        self.prev = _enabled
        _enabled = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        global _enabled
        _enabled = self.prev


class detect_anomaly(set_detect_anomaly):
    def __init__(self, check_nan: bool = True) -> None:
        super().__init__(True, check_nan)
