"""torch.utils.hooks: the handle every register_*_hook returns (glassgrad's lives with the graph's hooks), and
the marks for hooks that cannot travel with a saved tensor."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from .._missing import module_getattr as _module_getattr
from ..autograd.graph import RemovableHandle

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]

_Hook = TypeVar("_Hook", bound=Callable[..., Any])


def unserializable_hook(f: _Hook) -> _Hook:
    """Mark a hook as one that is not saved with its tensor, which silences warn_if_has_hooks about it."""
    f.__torch_unserializable__ = True  # type: ignore[attr-defined]
    return f


def warn_if_has_hooks(tensor: Any) -> None:
    """Warn for each backward hook of `tensor` that saving it would drop, unless marked unserializable."""
    for hook in (tensor._backward_hooks or {}).values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(
                f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, you can decorate the "
                "function with @torch.utils.hooks.unserializable_hook to suppress this warning",
                stacklevel=2,
            )


__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
