"""Every built-in op, and the one table that turns them into Tensor methods and operators."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..autograd.inplace import apply_inplace, copy_
from ..tensor import Tensor
from . import creation, elementwise, indexing, inplace_ops, linalg, reduction, shape
from .creation import *
from .elementwise import *
from .indexing import gather, getitem, index_put
from .linalg import bmm, dot, matmul, mm, mv
from .reduction import argmax, argmin, max, mean, min, sum
from .shape import *

# Tensor method name -> function taking the tensor first.
METHODS: dict[str, Callable[..., Any]] = {
    name: fn
    for module, names in (
        (elementwise, "add sub mul div floor_divide remainder neg pow exp log sqrt reciprocal sin cos tanh sigmoid abs sign "
                      "relu clamp maximum minimum eq ne lt le gt ge bitwise_and bitwise_or bitwise_xor bitwise_not "
                      "logical_not isnan isfinite"),
        (reduction, "sum mean max min argmax argmin"),
        (shape, "view reshape view_as reshape_as flatten contiguous clone transpose t permute expand expand_as "
                "broadcast_to unsqueeze squeeze sum_to_size narrow select"),
        (linalg, "matmul mm bmm dot mv"),
        (indexing, "gather index_put"),
    )
    for name in names.split()
    for fn in (getattr(module, name),)
}
METHODS.update(
    clip=elementwise.clamp, negative=elementwise.neg, multiply=elementwise.mul, subtract=elementwise.sub,
    divide=elementwise.div, true_divide=elementwise.div, absolute=elementwise.abs, swapaxes=shape.transpose,
    rsub=elementwise.rsub, where=lambda self, condition, other: elementwise.where(condition, self, other),
)

# In-place variants: name_ -> the out-of-place function whose result is written back.
INPLACE: dict[str, Callable[..., Any]] = {
    f"{name}_": METHODS[name]
    for name in ["add", "sub", "mul", "div", "floor_divide", "remainder", "neg", "pow", "exp", "log", "sqrt", "reciprocal", "sin", "cos", "tanh", "sigmoid", "abs", "sign", "relu", "clamp", "clip"]
}
INPLACE["index_put_"] = indexing.index_put


def _inplace_method(fn: Callable[..., Any]) -> Callable[..., Tensor]:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return apply_inplace(self, lambda x: fn(x, *args, **kwargs))

    method.__name__ = f"{fn.__name__}_"
    return method


def _zero_(self: Tensor) -> Tensor:
    return apply_inplace(self, inplace_ops.zeroed, any_cast=True)


def _fill_(self: Tensor, value: Any) -> Tensor:
    return apply_inplace(self, lambda x: inplace_ops.filled(x, value), any_cast=True)


def _reflected(fn: Callable[..., Any]) -> Callable[..., Any]:
    def method(self: Tensor, other: Any) -> Any:
        return fn(other, self)

    return method


# Commutative ops keep the tensor first when reflected, as PyTorch records `2 * x` as x.mul(2).
OPERATORS: dict[str, Callable[..., Any]] = {
    "__add__": elementwise.add, "__radd__": elementwise.add,
    "__sub__": elementwise.sub, "__rsub__": elementwise.rsub,
    "__mul__": elementwise.mul, "__rmul__": elementwise.mul,
    "__truediv__": elementwise.div, "__rtruediv__": elementwise.rdiv,
    "__floordiv__": elementwise.floor_divide, "__rfloordiv__": _reflected(elementwise.floor_divide),
    "__mod__": elementwise.remainder, "__rmod__": _reflected(elementwise.remainder),
    "__pow__": elementwise.pow, "__rpow__": _reflected(elementwise.pow),
    "__matmul__": linalg.matmul, "__rmatmul__": _reflected(linalg.matmul),
    "__neg__": elementwise.neg, "__pos__": lambda self: self, "__abs__": elementwise.abs,
    "__eq__": elementwise.eq, "__ne__": elementwise.ne, "__lt__": elementwise.lt, "__le__": elementwise.le,
    "__gt__": elementwise.gt, "__ge__": elementwise.ge,
    "__and__": elementwise.bitwise_and, "__or__": elementwise.bitwise_or, "__xor__": elementwise.bitwise_xor,
    "__rand__": elementwise.bitwise_and, "__ror__": elementwise.bitwise_or,
    "__invert__": elementwise.bitwise_not,
    "__getitem__": indexing.getitem, "__setitem__": indexing.setitem,
    "__iadd__": _inplace_method(elementwise.add), "__isub__": _inplace_method(elementwise.sub),
    "__imul__": _inplace_method(elementwise.mul), "__itruediv__": _inplace_method(elementwise.div),
    "__ifloordiv__": _inplace_method(elementwise.floor_divide), "__imod__": _inplace_method(elementwise.remainder),
    "__ipow__": _inplace_method(elementwise.pow),
}


def install_tensor_methods() -> None:
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    for name, fn in INPLACE.items():
        setattr(Tensor, name, _inplace_method(fn))
    for name, fn in OPERATORS.items():
        setattr(Tensor, name, fn)
    Tensor.copy_ = copy_  # type: ignore[attr-defined]
    Tensor.zero_ = _zero_  # type: ignore[attr-defined]
    Tensor.fill_ = _fill_  # type: ignore[attr-defined]
    Tensor.T = property(lambda self: shape.permute(self, tuple(reversed(range(self.ndim)))))  # type: ignore[attr-defined]
    Tensor.mT = property(shape.mT)  # type: ignore[attr-defined]


install_tensor_methods()
