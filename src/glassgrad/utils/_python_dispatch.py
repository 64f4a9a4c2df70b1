"""torch.utils._python_dispatch.TorchDispatchMode on glassgrad's dispatch: a mode sees every op call.

While a mode is entered on any thread, every place that holds an op (ops/call_sites.py: the public namespaces,
Tensor's methods and operators, and the module globals through which glassgrad's own code and its derivative
formulas call ops), and Tensor.detach, holds a dispatcher; outside modes an op costs what it always costs. On a thread with a mode, a call
goes to the innermost mode's `__torch_dispatch__(func, types, args, kwargs)`, `func` the op object of
torch.ops.aten (glassgrad._aten) with PyTorch's name, and while the handler runs that mode is off, so the op it calls
(and the ops that op calls) go to the modes outside it, or run as they are.

How this differs from PyTorch, which has ATen below its autograd: the mode sees glassgrad's ops, above autograd.
A composite op (F.linear) is seen whole, not as the ATen ops PyTorch decomposes it into; `func(*args)` records the
op's node as a plain call does (under PyTorch, autograd recorded it before the mode saw the call), so a handler that
returns a tensor of its own making returns it without a node; and the tensors a handler gets are glassgrad's, with
their autograd history. Tensor subclasses (`_make_wrapper_subclass`) are not dispatched to.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .._aten import TENSOR_METHODS, aten
from ..ops import call_sites
from ..tensor import Tensor


class _Stack(threading.local):
    modes: list[TorchDispatchMode]

    def __init__(self) -> None:
        self.modes = []


_stack = _Stack()
_installed: list[Any] = []  # what the dispatchers replaced, while a mode is entered on some thread
_entered = 0
_lock = threading.Lock()


class TorchDispatchMode:
    """Subclass and define __torch_dispatch__(self, func, types, args=(), kwargs=None); enter it to see each op."""

    def __init__(self, _dispatch_key: Any = None) -> None:
        pass

    def __torch_dispatch__(self, func: Any, types: tuple[type, ...], args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None) -> Any:
        raise NotImplementedError

    def __enter__(self) -> TorchDispatchMode:
        _push(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        _pop(self)

    @classmethod
    def push(cls, *args: Any, **kwargs: Any) -> TorchDispatchMode:
        return cls(*args, **kwargs)

    @classmethod
    def ignore_compile_internals(cls) -> bool:
        return False


def _get_current_dispatch_mode() -> TorchDispatchMode | None:
    return _stack.modes[-1] if _stack.modes else None


def _get_current_dispatch_mode_stack() -> list[TorchDispatchMode]:
    return list(_stack.modes)


def is_in_torch_dispatch_mode(include_infra_modes: bool = True) -> bool:
    return bool(_stack.modes)


def _push(mode: TorchDispatchMode) -> None:
    global _entered
    with _lock:
        if _entered == 0:
            _installed[:] = call_sites.swap(_dispatcher)
            for name in TENSOR_METHODS:
                method = vars(Tensor)[name]
                _installed.append((Tensor, name, method))
                setattr(Tensor, name, _dispatcher(method, method))
        _entered += 1
    _stack.modes.append(mode)


def _pop(mode: TorchDispatchMode) -> None:
    global _entered
    if not _stack.modes or _stack.modes[-1] is not mode:
        raise AssertionError("exiting a TorchDispatchMode that is not the innermost one entered")
    _stack.modes.pop()
    with _lock:
        _entered -= 1
        if _entered == 0:
            call_sites.restore(_installed)
            _installed.clear()


def dispatch(current: Callable[..., Any], op: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A call of `op` (`current` is what its place held before the modes): to the innermost mode on this thread."""
    modes = _stack.modes
    if not modes:
        return current(*args, **kwargs)
    mode = modes.pop()  # off while its handler runs, as in PyTorch
    try:
        types = tuple(dict.fromkeys(type(a) for a in (*args, *kwargs.values()) if isinstance(a, Tensor)))
        return mode.__torch_dispatch__(aten.overload_for(op), types, args, kwargs)
    finally:
        modes.append(mode)


def _dispatcher(current: Callable[..., Any], op: Callable[..., Any]) -> Callable[..., Any]:
    def dispatcher(*args: Any, **kwargs: Any) -> Any:
        return dispatch(current, op, args, kwargs)

    return call_sites.stand_for(dispatcher, op)
