"""Anomaly mode, as PyTorch's: every node keeps its full forward stack, and every backward result
is checked for NaN, naming the op and the forward call that made it."""

from __future__ import annotations

import sys
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


# The node whose backward is running (anomaly mode only): the nodes that backward records remember it as their parent
running: Node | None = None

_NO_INFORMATION = (
    "No forward pass information available. Enable detect anomaly during forward pass for more information."
)


def record_stack(node: Node) -> None:
    """Keep the forward stack, and the node whose backward made this one (PyTorch's metadata 'traceback_', 'parent_')."""
    node.metadata["traceback_"] = traceback.format_stack()[:-3]
    if running is not None:
        node.metadata["parent_"] = running


def print_stack(node: Node) -> None:
    """Warn with the forward stack of a node whose backward failed, then with those of the nodes whose backward made
    it, as PyTorch's anomaly mode does."""
    stack = node.metadata.get("traceback_")
    if stack is None:
        _warn(f"Error detected in {node.name()}. {_NO_INFORMATION}")
        return
    _warn(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{''.join(stack)}")
    parent = node.metadata.get("parent_")
    while parent is not None:
        stack = parent.metadata.get("traceback_")
        if stack is None:
            _warn(f"Error detected in {parent.name()}. {_NO_INFORMATION}")
        else:
            _warn(
                f"\n\nPrevious calculation was induced by {parent.name()}. Traceback of forward call that induced the "
                f"previous calculation:\n{''.join(stack)}"
            )
        parent = parent.metadata.get("parent_")


def _warn(message: str) -> None:
    """A warning while an error propagates: where warnings are errors, it goes to stderr, so that it cannot replace
    the error (as PyTorch's warnings raised during an exception are printed)."""
    try:
        warnings.warn(message, UserWarning, stacklevel=4)
    except UserWarning:
        print(f"UserWarning: {message}", file=sys.stderr)


def check_outputs(node: Node, outputs: tuple[Tensor | None, ...]) -> None:
    for i, grad in enumerate(outputs):
        if grad is not None and grad.dtype.is_floating_point and np.isnan(grad._data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
