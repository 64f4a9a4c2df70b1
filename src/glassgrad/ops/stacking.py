"""Lifting and broadcasting several tensors together: atleast_1d/2d/3d, broadcast_tensors and
broadcast_shapes, the stacks built on them (hstack, vstack, column_stack, dstack, meshgrid) and the splits
that undo them (hsplit, vsplit, dsplit); and the products of several tensors: block_diag, cartesian_prod,
combinations.

Nearly everything here is a view or a cat (stack) of views, so the nodes are ViewBackward0,
UnsqueezeBackward0, ExpandBackward0, SliceBackward0 and CatBackward0, as in PyTorch; block_diag alone has
a node of its own.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._dtype import result_type
from ..tensor import Size, Tensor
from .elementwise import broadcast_shape
from .indexing import index_select
from .shape import _check_many, _many, cat, expand, narrow, reshape, stack, tensor_split, unsqueeze, view


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


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """hstack of the tensors with every 0-d and 1-d one made a column."""
    _check_many(tensors, "column_stack")
    return hstack([reshape(x, (x.numel(), 1)) if x.ndim <= 1 else x for x in tensors])


# -- splitting: the inverses of hstack, vstack and dstack -----------------------------------------------
def _split_along(name: str, input: Tensor, indices_or_sections: Any, dim: int, min_dims: int) -> tuple[Tensor, ...]:
    if input.ndim < min_dims:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor with {input.ndim} "
            "dimensions!"
        )
    if isinstance(indices_or_sections, int):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension {size} is not "
                f"divisible by the split_size {indices_or_sections}!"
            )
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    return _split_along("hsplit", input, indices_or_sections, 1 if input.ndim > 1 else 0, 1)


def vsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


# -- block_diag, cartesian_prod, combinations ----------------------------------------------------------
def _block(shape: Size) -> tuple[int, int]:
    """The rows and columns a block_diag operand takes: a 0-d one is 1x1, a 1-d one a row."""
    return (1, 1) if not shape else (1, shape[0]) if len(shape) == 1 else (shape[0], shape[1])


def _block_piece(grad: Tensor, dim: int, sizes: tuple[Size, ...], index: int) -> Tensor:
    row = sum(_block(s)[0] for s in sizes[:index])
    col = sum(_block(s)[1] for s in sizes[:index])
    rows, cols = _block(sizes[index])
    return reshape(narrow(narrow(grad, 0, row, rows), 1, col, cols), sizes[index])


def block_diag(*tensors: Tensor) -> Tensor:
    """The operands along the diagonal of one matrix, zeros elsewhere, in their common dtype."""
    for i, x in enumerate(tensors):
        if x.ndim > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {x.ndim} dimensions"
            )
    blocks = [_block(x.shape) for x in tensors]
    common = result_type(*tensors) if tensors else None
    out = np.zeros((sum(r for r, _ in blocks) if tensors else 1, sum(c for _, c in blocks)), dtype=common.np if common else np.float32)
    row = col = 0
    for x, (rows, cols) in zip(tensors, blocks, strict=True):
        out[row : row + rows, col : col + cols] = x._data.reshape(rows, cols)
        row, col = row + rows, col + cols
    if not tensors:
        return Tensor._wrap(out)
    return _many("BlockDiagBackward0", tensors, out, 0, _block_piece)


def _vectors(tensors: Sequence[Tensor]) -> None:
    for x in tensors:
        if x.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(x.shape)}")


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every tuple of one element from each vector, in row-major order, as the rows of a matrix."""
    _vectors(tensors)
    if len(tensors) == 1:
        return tensors[0]
    return stack([reshape(grid, -1) for grid in meshgrid(*tensors, indexing="ij")], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """Every r-element combination of the vector's elements (itertools' order), as the rows of a matrix."""
    _vectors((input,))
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._wrap(np.zeros(0, dtype=input._data.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return stack([index_select(input, 0, Tensor._wrap(np.ascontiguousarray(rows[:, k]))) for k in range(r)], 1)


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
    "hstack": hstack, "vstack": vstack, "row_stack": vstack, "column_stack": column_stack, "dstack": dstack,
    "meshgrid": meshgrid, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit, "block_diag": block_diag,
    "cartesian_prod": cartesian_prod, "combinations": combinations,
}
METHODS: dict[str, Callable[..., Any]] = {"hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit}
INPLACE: tuple[str, ...] = ()
