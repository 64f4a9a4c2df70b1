"""torch.compiler on an engine that never compiles: every program runs eagerly, as written.

What is accepted and inert (docs/coverage.md lists it too): `compile` hands back what it is given (it is
torch.compile, see glassgrad.jit); `disable`, `allow_in_graph`, `assume_constant_result` and
`nested_compile_region` return the function itself; `set_stance` is a context manager and decorator that
changes nothing; `reset` and `cudagraph_mark_step_begin` do nothing. `is_compiling`, `is_dynamo_compiling` and
`is_exporting` answer False, which is true here: code guarded by them takes its eager branch, as under PyTorch
outside torch.compile. `wrap_numpy` runs its NumPy function on the tensors' arrays, as PyTorch does eagerly.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import Any, TypeVar

from ._missing import module_getattr as _module_getattr
from .jit import compile as compile

F = TypeVar("F", bound=Callable[..., Any])


def is_compiling() -> bool:
    return False


def is_dynamo_compiling() -> bool:
    return False


def is_exporting() -> bool:
    return False


def reset() -> None:
    """Nothing was compiled, so there is no cache to clear."""


def cudagraph_mark_step_begin() -> None:
    """No CUDA graphs are recorded here."""


def _returned_unchanged(fn: F | None) -> F | Callable[[F], F]:
    # used bare (@disable) or called first (@disable(recursive=False)): either way the function is what runs
    return fn if fn is not None else lambda f: f


def disable(fn: F | None = None, recursive: bool = True, *, reason: str | None = None) -> F | Callable[[F], F]:
    return _returned_unchanged(fn)


def nested_compile_region(fn: F | None = None, **options: Any) -> F | Callable[[F], F]:
    return _returned_unchanged(fn)


def allow_in_graph(fn: F) -> F:
    return fn


def assume_constant_result(fn: F) -> F:
    return fn


def wrap_numpy(fn: F) -> F:
    """fn written over NumPy arrays, called with tensors: tensors in become arrays, arrays out become tensors
    (PyTorch does this when compiling, and calls fn eagerly so otherwise)."""
    import numpy as np

    from .tensor import Tensor
    from .utils._pytree import tree_map_only

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        args, kwargs = tree_map_only(Tensor, lambda t: t.numpy(), (args, kwargs))
        return tree_map_only(np.ndarray, Tensor._wrap, fn(*args, **kwargs))

    return wrapped  # type: ignore[return-value]


class _Inert(contextlib.ContextDecorator):
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> None:
        return None


def set_stance(
    stance: str = "default", *, skip_guard_eval_unsafe: bool = False, force_backend: str | Callable[..., Any] | None = None
) -> contextlib.ContextDecorator:
    """A context manager (or decorator) that changes nothing: there is no compiled code whose use to steer."""
    return _Inert()


__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
