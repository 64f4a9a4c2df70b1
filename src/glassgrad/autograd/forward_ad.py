"""Forward-mode AD, laid out like torch.autograd.forward_ad: dual levels, dual tensors and their tangents.

A tangent is not stored on the Tensor: the active level keeps them, by tensor id, so a tensor costs nothing
for forward mode and every op reads one flag (`state.propagating`) to know whether tangents can flow at all.
Leaving the level drops every tangent at once. The ops' tangent rules are the derivative table's
(ops/table.py, `Derivative.jvp`); this module only holds the tangents and the public API.

As in PyTorch, forward AD does not depend on grad mode (tangents flow under no_grad too), and there is one
level at a time: torch.func.jvp is how higher forward derivatives are taken.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

from ..tensor import Tensor
from . import grad_mode
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
    """t's tangent at the active level, or None. Inference mode hides every tangent, as PyTorch's leaves forward AD
    out: ops there see no dual and give none."""
    entry = state.tangents.get(id(t))
    if entry is not None and entry[0]() is t and not (grad_mode.usage.inference and grad_mode.state.inference):
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
    if grad_mode.state.inference:  # inference mode leaves forward AD out too: a plain alias, without tangent
        return tensor.view_as(tensor)
    if tangent_of(tensor) is not None:
        raise RuntimeError(
            f"Making a dual Tensor based on a Tensor that already has a forward gradient at the same level "
            f"{state.level} is not supported."
        )
    if tangent_of(tangent) is not None:  # PyTorch's sentence, its missing space included
        raise RuntimeError(
            f"Setting a forward grad that itself has a forward gradient at the same level{state.level} is not supported."
        )
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, this is "
            f"not supported. Tensor is of size [{', '.join(map(str, tensor.shape))}] while the given forward "
            f"gradient is of size [{', '.join(map(str, tangent.shape))}]."
        )
    with computing_tangents():
        dual = _forward_alias(tensor)
        if tangent.dtype != tensor.dtype:
            tangent = tangent.to(tensor.dtype)
        if type(tangent) is Tensor and type(tensor) is Tensor and not _same_layout(tensor._data, tangent._data):
            tangent = _laid_out_as(tensor, tangent)
    set_tangent(dual, tangent)
    return dual


def _forward_alias(tensor: Tensor) -> Tensor:
    """A view of tensor that forward AD does not see as one (make_dual's result, unpack_dual's primal): an in-place
    op on it changes its own tangent, never its base's, and views taken of it have it as their base for tangents."""
    alias = tensor.view_as(tensor)
    if alias._base is not None:
        alias._view_chain = (*alias._view_chain[:-1], (forward_alias_step, (weakref.ref(alias),)))
    return alias


def forward_alias_step(t: Tensor, alias: weakref.ref[Tensor]) -> Tensor:
    """The step of a view chain where a forward alias was taken: replayed, a plain alias; `alias` is the tensor that
    step made, the base of the later steps' tangents."""
    return t.view_as(t)


def _storage(array: np.ndarray) -> np.ndarray:
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _same_layout(primal: np.ndarray, tangent: np.ndarray) -> bool:
    """Whether the tangent's memory is laid out as the primal's: same strides, over a storage of as many elements."""
    return primal.size == 0 or (primal.strides == tangent.strides and _storage(primal).size == _storage(tangent).size)


def _laid_out_as(primal: Tensor, tangent: Tensor) -> Tensor:
    """A copy of `tangent` in memory laid out as the primal's, as PyTorch makes one, so that a view op replayed on
    the dual (as_strided) fits its tangent."""
    laid_out = zeros_with_same_feature_meta(primal)
    laid_out._data[...] = tangent._data
    return laid_out


def zeros_with_same_feature_meta(target: Tensor, batch_shape: tuple[int, ...] = ()) -> Tensor:
    """Zeros of shape batch_shape + target's, each batch element laid out in memory as target is (its strides and
    storage offset, in a storage as long as target's): aten's _new_zeros_with_same_feature_meta."""
    data = target._data
    root = _storage(data)
    offset = (data.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // data.itemsize
    storage = np.zeros(root.size * math.prod(batch_shape), data.dtype)
    batch_strides: list[int] = []
    step = root.size * data.itemsize
    for size in reversed(batch_shape):
        batch_strides.insert(0, step)
        step *= size
    # Made over `storage` itself (not by as_strided, whose result hides its base), so that it is that storage's view
    laid_out = np.ndarray(
        batch_shape + data.shape, data.dtype, buffer=storage, offset=offset * data.itemsize,
        strides=(*batch_strides, *data.strides),
    )
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
        primal = _forward_alias(tensor)
    return UnpackedDualTensor(primal, tangent)


__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]
