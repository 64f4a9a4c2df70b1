"""Anomaly mode, as PyTorch's: every node keeps its full forward stack, and every backward result
is checked for NaN, naming the op and the forward call that made it."""

from __future__ import annotations

import traceback
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ..tensor import Tensor
    from .graph import Node

enabled = False
check_nan = True


def is_anomaly_enabled() -> bool:
    return enabled


def is_anomaly_check_nan_enabled() -> bool:
    return enabled and check_nan


class set_detect_anomaly:
    """Turn anomaly mode on or off; as a context manager, restore the previous setting on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        global enabled
        self.previous = (enabled, globals()["check_nan"])
        enabled = mode
        globals()["check_nan"] = check_nan

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        global enabled
        enabled, globals()["check_nan"] = self.previous


class detect_anomaly(set_detect_anomaly):
    def __init__(self, check_nan: bool = True) -> None:
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled "
            "for debugging.",
            UserWarning,
            stacklevel=2,
        )
        super().__init__(True, check_nan)


def record_stack(node: Node) -> None:
    """Keep the forward stack (PyTorch stores it in metadata['traceback_'])."""
    node.metadata["traceback_"] = traceback.format_stack()[:-3]


def check_outputs(node: Node, outputs: tuple[Tensor | None, ...]) -> None:
    for i, grad in enumerate(outputs):
        if grad is not None and grad.dtype.is_floating_point and np.isnan(grad._data).any():
            stack = node.metadata.get("traceback_")
            where = (
                f"Traceback of forward call that caused the error:\n{''.join(stack)}"
                if stack
                else "No forward pass information available. Enable detect anomaly during forward pass for more "
                "information."
            )
            warnings.warn(f"Error detected in {node.name()}. {where}", UserWarning, stacklevel=2)
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
