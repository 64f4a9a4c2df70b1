"""Every place glassgrad holds an op, and swapping what is there for a while.

vmap (func/_dispatch.py) and the profiler (glassgrad.profiler) both replace every op by a wrapper of theirs
for the duration of a context, and put the originals back afterwards: outside them an op costs what it always
costs. The places are the public namespaces, Tensor's methods, operators and op properties, and the module
globals and class attributes through which glassgrad's own code calls ops (an activation module's function,
a derivative formula's `mul`), so that ops called by other ops are seen too.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ..tensor import Tensor
from . import INPLACE_METHODS, METHODS, NAMESPACES, OPERATORS, PROPERTIES

Swap = tuple[Any, dict[str, Any], dict[str, Any]]  # (owner, its originals by name, their replacements by name)


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


class CallSites:
    """The call sites of the ops that `replacements` maps to a wrapper, found again only when glassgrad has
    imported another module since the last look."""

    def __init__(self, replacements: dict[Callable[..., Any], Callable[..., Any]]) -> None:
        self.replacements = replacements
        self._op_types = frozenset(type(fn) for fn in replacements)  # Python functions, and Cython's where compiled
        self._found: tuple[int, list[Swap]] = (0, [])  # (how many glassgrad modules were scanned, what was found)

    def replacement_for(self, value: Any) -> Any:
        if type(value) in self._op_types:
            return self.replacements.get(value)
        if type(value) is property and value.fget in self.replacements:
            return property(self.replacements[value.fget])
        return None

    def current(self) -> list[Swap]:
        count = sum(1 for name in list(sys.modules) if name.startswith("glassgrad"))
        if self._found[0] != count:
            self._found = (count, self._scan())
        return self._found[1]

    def _scan(self) -> list[Swap]:
        swaps = []
        modules = [m for name, m in list(sys.modules.items()) if name == "glassgrad" or name.startswith("glassgrad.")]
        for module in modules:
            classes = [c for c in vars(module).values() if isinstance(c, type) and c.__module__ == module.__name__]
            for owner in (module, *classes):
                originals, replaced = {}, {}
                for name, value in list(vars(owner).items()):
                    replacement = self.replacement_for(value)
                    if replacement is not None:
                        originals[name], replaced[name] = value, replacement
                if originals:
                    swaps.append((owner, originals, replaced))
        return swaps


def install(swaps: list[Swap], which: int) -> None:
    """Put each owner's originals (which=1) or replacements (which=2) in place."""
    for swap in swaps:
        owner, functions = swap[0], swap[which]
        if isinstance(owner, type):
            for name, fn in functions.items():
                setattr(owner, name, fn)
        else:
            vars(owner).update(functions)  # a module: one dict update


ORIGINALS, REPLACEMENTS = 1, 2
