"""Grad modes: thread-local switches usable as context managers and decorators."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from threading import get_ident
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
CO_GENERATOR = 0x20  # inspect.CO_GENERATOR, without importing inspect


class _ModeState(threading.local):
    def __init__(self) -> None:
        self.grad_enabled = True  # written through _switch_grad, which keeps usage.grad_disabled with it
        self.inference = False
        # Switches of PyTorch's engine that only read back here: glassgrad's backward runs on the calling thread,
        # and its gradients are NumPy arrays of the parameter's own layout.
        self.multithreading = True
        self.grad_layout_enforced = True
        self.view_replay = False  # regenerate a view's grad_fn by replaying its view ops, not by as_strided


state = _ModeState()


class _Usage:
    """Process-wide facts that spare the hot paths a thread-local read (a few hundred instructions, compiled):
    whether any thread has entered inference mode yet (every new tensor asks whether it is an inference tensor;
    until then the answer is no), and which threads have grad mode off now (every op asks whether to record; while
    no thread has, the answer is yes). A thread that ends with grad mode off stays in the set: the check then falls
    back to the thread-local read, which is always right."""

    __slots__ = ("grad_disabled", "inference")

    def __init__(self) -> None:
        self.inference = False
        self.grad_disabled: set[int] = set()


usage = _Usage()


def _switch_grad(enabled: bool) -> None:
    """Set this thread's grad mode, and the set of threads that have it off."""
    state.grad_enabled = enabled
    # set.add and set.discard are one C call each: threads switching at once cannot lose each other's update
    if enabled:
        usage.grad_disabled.discard(get_ident())
    else:
        usage.grad_disabled.add(get_ident())


def is_grad_enabled() -> bool:
    return state.grad_enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


class _Mode:
    """Base for grad-mode context managers that also decorate functions and generators."""

    def _enter(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> None:
        self._saved = (state.grad_enabled, state.inference)
        self._enter()

    def __exit__(self, *exc: object) -> None:
        grad_enabled, state.inference = self._saved
        _switch_grad(grad_enabled)

    def clone(self) -> _Mode:
        return self.__class__()

    def __call__(self, func: F) -> F:
        if isinstance(func, type):
            import warnings

            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You should only decorate "
                "functions or methods. To preserve the current behavior of class decoration, you can directly decorate "
                "the `__init__` method and nothing else.",
                FutureWarning,
                stacklevel=2,
            )
            cls = func
            # As PyTorch: the class is replaced by a function that constructs it inside the mode.
            func = lambda *args, **kwargs: cls(*args, **kwargs)  # type: ignore[assignment]  # noqa: E731
        if getattr(func, "__code__", None) is not None and func.__code__.co_flags & CO_GENERATOR:
            return _generator_in_mode(self, func)  # type: ignore[return-value]

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


def _generator_in_mode(mode: _Mode, func: Callable[..., Any]) -> Callable[..., Any]:
    """func's generators run each of their steps (send, throw, close) in the mode, and their caller outside it."""

    @functools.wraps(func)
    def generator(*args: Any, **kwargs: Any) -> Any:
        gen = func(*args, **kwargs)
        step, argument = gen.send, None
        while True:
            with mode.clone():
                try:
                    item = step(argument)
                except StopIteration as stop:
                    return stop.value
            try:
                step, argument = gen.send, (yield item)
            except GeneratorExit:
                with mode.clone():
                    gen.close()
                raise
            except BaseException as error:  # thrown in by the caller: the generator may handle it
                step, argument = gen.throw, error

    return generator


class _NoArgumentMode(_Mode):
    """A mode that also decorates without parentheses: `@no_grad` as well as `@no_grad()`."""

    def __new__(cls, orig_func: Callable[..., Any] | None = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoArgumentMode):
    def _enter(self) -> None:
        _switch_grad(False)


class enable_grad(_NoArgumentMode):
    def _enter(self) -> None:
        _switch_grad(True)


class set_grad_enabled(_Mode):
    """Sets grad mode at construction, as PyTorch does; `with` restores the previous mode."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self._prev = state.grad_enabled
        _switch_grad(self.mode)

    def __enter__(self) -> None:
        self._saved = (self._prev, state.inference)
        _switch_grad(self.mode)

    def __call__(self, func: F) -> F:
        _switch_grad(self._prev)  # used as a decorator: only calls change the mode
        return super().__call__(func)

    def clone(self) -> _Mode:
        return set_grad_enabled(self.mode)


class inference_mode(_Mode):
    def __new__(cls, mode: Any = True) -> Any:
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # @inference_mode without parentheses: `mode` is the function

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def clone(self) -> _Mode:
        return inference_mode(self.mode)

    def _enter(self) -> None:
        if self.mode:
            usage.inference = True
            _switch_grad(False)
            state.inference = True
        else:
            state.inference = False


class _EngineSwitch(_Mode):
    """A switch set when constructed (so it works as a plain call too) and restored on leaving `with`."""

    attribute: str
    setter: str  # the C++ setter PyTorch's type error names

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(
                f"{self.setter}(): argument 'enabled' (position 1) must be bool, not {type(mode).__name__}"
            )
        self.mode = mode
        self._prev = getattr(state, self.attribute)
        setattr(state, self.attribute, mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        setattr(state, self.attribute, self._prev)

    def clone(self) -> _Mode:
        return type(self)(self.mode)


class set_multithreading_enabled(_EngineSwitch):
    """Whether backward may run on per-device worker threads (it always runs on the calling thread here)."""

    attribute, setter = "multithreading", "set_multithreading_enabled"


class enforce_grad_layout_policy(_EngineSwitch):
    """Whether accumulated gradients must take their parameter's strides (they always do here)."""

    attribute, setter = "grad_layout_enforced", "set_grad_layout_enforcement_enabled"

    def __init__(self, enable: bool = True) -> None:
        super().__init__(enable)

    def __call__(self, func: F) -> F:
        setattr(state, self.attribute, self._prev)  # used as a decorator: only calls change the switch, as in PyTorch
        return super().__call__(func)


def is_multithreading_enabled() -> bool:
    return state.multithreading


class _force_original_view_tracking(_EngineSwitch):
    """Whether a view whose base changed in place gets its grad_fn by replaying the view ops that made it (True) or
    by as_strided from its base (False, the default), as PyTorch's view replay switch."""

    attribute, setter = "view_replay", "set_view_replay_enabled"


def _set_view_replay_enabled(enabled: bool) -> None:
    _force_original_view_tracking(enabled)


def is_view_replay_enabled() -> bool:
    return state.view_replay
