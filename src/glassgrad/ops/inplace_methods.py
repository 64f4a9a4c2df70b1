"""Tensor methods that only exist in place: the view-metadata changes (t_, transpose_, swapaxes_, swapdims_, squeeze_,
unsqueeze_, as_strided_), resize_ and resize_as_, fill_diagonal_, and the Python callbacks apply_ and map_ (CPU only in PyTorch
too).

An in-place view op changes the tensor's shape, not its values: as in PyTorch it passes the in-place checks, bumps
the version counter (so saved copies of the tensor go stale) and moves the tensor's history onto the view op's node,
named as PyTorch names the in-place overload (TransposeBackward1, SqueezeBackward4, ...). A view stays a view of the
same base, one replay step longer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..autograd.forward_ad import set_tangent, tangent_of
from ..autograd.forward_ad import state as forward_state
from ..autograd.graph import type_name
from ..autograd.inplace import bump_version, check_inplace, note_metadata_change
from ..tensor import Size, Tensor
from .elementwise import _as_number, require_tensor
from .rearrange import diagonal
from .shape import expand, squeeze, t, transpose, unsqueeze
from .strided import as_strided
from .table import Derivative

# -- view-metadata changes ----------------------------------------------------------------------------------------
# PyTorch's names for the in-place overloads of the view ops' nodes.
_IN_PLACE_NAMES = {
    "TBackward0": "TBackward1", "TransposeBackward0": "TransposeBackward1", "UnsqueezeBackward0": "UnsqueezeBackward1",
    "SqueezeBackward0": "SqueezeBackward3", "SqueezeBackward1": "SqueezeBackward4", "SqueezeBackward2": "SqueezeBackward5",
    "AsStridedBackward0": "AsStridedBackward1",
}
_twins: dict[Derivative, type] = {}


def _in_place_node_class(entry: Derivative) -> type:
    """The node class of `entry`'s in-place twin: the same formulas under PyTorch's name for the overload."""
    twin = _twins.get(entry)
    if twin is None:
        twin = _twins[entry] = Derivative(
            _IN_PLACE_NAMES[entry.name], entry.inputs, entry.formulas, complex=entry.complex is entry
        ).node_class
    return twin


def _view_in_place(self: Tensor, view: Callable[..., Tensor], *args: Any) -> Tensor:
    check_inplace(self)
    result = view(self, *args)
    self._data = result._data
    bump_version(self)
    note_metadata_change(self)
    if forward_state.propagating:
        set_tangent(self, tangent_of(result))
    node = result.grad_fn
    if node is not None:
        # The view op recorded its node with self's old history as input; only its name is the out-of-place one's.
        # Both classes are OpNodes with empty slots, so the node can change class in place.
        node.__class__ = _in_place_node_class(node.derivative)  # type: ignore[attr-defined]
        self._with_history(node, 0)
    if self._base is not None:
        self._view_chain = (*self._view_chain, (view, args))
    return self


def t_(self: Tensor) -> Tensor:
    if self.ndim > 2:  # checked here too, for the message's name
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _view_in_place(self, t)


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _view_in_place(self, transpose, dim0, dim1)


def squeeze_(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    return _view_in_place(self, squeeze, dim)


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _view_in_place(self, unsqueeze, dim)


def as_strided_(self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    return _view_in_place(self, as_strided, size, stride, storage_offset)


# -- resize_ ------------------------------------------------------------------------------------------------------
def _sizes(op: str, sizes: tuple[Any, ...]) -> tuple[int, ...]:
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, Size)):
        sizes = tuple(sizes[0])
    for s in sizes:
        if not isinstance(s, int):
            raise TypeError(f"{op}(): argument 'size' (position 1) must be tuple of ints, not {type(s).__name__}")
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            f"numel: integer multiplication overflow ({op} got the size {list(sizes)}; every size must be 0 or more)"
        )
    return sizes


def _storage_from(data: np.ndarray) -> np.ndarray | None:
    """The memory from data's first element to the end of the array it views, as a flat array of data's dtype:
    what PyTorch's storage offers a resize_ before it has to grow. None where that buffer is not one block."""
    root = data
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not root.flags.c_contiguous:
        return None
    offset = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if offset < 0 or offset % data.itemsize:
        return None
    count = (root.nbytes - offset) // data.itemsize
    return np.ndarray((count,), data.dtype, buffer=root, offset=offset)


def resize_(self: Tensor, *sizes: Any, memory_format: Any = None) -> Tensor:
    """The tensor's elements, in storage order, laid out as `sizes` (contiguous); a larger size grows the storage
    with uninitialized elements, as in PyTorch. A tensor that requires grad cannot be resized."""
    shape = _sizes("resize_", sizes)
    if self._requires_grad and not self._is_inference:  # an inference tensor keeps no history to contradict
        raise RuntimeError("cannot resize variables that require grad")
    if shape == self._data.shape:  # PyTorch keeps the strides and the version
        return self
    count = math.prod(shape)
    storage = _storage_from(self._data)
    if storage is None or storage.size < count:
        # Grown (or copied out of a scattered buffer): other tensors that shared the old storage no longer see this one.
        grown = np.empty(count, self._data.dtype)
        old = self._data.reshape(-1) if storage is None else storage
        grown[: min(count, old.size)] = old[:count]
        storage = grown
    self._data = storage[:count].reshape(shape)
    bump_version(self)
    note_metadata_change(self)
    return self


def set_(self: Tensor, source: Tensor | None = None) -> Tensor:
    """Make this tensor use `source`'s memory, shape and strides (no elements with no source), as PyTorch's set_.
    A leaf gets a new gradient accumulator: graphs recorded before still send gradients to the old one."""
    check_inplace(self)
    if source is None:
        self._data = np.empty(0, self._data.dtype)
    else:
        source = require_tensor("set_", "source", 1, source)
        if source._data.dtype != self._data.dtype:
            raise RuntimeError(
                f"Could not set tensor of type {source.dtype.scalar_name} to a tensor of type {self.dtype.scalar_name}"
            )
        self._data = source._data
    self._accumulator = None
    bump_version(self)
    note_metadata_change(self)
    return self


def resize_as_(self: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    return resize_(self, tuple(require_tensor("resize_as_", "the_template", 1, the_template).shape))


# -- fill_diagonal_ -----------------------------------------------------------------------------------------------
def fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Fill the main diagonal (all indices equal) through diagonal views, as PyTorch does (a CopySlices node). With
    wrap, a tall matrix's diagonal starts again every width + 1 rows."""
    value = _as_number(fill_value)
    if not isinstance(value, (bool, int, float)):
        raise TypeError(f"fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not {type(value).__name__}")
    shape = self.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    main = self
    while main.ndim > 1:
        main = diagonal(main, 0, 0, main.ndim - 1)
    main.fill_(value)
    height, width = shape[0], shape[1]
    if wrap and len(shape) == 2 and height > width + 1:
        for start in range(width + 1, height, width + 1):
            diagonal(self[start:start + width]).fill_(value)
    return self


# -- Python callbacks ---------------------------------------------------------------------------------------------
def _number(value: Any) -> Any:
    if not isinstance(value, (bool, int, float, np.number, np.bool_)):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    return value


def _refuse_grad(op: str, *tensors: Tensor) -> None:
    if any(x._requires_grad for x in tensors):
        raise RuntimeError(f"Can't call {op}() on Variable that requires grad. Use var.detach().{op}() instead.")


def _write_back(self: Tensor, values: list[Any]) -> Tensor:
    # PyTorch writes through the tensor's own pointer: no version bump. Floats cast to an integer tensor truncate.
    np.copyto(self._data, np.asarray(values, dtype=object).reshape(self._data.shape), casting="unsafe")
    return self


def apply_(self: Tensor, callable: Callable[[Any], Any]) -> Tensor:
    """self[i] = callable(self[i]) for every element, as Python numbers."""
    _refuse_grad("apply_", self)
    return _write_back(self, [_number(callable(x)) for x in self._data.ravel().tolist()])


def map_(self: Tensor, tensor: Tensor, callable: Callable[[Any, Any], Any]) -> Tensor:
    """self[i] = callable(self[i], tensor[i]) for every element, tensor broadcast to self's shape."""
    require_tensor("map_", "other", 1, tensor)
    _refuse_grad("map_", self, tensor)
    if tensor.dtype is not self.dtype:
        raise TypeError(f"map_: expected {type_name(self.dtype)} for 'other' (got {type_name(tensor.dtype)})")
    others = expand(tensor, self.shape)._data.ravel().tolist()
    return _write_back(self, [_number(callable(x, y)) for x, y in zip(self._data.ravel().tolist(), others, strict=True)])


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {"resize_as_": resize_as_}
METHODS: dict[str, Callable[..., Any]] = {
    "t_": t_, "transpose_": transpose_, "swapaxes_": transpose_, "swapdims_": transpose_, "squeeze_": squeeze_,
    "unsqueeze_": unsqueeze_, "as_strided_": as_strided_, "resize_": resize_, "resize_as_": resize_as_, "fill_diagonal_": fill_diagonal_,
    "apply_": apply_, "map_": map_, "set_": set_,
}
INPLACE: tuple[str, ...] = ()
