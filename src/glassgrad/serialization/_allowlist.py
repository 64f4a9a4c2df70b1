"""The weights-only allow-list: which globals a checkpoint may name when `glassgrad.load(weights_only=True)` reads it.

PyTorch's own names (rebuild functions, storage classes, dtypes, torch.Size) are not here: the reader maps them to
glassgrad's implementations itself. This list holds the plain Python globals a state dict may need, and whatever
users add with `add_safe_globals` / `safe_globals`.
"""

from __future__ import annotations

import builtins
import codecs
import collections
import pickle
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any


def _qualified(obj: Any) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


_DEFAULT: dict[str, Any] = {
    _qualified(obj): obj
    for obj in (
        collections.OrderedDict, collections.Counter, collections.defaultdict, builtins.set, builtins.frozenset,
        builtins.slice, builtins.range, builtins.complex, builtins.bytearray,
        codecs.encode,  # protocol 2 pickles bytes as _codecs.encode(text, "latin1")
    )
}
# Refused even when a user allow-lists something from them, as in PyTorch: no checkpoint needs them, and they are
# what a hostile pickle names to run commands.
_BLOCKED_MODULES = frozenset({"sys", "os", "posix", "nt"})
_user_allowed: dict[str, Any] = {}


def add_safe_globals(safe_globals: Iterable[Any]) -> None:
    """Allow these globals (classes, functions; or (obj, "module.name") pairs) in weights_only loads."""
    for entry in safe_globals:
        obj, name = entry if isinstance(entry, tuple) else (entry, _qualified(entry))
        _user_allowed[name] = obj


def get_safe_globals() -> list[Any]:
    return list(_user_allowed.values())


def clear_safe_globals() -> None:
    _user_allowed.clear()


@contextmanager
def safe_globals(safe_globals: Iterable[Any]) -> Iterator[None]:
    """Allow these globals for the duration of a `with` block."""
    saved = dict(_user_allowed)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _user_allowed.clear()
        _user_allowed.update(saved)


_UNSAFE = (
    "Re-running `glassgrad.load` with `weights_only` set to `False` will likely succeed, but it can result in "
    "arbitrary code execution. Do it only if you got the file from a trusted source."
)


def allowed(module: str, name: str) -> Any:
    """The object a weights-only load may use for GLOBAL module.name; UnpicklingError naming it otherwise."""
    full = f"{module}.{name}"
    if module in _BLOCKED_MODULES:
        raise pickle.UnpicklingError(
            f"Weights only load failed. {_UNSAFE}\n\nTrying to load unsupported GLOBAL {full} whose module {module} is "
            "blocked: a checkpoint has no use for it, and it is how a hostile file runs commands. Nothing from the "
            "file was run."
        )
    obj = _user_allowed.get(full, _DEFAULT.get(full))
    if obj is None:
        raise pickle.UnpicklingError(
            "Weights only load failed. This file can still be loaded, to do so you have two options, do those steps "
            f"only if you trust the source of the checkpoint. \n\t(1) {_UNSAFE}\n\t(2) Alternatively, to load with "
            "`weights_only=True` please check the recommended steps in the following error message.\n\t"
            f"WeightsUnpickler error: Unsupported global: GLOBAL {full} was not an allowed global by default. Please "
            f"use `glassgrad.serialization.add_safe_globals([{name}])` or the "
            f"`glassgrad.serialization.safe_globals([{name}])` context manager to allowlist this global if you trust "
            "this class/function."
        )
    return obj
