"""Run NumPy kernels without floating-point warnings, cheaply.

PyTorch computes inf and nan silently, so glassgrad's kernels must not warn either; but entering
`np.errstate` costs more than a small kernel itself (about 1 to 3 us against 1 us for a 16-element
multiply). NumPy 2 keeps its error state in a context variable, which can be set and reset for a
fraction of that. Where that private variable is absent, the public `np.errstate` is used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def _public(kernel: Callable[..., Any], *args: Any) -> Any:
    with np.errstate(all="ignore"):
        return kernel(*args)


try:
    from numpy._core._ufunc_config import _extobj_contextvar as _state  # NumPy >= 2.0
except ImportError:  # pragma: no cover - older NumPy
    quietly = _public
else:
    with np.errstate(all="ignore"):
        _IGNORE_ALL = _state.get()

    def quietly(kernel: Callable[..., Any], *args: Any) -> Any:
        """kernel(*args) with every floating-point error ignored, as np.errstate(all="ignore") would."""
        token = _state.set(_IGNORE_ALL)
        try:
            return kernel(*args)
        finally:
            _state.reset(token)
