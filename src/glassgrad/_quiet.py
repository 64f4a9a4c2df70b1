"""Run NumPy kernels without floating-point warnings, cheaply.

PyTorch computes inf and nan silently, so glassgrad's kernels must not warn either; but entering
`np.errstate` costs more than a small kernel itself (about 1 to 3 us against 1 us for a 16-element
multiply). NumPy 2 keeps its error state in a context variable, which can be set and reset for a
fraction of that. Where that private variable is absent, `np.seterr` is used.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

try:
    from numpy._core._ufunc_config import _extobj_contextvar as _state  # NumPy >= 2.0
except ImportError:  # pragma: no cover - older NumPy

    def silence() -> Any:
        """Ignore every floating-point error until `restore(token)`; returns that token."""
        return np.seterr(all="ignore")

    def restore(token: Any) -> None:
        np.seterr(**token)

else:
    with np.errstate(all="ignore"):
        _IGNORE_ALL = _state.get()
    silence = functools.partial(_state.set, _IGNORE_ALL)  # a partial calls straight into C: no Python frame
    restore = _state.reset


def quietly(kernel: Callable[..., Any], *args: Any) -> Any:
    """kernel(*args) with every floating-point error ignored, as np.errstate(all="ignore") would."""
    token = silence()
    try:
        return kernel(*args)
    finally:
        restore(token)
