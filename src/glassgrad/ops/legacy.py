"""Legacy constructors: `Tensor(*sizes)`, `Tensor(data)`, `Tensor(other)`, the typed classes (`FloatTensor`,
`LongTensor`, ...), `Tensor.new` and `Tensor.type`.

As in PyTorch, the typed classes are not subclasses of Tensor. Each is an instance of a metaclass whose
isinstance check compares dtypes (`isinstance(t, FloatTensor)` is `t.dtype == float32`, for Parameters too)
and whose call is the legacy constructor of that dtype. glassgrad.Tensor stays the one tensor class: its
`__new__` is the legacy constructor of the default dtype, and `Tensor._wrap`, which every op takes, bypasses it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dtype
from .._dtype import dtype
from ..autograd.graph import type_name
from ..tensor import Size, Tensor, device
from .creation import as_tensor, empty, tensor

_SIGNATURES = "(*, device), (Tensor other), (tuple of ints size, *, device) or (object data, *, device)"


class TensorType(type):
    """torch.tensortype: the class of FloatTensor, LongTensor, ..."""

    dtype: dtype
    is_cuda = False
    is_sparse = False

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, Tensor) and obj._data.dtype == cls.dtype.np

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:  # type: ignore[override]
        return legacy_new(cls.dtype, args, kwargs)


TYPED: dict[dtype, TensorType] = {
    d: TensorType(f"{d.scalar_name}Tensor", (), {"dtype": d, "__module__": "glassgrad", "__slots__": ()})
    for d in _dtype.ALL_DTYPES
    if not d.is_complex  # PyTorch 2.13 names complex tensors' types but has no ComplexFloatTensor class
}
_BY_TYPE_NAME = {type_name(d): d for d in _dtype.ALL_DTYPES}  # "torch.FloatTensor", as Tensor.type() names them


def _is_size(x: object) -> bool:
    """What PyTorch's parser takes as one dimension of a size: an integer (not a bool), 0-d integer arrays too."""
    if isinstance(x, np.ndarray):
        return x.ndim == 0 and x.dtype.kind in "iu"
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _check_device(where: Any) -> None:
    if where is not None and str(where).partition(":")[0] != "cpu":
        raise RuntimeError(
            f"legacy constructor expects device type: cpu but device type: {str(where).partition(':')[0]} was passed"
        )


def legacy_new(typed: dtype | None, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Tensor:
    """`Tensor(...)` (typed None: the default dtype, and `Tensor(other)` of any dtype) or `<Typed>Tensor(...)`.

    PyTorch's signatures: (), (Tensor other), (tuple of ints size) and (object data), each with a keyword
    `device` that must say cpu; `size=`, `data=` and `other=` are the keyword forms.
    """
    target = _dtype.get_default_dtype() if typed is None else typed
    if not kwargs and args and all(type(a) is int and a >= 0 for a in args):  # the common Tensor(40, 1)
        return Tensor._wrap(np.empty(args, dtype=target.np))
    _check_device(kwargs.pop("device", None))
    named = [(name, kwargs.pop(name)) for name in ("size", "other", "data") if name in kwargs]
    if kwargs or (named and args) or len(named) > 1:
        got = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of: {_SIGNATURES}")
    if named:
        name, value = named[0]
        return _from_sizes(target, tuple(value)) if name == "size" else _from_object(typed, target, value)
    if len(args) == 1 and not _is_size(args[0]):
        return _from_sizes(target, args[0]) if isinstance(args[0], Size) else _from_object(typed, target, args[0])
    return _from_sizes(target, args or (0,))


def _from_sizes(target: dtype, sizes: tuple[Any, ...]) -> Tensor:
    for position, size in enumerate(sizes, 1):
        if not _is_size(size):
            raise TypeError(
                f"new(): argument 'size' failed to unpack the object at pos {position} with error \"type must be tuple "
                f"of ints,but got {type(size).__name__}\""
            )
    return empty(*(int(s) for s in sizes), dtype=target)


def _from_object(typed: dtype | None, target: dtype, data: Any) -> Tensor:
    if isinstance(data, Tensor):
        if typed is not None and data.dtype is not typed:
            raise TypeError(
                f"expected TensorOptions(dtype={_dtype.CPP_NAMES[typed]}) (got TensorOptions(dtype="
                f"{_dtype.CPP_NAMES[data.dtype]})): {TYPED[typed].__name__}(other) shares other's memory, so other must "
                f"already be {typed}; convert it with other.to({typed})"
            )
        return data[...]  # an alias: same storage and version counter, and AliasBackward0 when it requires grad
    if isinstance(data, np.ndarray):
        return as_tensor(data, dtype=target)  # shares the array's memory when the dtype already matches
    if isinstance(data, (list, tuple, range, str)):
        return tensor(data, dtype=target)
    raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")


def new(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """`t.new(...)`: the legacy constructor of t's dtype."""
    return legacy_new(input.dtype, args, kwargs)


def type_(input: Tensor, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
    """`t.type()` names t's legacy class ('torch.FloatTensor'); `t.type(FloatTensor or 'torch.FloatTensor' or a
    dtype)` converts, returning t itself when nothing changes."""
    if dtype is None:
        return type_name(input.dtype)
    target = _type_target(dtype)
    return input if target is input.dtype else input.to(target)


def type_as(input: Tensor, other: Tensor) -> Tensor:
    """`t.type_as(other)`: t in other's dtype (t itself when it already is)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"type_as(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    return input.to(other.dtype)


def _type_target(spec: Any) -> dtype:
    if isinstance(spec, TensorType):
        return spec.dtype
    if spec is Tensor:
        return _dtype.get_default_dtype()
    if isinstance(spec, dtype):
        return spec
    if isinstance(spec, str):
        if spec in _BY_TYPE_NAME:
            return _BY_TYPE_NAME[spec]
        if spec.startswith("torch.cuda."):
            device("cuda")  # raises glassgrad's CPU-only error
        raise ValueError(f"invalid type: '{spec}' (expected a legacy type name such as 'torch.FloatTensor', or a dtype)")
    if isinstance(spec, type):
        raise ValueError(f"invalid type: '{spec.__name__}' (expected FloatTensor & co, a legacy type name or a dtype)")
    raise TypeError("dtype must be a type, str, or dtype object")


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Any] = {cls.__name__: cls for cls in TYPED.values()}
METHODS = {"new": new, "type": type_, "type_as": type_as}
INPLACE = ()
