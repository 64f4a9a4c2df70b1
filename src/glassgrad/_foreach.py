"""torch._foreach_<op> and torch._foreach_<op>_: one op over a list of tensors, as optimizers' foreach paths and
gradient clipping call them. PyTorch fuses the loop into one kernel; here it is the tensor method per item, so
values, gradients and in-place semantics are the method's own.

An argument that is a list or tuple as long as the tensor list goes item by item (other tensors, one scalar per
tensor); anything else (a scalar, one tensor) goes to every item.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._missing import module_getattr as _module_getattr
from .tensor import Tensor

# PyTorch's foreach ops that have both forms; copy_ and zero_ exist in place only, norm out of place only.
_BOTH = [
    "abs", "acos", "add", "addcdiv", "addcmul", "asin", "atan", "ceil", "clamp_max", "clamp_min", "cos", "cosh",
    "div", "erf", "erfc", "exp", "expm1", "floor", "frac", "lerp", "lgamma", "log", "log10", "log1p", "log2",
    "maximum", "minimum", "mul", "neg", "pow", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh",
    "sqrt", "sub", "tan", "tanh", "trunc",
]


def _items(arg: Any, count: int) -> Sequence[Any]:
    return arg if isinstance(arg, (list, tuple)) and len(arg) == count else (arg,) * count


# maximum and minimum take tensors only; PyTorch's foreach forms also take a scalar, as clamp_min and clamp_max do
_WITH_SCALAR = {"maximum": "clamp_min", "minimum": "clamp_max", "maximum_": "clamp_min_", "minimum_": "clamp_max_"}


def _foreach(method: str) -> Callable[..., Any]:
    inplace = method.endswith("_")

    def foreach(tensors: Sequence[Tensor], *args: Any, **kwargs: Any) -> tuple[Tensor, ...] | None:
        tensors = list(tensors)
        columns = [_items(arg, len(tensors)) for arg in args]
        results = []
        for i, t in enumerate(tensors):
            items = [column[i] for column in columns]
            name = _WITH_SCALAR.get(method, method) if items and not isinstance(items[0], Tensor) else method
            results.append(getattr(t, name)(*items, **kwargs))
        return None if inplace else tuple(results)

    foreach.__name__ = f"_foreach_{method}"
    return foreach


_METHODS = [*_BOTH, *(f"{name}_" for name in _BOTH), "copy_", "zero_", "norm"]
globals().update({f"_foreach_{method}": _foreach(method) for method in _METHODS})

__all__ = [f"_foreach_{method}" for method in _METHODS]
__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
