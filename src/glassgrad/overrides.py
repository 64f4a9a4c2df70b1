"""torch.overrides on an engine without __torch_function__ dispatch.

glassgrad's ops are Python functions over glassgrad tensors; they do not hand control to tensor subclasses
or to modes. The protocol's helpers work all the same for a library's own functions: one that asks
has_torch_function and calls handle_torch_function (or is wrapped by wrap_torch_function) hands itself to
a type with a __torch_function__, as under PyTorch. Libraries subclass TorchFunctionMode at module level (Lightning's _EmptyInit), so the class is
here; entering such a mode raises, rather than silently letting ops run without it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from ._missing import module_getattr as _module_getattr
from ._missing import no_mode_dispatch


class TorchFunctionMode:
    def __init__(self) -> None:
        pass

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        raise NotImplementedError

    def __enter__(self) -> TorchFunctionMode:
        raise no_mode_dispatch(__name__ + ".TorchFunctionMode")

    def __exit__(self, *exc_info: object) -> None:
        return None


def _overrides(value: Any) -> bool:
    """Whether `value`'s type brings its own __torch_function__ (glassgrad's Tensor and Parameter have none)."""
    return getattr(type(value), "__torch_function__", None) is not None


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether any of `relevant_args` overrides torch functions: a library's function that checks this and calls
    handle_torch_function hands itself to that type. glassgrad's own ops never hand off (see the docstring)."""
    return any(_overrides(arg) for arg in relevant_args)


def has_torch_function_unary(arg: Any) -> bool:
    return _overrides(arg)


def has_torch_function_variadic(*args: Any) -> bool:
    return has_torch_function(args)


def _overloaded_args(relevant_args: Iterable[Any]) -> list[Any]:
    """One argument per overriding type, in order, a subclass before the classes it derives from."""
    chosen: list[Any] = []
    for arg in relevant_args:
        if not _overrides(arg) or any(type(arg) is type(other) for other in chosen):
            continue
        parent = next((i for i, other in enumerate(chosen) if issubclass(type(arg), type(other))), len(chosen))
        chosen.insert(parent, arg)
    return chosen


def handle_torch_function(public_api: Callable[..., Any], relevant_args: Iterable[Any], *args: Any, **kwargs: Any) -> Any:
    """Call the __torch_function__ of the overriding types among `relevant_args` until one does not answer
    NotImplemented; TypeError when all do."""
    overloaded = _overloaded_args(relevant_args)
    types = tuple(type(arg) for arg in overloaded)
    for arg in overloaded:
        result = arg.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = f"{public_api.__module__}.{public_api.__name__}"
    raise TypeError(f"no implementation found for '{name}' on types that implement __torch_function__: {list(types)}")


def wrap_torch_function(dispatcher: Callable[..., Iterable[Any]]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Make a function hand itself to the overriding types among what `dispatcher` (same signature) picks out."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            relevant = tuple(dispatcher(*args, **kwargs))
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return decorate


def is_tensor_method_or_property(func: Callable[..., Any]) -> bool:
    """Whether `func` is a method of the Tensor class, or the __get__ of one of its properties, as a
    __torch_function__ would be handed them. glassgrad.add and Tensor.add are one function (PyTorch has two),
    so this answers True for a function the Tensor class also has as a method."""
    from .tensor import Tensor

    name = getattr(func, "__name__", "")
    return name == "__get__" or any(vars(cls).get(name) is func for cls in Tensor.__mro__)


def is_tensor_like(inp: Any) -> bool:
    """A glassgrad tensor, or anything that brings its own __torch_function__ (a class as well as an instance)."""
    from .tensor import Tensor

    return isinstance(inp, Tensor) or hasattr(inp, "__torch_function__")


__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
