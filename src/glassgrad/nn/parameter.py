"""Parameter and Buffer: tensors that a Module registers when they are assigned as attributes; and their uninitialized
forms, the placeholders of lazy modules until a first forward gives them a shape."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor, TensorBase


def _alias_into(cls: type[Tensor], data: Tensor | None) -> Any:
    """A `cls` instance over data's array and version counter, as PyTorch's _make_subclass does (no copy)."""
    if data is None:
        data = Tensor._wrap(np.empty(0, dtype=np.float32))
    if not isinstance(data, Tensor):
        raise TypeError(f"expected a Tensor as data, but got {type(data).__name__}")
    obj = TensorBase.__new__(cls)
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



_NO_SHAPE = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in `load_state_dict` when "
    "trying to load an uninitialized parameter into an initialized one. Call `forward` to initialize the parameters before "
    "accessing their attributes."
)


class UninitializedTensorMixin:
    """A tensor with no data yet. materialize() gives it its data and turns it into cls_to_become, in place, so that a
    module holding it sees the change."""

    __slots__ = ()
    cls_to_become: type[Tensor]
    _data: np.ndarray

    def materialize(self, shape: int | tuple[int, ...], device: Any = None, dtype: Any = None) -> None:
        from ..ops.creation import empty

        self._data = empty(shape, dtype=self._data.dtype if dtype is None else dtype, device=device)._data
        self.__class__ = self.cls_to_become  # type: ignore[assignment]

    @property
    def shape(self) -> Any:
        raise RuntimeError(_NO_SHAPE)

    def to(self, *args: Any, **kwargs: Any) -> Any:
        """A placeholder of the new dtype (module.double() on a lazy module keeps it lazy, as in PyTorch)."""
        converted = super().to(*args, **kwargs)  # type: ignore[misc]
        return self if converted is self else _rebuild_uninitialized(type(self), self.requires_grad, converted._data.dtype)  # type: ignore[attr-defined]

    def detach(self) -> Any:
        # PyTorch refuses every op but a few (size, dtype conversions, copy_); detach is the one that module code meets.
        raise ValueError(
            "Attempted to use an uninitialized parameter in <method 'detach' of 'torch._C.TensorBase' objects>. This "
            "error happens when you are using a `LazyModule` or explicitly manipulating "
            f"`torch.nn.parameter.{_public_name(type(self))}` objects. When using LazyModules Call `forward` with a dummy "
            "batch to initialize the parameters before calling torch functions"
        )

    def share_memory_(self) -> Any:
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize the parameters "
            "before calling `module.share_memory()`."
        )

    def __repr__(self) -> str:
        return f"<{_public_name(type(self))}>"

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild_uninitialized, (type(self), self.requires_grad))  # type: ignore[attr-defined]

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        if id(self) not in memo:
            memo[id(self)] = _rebuild_uninitialized(type(self), self.requires_grad, self._data.dtype)  # type: ignore[attr-defined]
        return memo[id(self)]


def is_lazy(param: Any) -> bool:
    """Whether `param` is an UninitializedParameter or UninitializedBuffer (still without data)."""
    return isinstance(param, UninitializedTensorMixin)


def _empty(dtype: Any) -> Tensor:
    from ..ops.creation import empty

    return empty(0, dtype=dtype)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> UninitializedParameter:
        param = _alias_into(cls, _empty(dtype))
        param.requires_grad_(requires_grad)
        return param


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    # No instance dict, so that materialize() can turn it into a plain Tensor (glassgrad's Tensor has __slots__);
    # persistence is therefore a class attribute, and a non-persistent buffer an instance of a private subclass.
    __slots__ = ()
    cls_to_become = Tensor
    persistent = True

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None, persistent: bool = True) -> UninitializedBuffer:
        buffer = _alias_into(cls if persistent else _NonPersistentUninitializedBuffer, _empty(dtype))
        buffer.requires_grad_(requires_grad)
        return buffer


class _NonPersistentUninitializedBuffer(UninitializedBuffer):
    __slots__ = ()
    persistent = False


def _public_name(cls: type) -> str:
    return UninitializedBuffer.__name__ if cls is _NonPersistentUninitializedBuffer else cls.__name__


def _rebuild_uninitialized(cls: type[Tensor], requires_grad: bool, dtype: Any = None) -> Any:
    """A fresh placeholder of exactly `cls` (its persistence included): the target of pickle and deepcopy."""
    copy = _alias_into(cls, _empty(dtype))
    copy.requires_grad_(requires_grad)
    return copy
