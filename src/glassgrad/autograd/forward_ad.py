"""Forward-mode AD, laid out like torch.autograd.forward_ad: dual levels, dual tensors and their tangents.

A tangent is not stored on the Tensor: the active level keeps them, by tensor id, so a tensor costs nothing
for forward mode and every op reads one flag (`state.propagating`) to know whether tangents can flow at all.
Leaving the level drops every tangent at once. The ops' tangent rules are the derivative table's
(ops/table.py, `Derivative.jvp`); this module only holds the tangents and the public API.

As in PyTorch, forward AD does not depend on grad mode (tangents flow under no_grad too), and there is one
level at a time: torch.func.jvp is how higher forward derivatives are taken.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

from ..tensor import Tensor
from .grad_mode import _Mode


class _ForwardState:
    """The one dual level (if any), its tangents, and whether ops propagate them now."""

    __slots__ = ("enabled", "generation", "level", "propagating", "tangents")

    def __init__(self) -> None:
        self.level = -1
        self.generation = 0  # counts levels entered: a tangent kept aside (a saved output's) is valid in its own only
        self.enabled = True  # torch._C._set_fwd_grad_enabled: forward AD's switch, apart from grad mode
        self.propagating = False  # a level is active, forward AD is enabled and no tangent rule is being computed
        self.tangents: dict[int, tuple[weakref.ref[Tensor], Tensor]] = {}


state = _ForwardState()
_current_level = -1  # PyTorch's module global: the active level, -1 outside any


def enter_dual_level() -> int:
    global _current_level
    if state.level >= 0:
        raise RuntimeError(NESTED_MESSAGE)
    state.level = _current_level = 0
    state.generation += 1
    state.tangents = {}
    state.propagating = state.enabled
    return state.level


NESTED_MESSAGE = "Nested forward mode AD is not supported at the moment"


def exit_dual_level(*, level: int | None = None) -> None:
    global _current_level
    if level is None:
        level = state.level
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != state.level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. This is not supported."
        )
    state.level = _current_level = -1
    state.propagating = False
    state.tangents = {}


def _is_fwd_grad_enabled() -> bool:
    return state.enabled


def set_fwd_grad_enabled(mode: bool) -> None:
    """torch._C._set_fwd_grad_enabled: with it off, ops propagate no tangents even inside a dual level."""
    state.enabled = bool(mode)
    state.propagating = state.enabled and state.level >= 0


class _set_fwd_grad_enabled(_Mode):
    """Context manager (and decorator) that sets forward AD's switch and restores it on exit."""

    def __init__(self, mode: bool) -> None:
        self.mode = mode

    def __enter__(self) -> None:  # type: ignore[override]
        self.before = state.enabled
        set_fwd_grad_enabled(self.mode)

    def __exit__(self, *exc: object) -> None:
        set_fwd_grad_enabled(self.before)

    def clone(self) -> _set_fwd_grad_enabled:
        return _set_fwd_grad_enabled(self.mode)


class dual_level(_Mode):
    """Context manager (and decorator) inside which dual tensors carry tangents."""

    def __enter__(self) -> int:  # type: ignore[override]
        return enter_dual_level()

    def __exit__(self, *exc: object) -> None:
        exit_dual_level()


def tangent_of(t: Tensor) -> Tensor | None:
    """t's tangent at the active level, or None."""
    entry = state.tangents.get(id(t))
    if entry is not None and entry[0]() is t:
        return entry[1]
    return None


def set_tangent(t: Tensor, tangent: Tensor | None) -> None:
    """Make `tangent` t's tangent at the active level (None takes it away)."""
    tangents = state.tangents
    key = id(t)
    if tangent is None:
        tangents.pop(key, None)
        return

    def forget(ref: weakref.ref[Tensor]) -> None:  # t died: its id may be reused by another tensor
        entry = tangents.get(key)
        if entry is not None and entry[0] is ref:
            del tangents[key]

    tangents[key] = (weakref.ref(t, forget), tangent)


@contextmanager
def computing_tangents() -> Iterator[None]:
    """While a tangent rule runs, its ops compute with primals only: no tangent of a tangent at the same level."""
    before = state.propagating
    state.propagating = False
    try:
        yield
    finally:
        state.propagating = before


def keeping_tangent(source: Tensor, alias: Tensor) -> Tensor:
    """`alias` (a detached alias a transform makes of its argument or result) with source's tangent: PyTorch's
    transforms wrap tensors per level, so what they detach for reverse mode stays dual for forward mode
    (jacfwd(jacrev(f)), hessian(outer_jacobian_strategy="forward-mode"))."""
    tangent = tangent_of(source)
    if tangent is not None:
        set_tangent(alias, tangent)
    return alias


def _check_level(level: int | None, what: str) -> int:
    if level is None:
        level = state.level
    if level < 0:
        raise RuntimeError(what)
    if level != state.level:
        raise RuntimeError("Invalid level given to _fw_primal")
    return level


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of `tensor` whose tangent is `tangent` (kept as it is, or cast to tensor's dtype)."""
    _check_level(
        level,
        "Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first.",
    )
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {_torch_name(tensor)}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {_torch_name(tangent)}")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, this is "
            f"not supported. Tensor is of size [{', '.join(map(str, tensor.shape))}] while the given forward "
            f"gradient is of size [{', '.join(map(str, tangent.shape))}]."
        )
    if tangent_of(tensor) is not None:
        raise RuntimeError(
            f"Making a dual Tensor based on a Tensor that already has a forward gradient at the same level "
            f"{state.level} is not supported."
        )
    with computing_tangents():
        dual = tensor.view_as(tensor)
        if tangent.dtype != tensor.dtype:
            tangent = tangent.to(tensor.dtype)
        if type(tangent) is Tensor and type(tensor) is Tensor and not _same_layout(tensor._data, tangent._data):
            tangent = _laid_out_as(tensor._data, tangent)
    set_tangent(dual, tangent)
    return dual


def _storage(array: np.ndarray) -> np.ndarray:
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _same_layout(primal: np.ndarray, tangent: np.ndarray) -> bool:
    """Whether the tangent's memory is laid out as the primal's: same strides, over a storage of as many elements."""
    return primal.size == 0 or (primal.strides == tangent.strides and _storage(primal).size == _storage(tangent).size)


def _laid_out_as(primal: np.ndarray, tangent: Tensor) -> Tensor:
    """A copy of `tangent` in memory laid out as the primal's (its own storage as long as the primal's, at the same
    offset and strides), as PyTorch makes one, so that a view op replayed on the dual (as_strided) fits its tangent."""
    root = _storage(primal)
    offset = (primal.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // primal.itemsize
    storage = np.zeros(root.size, primal.dtype)
    laid_out = np.lib.stride_tricks.as_strided(storage[offset:], primal.shape, primal.strides)
    laid_out[...] = tangent._data
    return Tensor._wrap(laid_out)


def _torch_name(t: Tensor) -> str:
    return f"torch.{str(t.dtype).rpartition('.')[2]}"


class UnpackedDualTensor(NamedTuple):
    primal: Tensor
    tangent: Tensor | None


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """(a view of tensor without its tangent, the tangent as it is); (tensor, None) outside any level."""
    if level is None and state.level < 0:
        return UnpackedDualTensor(tensor, None)
    _check_level(level, "Invalid level given to _fw_primal")
    tangent = tangent_of(tensor) if state.propagating else None  # inside a custom Function's forward: primals only
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    with computing_tangents():
        primal = tensor.view_as(tensor)
    return UnpackedDualTensor(primal, tangent)


__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]
