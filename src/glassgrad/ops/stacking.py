"""Lifting and broadcasting several tensors together: atleast_1d/2d/3d, broadcast_tensors and
broadcast_shapes, and the stacks built on them (hstack, vstack, dstack, meshgrid).

Everything here is a view or a cat of views, so there are no derivative entries of its own: the
nodes are ViewBackward0, UnsqueezeBackward0, ExpandBackward0 and CatBackward0, as in PyTorch.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ..tensor import Size, Tensor
from .elementwise import broadcast_shape
from .shape import _check_many, cat, expand, reshape, unsqueeze, view


# -- atleast_1d, atleast_2d, atleast_3d -------------------------------------------------------
# A tensor that already has the dims is returned itself, not a view of it (PyTorch returns `self`).
def _atleast_1d(input: Tensor) -> Tensor:
    return reshape(input, 1) if input.ndim == 0 else input


def _atleast_2d(input: Tensor) -> Tensor:
    return reshape(input, 1, 1) if input.ndim == 0 else unsqueeze(input, 0) if input.ndim == 1 else input


def _atleast_3d(input: Tensor) -> Tensor:
    if input.ndim == 0:
        return reshape(input, 1, 1, 1)
    if input.ndim == 1:
        return unsqueeze(unsqueeze(input, 0), -1)
    return unsqueeze(input, -1) if input.ndim == 2 else input


def _lifted(name: str, lift: Callable[[Tensor], Tensor], tensors: tuple[Any, ...]) -> Tensor | tuple[Tensor, ...]:
    """One tensor in, one out; several (or one list of them) in, a tuple out."""
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return lift(tensors[0])
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    elif len(tensors) == 1:
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got ({type(tensors[0]).__name__}), but expected "
            "one of: (Tensor input) or (tuple of Tensors tensors)"
        )
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(x).__name__}")
    return tuple(lift(x) for x in tensors)


def atleast_1d(*tensors: Tensor | Sequence[Tensor]) -> Tensor | tuple[Tensor, ...]:
    return _lifted("atleast_1d", _atleast_1d, tensors)


def atleast_2d(*tensors: Tensor | Sequence[Tensor]) -> Tensor | tuple[Tensor, ...]:
    return _lifted("atleast_2d", _atleast_2d, tensors)


def atleast_3d(*tensors: Tensor | Sequence[Tensor]) -> Tensor | tuple[Tensor, ...]:
    return _lifted("atleast_3d", _atleast_3d, tensors)


# -- broadcast_tensors, broadcast_shapes --------------------------------------------------------
def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """Each tensor expanded to the common shape; one that has it already comes back itself, as in PyTorch."""
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(x).__name__}")
    shape = broadcast_shape(*(x.shape for x in tensors))
    return tuple(x if x.shape == shape else expand(x, shape) for x in tensors)


def broadcast_shapes(*shapes: int | Sequence[int] | None) -> Size:
    """The shape that tensors of `shapes` broadcast to, with the errors of PyTorch's own (Python) implementation."""
    given = [(s,) if isinstance(s, int) else s for s in shapes if s is not None]
    for shape in given:
        if not isinstance(shape, Sequence):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
    common = [1] * max((len(s) for s in given), default=0)
    for index, shape in enumerate(given):
        for i in range(-1, -1 - len(shape), -1):
            size = shape[i]
            if size == common[i]:
                continue
            if common[i] == 1:
                if size < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = size
            elif size != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {size} at {i}! Mismatching argument at index {index} "
                    f"had {shape}; but expected shape should be broadcastable to {common}"
                )
    return Size(common)


# -- stacking along a new or existing dim -----------------------------------------------------
def _stacked(what: str, tensors: Sequence[Tensor], lift: Callable[[Tensor], Tensor]) -> list[Tensor]:
    _check_many(tensors, what)
    return [lift(x) for x in tensors]


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    parts = _stacked("hstack", tensors, _atleast_1d)
    return cat(parts, 0 if parts[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    return cat(_stacked("vstack", tensors, _atleast_2d), 0)


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    return cat(_stacked("dstack", tensors, _atleast_3d), 2)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
            UserWarning, stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for x in tensors:
        if x.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {x}")
        if x.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    # 'xy' puts the first two inputs' dims the other way round (Cartesian rather than matrix indexing).
    places = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) > 1:
        places[0], places[1] = 1, 0
    grid = [0] * len(tensors)
    for x, p in zip(tensors, places, strict=True):
        grid[p] = x.numel()
    return tuple(
        expand(view(x, tuple(-1 if i == p else 1 for i in range(len(grid)))), grid)
        for x, p in zip(tensors, places, strict=True)
    )


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "atleast_1d": atleast_1d, "atleast_2d": atleast_2d, "atleast_3d": atleast_3d,
    "broadcast_tensors": broadcast_tensors, "broadcast_shapes": broadcast_shapes,
    "hstack": hstack, "vstack": vstack, "dstack": dstack, "meshgrid": meshgrid,
}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
