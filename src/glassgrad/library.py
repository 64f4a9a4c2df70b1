"""torch.library's custom operators, on an engine where every op is a Python call.

`custom_op("ns::name", fn, mutates_args=...)` makes `fn` an operator, reachable as `torch.ops.ns.name`;
`register_autograd` gives it a backward (through autograd.Function, so its node, saved tensors and hooks
behave as any other's). What only a tracing compiler uses is accepted and kept aside: `register_fake`'s
shape functions and the schema string are never run or parsed here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ._missing import module_getattr as _module_getattr
from .autograd.function import Function

_OPS: dict[str, CustomOpDef] = {}  # by qualified name, "ns::name"


class CustomOpDef:
    """An operator made by custom_op: call it like the function it wraps."""

    def __init__(self, qualname: str, fn: Callable[..., Any], mutates_args: Iterable[str] | str) -> None:
        self._qualname, self._fn, self._mutates_args = qualname, fn, mutates_args
        self._signature = inspect.signature(fn)
        self._autograd: type[Function] | None = None
        self._fake: Callable[..., Any] | None = None
        namespace, _, self.__name__ = qualname.partition("::")
        from ._aten import OpOverloadPacket

        self.default = OpOverloadPacket(self.__name__, self._run, namespace).default  # what dispatch modes are handed

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from .utils._python_dispatch import dispatch

        return dispatch(self._run, self.default, args, kwargs)

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        if self._autograd is None:
            return self._fn(*args, **kwargs)
        bound = self._signature.bind(*args, **kwargs)  # Function.apply takes its inputs by position
        bound.apply_defaults()
        return self._autograd.apply(*bound.args)

    def register_fake(self, fn: Callable[..., Any], /) -> Callable[..., Any]:
        """Kept, never run: glassgrad needs no shape function to run the op."""
        self._fake = fn
        return fn

    def register_kernel(self, device_types: str | Iterable[str] | None, fn: Callable[..., Any] | None = None, /) -> Any:
        """A kernel for CPU replaces the op's function (there is no other device here)."""

        def register(kernel: Callable[..., Any]) -> Callable[..., Any]:
            types = {device_types} if isinstance(device_types, str) or device_types is None else set(device_types)
            if types & {"cpu", None}:
                self._fn = kernel
            return kernel

        return register if fn is None else register(fn)

    def register_autograd(self, backward: Callable[..., Any], /, *, setup_context: Callable[..., Any] | None = None) -> None:
        op = self

        class Op(Function):
            @staticmethod
            def forward(*args: Any) -> Any:
                return op._fn(*args)

            @staticmethod
            def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
                if setup_context is not None:
                    setup_context(ctx, inputs, output)

            @staticmethod
            def backward(ctx: Any, *grads: Any) -> Any:
                return backward(ctx, *grads)

        Op.__name__ = Op.__qualname__ = self.__name__
        self._autograd = Op

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"


def custom_op(
    name: str,
    fn: Callable[..., Any] | None = None,
    /,
    *,
    mutates_args: Iterable[str] | str,
    device_types: str | Iterable[str] | None = None,
    schema: str | None = None,
    tags: Any = None,
) -> Any:
    """Make `fn` the operator `name` ("namespace::opname"); without fn, a decorator."""
    if "::" not in name:
        raise ValueError(f"Expected `name` to be of the form \"namespace::opname\", but got {name!r}.")

    def make(function: Callable[..., Any]) -> CustomOpDef:
        op = CustomOpDef(name, function, mutates_args)
        _OPS[name] = op
        return op

    return make if fn is None else make(fn)


class Library:
    """torch.library.Library: a namespace's registrations; glassgrad keeps only the custom ops made in it."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        self.ns, self.kind = ns, kind

    def _destroy(self) -> None:
        for name in [q for q in _OPS if q.startswith(self.ns + "::")]:
            del _OPS[name]


@contextmanager
def _scoped_library(ns: str, kind: str, dispatch_key: str = "") -> Iterator[Library]:
    """A Library whose namespace's custom ops are gone after the block (PyTorch's test helper)."""
    lib = Library(ns, kind, dispatch_key)
    try:
        yield lib
    finally:
        lib._destroy()


def _op(op: str | CustomOpDef) -> CustomOpDef:
    if isinstance(op, CustomOpDef):
        return op
    if op not in _OPS:
        raise ValueError(f"register: {op} is not a custom operator made by torch.library.custom_op")
    return _OPS[op]


def register_fake(op: str | CustomOpDef, fn: Callable[..., Any] | None = None, /, **kwargs: Any) -> Any:
    return _op(op).register_fake if fn is None else _op(op).register_fake(fn)


def register_kernel(op: str | CustomOpDef, device_types: Any, fn: Callable[..., Any] | None = None, /, **kwargs: Any) -> Any:
    return _op(op).register_kernel(device_types, fn)


def register_autograd(
    op: str | CustomOpDef, backward: Callable[..., Any], /, *, setup_context: Callable[..., Any] | None = None, **kwargs: Any
) -> None:
    _op(op).register_autograd(backward, setup_context=setup_context)


class _Namespace:
    """torch.ops.<namespace>: the custom ops registered under it, by name."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, opname: str) -> CustomOpDef:
        found = _OPS.get(f"{self._name}::{opname}")
        if found is None:
            raise AttributeError(f"'_OpNamespace' '{self._name}' object has no attribute '{opname}'")
        return found


def namespace(name: str) -> _Namespace:
    """torch.ops.<name>, for a namespace that custom_op has registered ops in."""
    if name.startswith("_") or not any(q.startswith(name + "::") for q in _OPS):
        raise AttributeError(f"module 'glassgrad.ops' has no attribute '{name}'")
    return _Namespace(name)


__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
