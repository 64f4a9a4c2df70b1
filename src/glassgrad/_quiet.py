"""Run NumPy kernels without floating-point warnings, cheaply.

PyTorch computes inf and nan silently, so glassgrad's kernels must not warn either; but entering
`np.errstate` costs more than a small kernel itself (about 1 to 3 us against 1 us for a 16-element
multiply). NumPy 2 keeps its error state in a context variable, which can be set and reset for a
fraction of that (`silence`, `restore`, `quietly`). A single kernel can go cheaper still (`run_kernel`):
setting the variable makes the thread a new context mapping every time, while entering a context made
once, in which the state ignores every error, costs a tenth of that. Where that private variable is
absent, `np.seterr` is used.
"""

from __future__ import annotations

import contextvars
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

    def _enter_quiet(kernel: Callable[..., Any], *args: Any) -> Any:
        return quietly(kernel, *args)

else:
    with np.errstate(all="ignore"):
        _IGNORE_ALL = _state.get()
    silence = functools.partial(_state.set, _IGNORE_ALL)  # a partial calls straight into C: no Python frame
    restore = _state.reset
    _QUIET_CONTEXT = contextvars.Context()
    _QUIET_CONTEXT.run(_state.set, _IGNORE_ALL)
    _enter_quiet = _QUIET_CONTEXT.run


def quietly(kernel: Callable[..., Any], *args: Any) -> Any:
    """kernel(*args) with every floating-point error ignored, as np.errstate(all="ignore") would."""
    token = silence()
    try:
        return kernel(*args)
    finally:
        restore(token)


_BUSY = "cannot enter context"  # how Context.run refuses a context that is entered already


def run_kernel(call: tuple[Any, ...]) -> Any:
    """`quietly(*call)` for a call (a kernel and its arguments, as Context.run takes them) of a NumPy function, or of
    a lambda of NumPy functions: it runs in the quiet context, where nothing but NumPy's error state is set. One
    thread at a time can be inside that context: while another is (in a kernel that let go of the GIL), or when a
    finalizer run during a kernel calls one of its own, the error state is set and reset instead."""
    try:
        return _enter_quiet(*call)
    except RuntimeError as error:
        if not str(error).startswith(_BUSY):
            raise
    return quietly(*call)
