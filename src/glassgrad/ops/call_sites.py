"""Every place glassgrad holds an op, and swapping what is there for a while.

vmap (func/_dispatch.py) and the profiler (glassgrad.profiler) both replace every op by a wrapper of theirs
for the duration of a context, and put back what was there afterwards: outside them an op costs what it always
costs. The places are the public namespaces, Tensor's methods, operators and op properties, and the module
globals and class attributes through which glassgrad's own code calls ops (an activation module's function,
a derivative formula's `mul`), so that ops called by other ops are seen too.

The two nest either way: a wrapper names the op it stands for in `stands_for`, so a place holding one is still
known as that op's place, and `swap` hands the wrapper-maker what is there now (a profiler inside vmap times
vmap's dispatchers; vmap inside a profiler puts its dispatchers in and the profiler's wrappers back after).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Container
from typing import Any

from ..tensor import Tensor
from . import INPLACE_METHODS, METHODS, NAMESPACES, OPERATORS, PROPERTIES

Site = tuple[Any, str, Callable[..., Any]]  # (owner: a module or class, attribute name, the op held there)
Saved = list[tuple[Any, str, Any]]  # (owner, attribute name, what it held before a swap)


def public_ops() -> dict[Callable[..., Any], str]:
    """Every op, by its function, named by its first public name ('glassgrad.add', 'Tensor.sum')."""
    entries = [(f"{space}.{name}", fn) for space, functions in NAMESPACES.items() for name, fn in functions.items()]
    entries += [(f"Tensor.{name}", fn) for name, fn in {**METHODS, **INPLACE_METHODS, **OPERATORS}.items()]
    entries += [(f"Tensor.{name}", fn) for name, fn in PROPERTIES.items()]
    entries += [(f"Tensor.{name}", vars(Tensor)[name].fget) for name in ("T", "mT")]
    named: dict[Callable[..., Any], str] = {}
    for name, fn in entries:
        named.setdefault(fn, name)
    return named


OPS = public_ops()
_OP_TYPES = frozenset(type(fn) for fn in OPS)  # Python functions, and Cython's where the core is compiled


def op_of(value: Any) -> Callable[..., Any] | None:
    """The op a value held somewhere is (an op, a property over one, or vmap's or the profiler's wrapper of one),
    else None. Not `__wrapped__`: a user's functools.wraps of an op is no op."""
    if type(value) is property:
        value = value.fget
    if type(value) not in _OP_TYPES:
        return None
    return value if value in OPS else getattr(value, "stands_for", None)


def stand_for(wrapper: Callable[..., Any], op: Callable[..., Any]) -> Callable[..., Any]:
    """Mark `wrapper` as standing for `op` wherever it is installed; its name is the op's."""
    wrapper.__name__ = wrapper.__qualname__ = op.__name__
    wrapper.stands_for = op  # type: ignore[attr-defined]
    return wrapper


_found: tuple[int, list[Site]] = (0, [])  # (how many glassgrad modules were scanned, the sites found)


def sites() -> list[Site]:
    """Every place that holds an op, scanned again only when glassgrad has imported another module since."""
    global _found
    count = sum(1 for name in list(sys.modules) if name.startswith("glassgrad"))
    if _found[0] != count:
        _found = (count, _scan())
    return _found[1]


def _scan() -> list[Site]:
    found = []
    modules = [m for name, m in list(sys.modules.items()) if name == "glassgrad" or name.startswith("glassgrad.")]
    for module in modules:
        classes = [c for c in vars(module).values() if isinstance(c, type) and c.__module__ == module.__name__]
        for owner in (module, *classes):
            for name, value in list(vars(owner).items()):
                op = op_of(value)
                if op is not None:
                    found.append((owner, name, op))
    return found


def swap(make: Callable[[Callable[..., Any], Callable[..., Any]], Callable[..., Any]], only: Container[Any] | None = None) -> Saved:
    """Put make(what is there now, the op) at every site (of the ops in `only`, if given); what was there, for
    `restore`."""
    saved: Saved = []
    for owner, name, op in sites():
        if only is not None and op not in only:
            continue
        current = vars(owner)[name]
        is_property = type(current) is property
        replacement = make(current.fget if is_property else current, op)
        saved.append((owner, name, current))
        _put(owner, name, property(replacement) if is_property else replacement)
    return saved


def restore(saved: Saved) -> None:
    for owner, name, value in saved:
        _put(owner, name, value)


def _put(owner: Any, name: str, value: Any) -> None:
    if isinstance(owner, type):
        setattr(owner, name, value)
    else:
        vars(owner)[name] = value
