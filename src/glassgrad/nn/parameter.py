"""Parameter and Buffer: tensors that a Module registers when they are assigned as attributes."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor


def _alias_into(cls: type[Tensor], data: Tensor | None) -> Any:
    """A `cls` instance over data's array and version counter, as PyTorch's _make_subclass does (no copy)."""
    if data is None:
        data = Tensor._wrap(np.empty(0, dtype=np.float32))
    if not isinstance(data, Tensor):
        raise TypeError(f"expected a Tensor as data, but got {type(data).__name__}")
    obj = object.__new__(cls)
    obj._init(data._data)
    obj._version_counter = data._version_counter
    return obj


class Parameter(Tensor):
    """A leaf tensor that requires grad by default and that Module.__setattr__ registers as a parameter."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        param = _alias_into(cls, data)
        param.requires_grad_(requires_grad)
        return param

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        copy = Parameter(Tensor._wrap(self._data.copy()), self._requires_grad)
        if self._grad is not None:
            copy._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = copy
        return copy

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild_parameter, (self._data, self._requires_grad))


def _rebuild_parameter(array: np.ndarray, requires_grad: bool) -> Parameter:
    """Unpickling target for Parameter.__reduce_ex__ (plain pickle and copy; glassgrad.save stores tensors itself)."""
    return Parameter(Tensor._wrap(np.array(array)), requires_grad)


class Buffer(Tensor):
    """Marks a tensor to be registered as a buffer when assigned to a Module attribute (`persistent` as in register_buffer)."""

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Buffer:
        buffer = _alias_into(cls, data)
        buffer.persistent = persistent
        return buffer

