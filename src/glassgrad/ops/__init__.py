"""Every built-in op. Each family module declares three tables, collected here:

- FUNCTIONS: public functions of the family's NAMESPACE ("glassgrad" unless the module says
  otherwise, e.g. "glassgrad.nn.functional" or "glassgrad.linalg"),
- METHODS:   `Tensor.<name>` (the tensor comes first),
- INPLACE:   method names that also get an in-place `Tensor.<name>_`,
and optionally ALSO: {namespace: {name: function}} for functions PyTorch has in a second namespace,
INPLACE_FUNCTIONS: names among INPLACE whose in-place form PyTorch also has as a function (torch.relu_),
INPLACE_KERNELS: {name: function} for names among INPLACE whose in-place form computes something other than the
method (an in-place comparison keeps the tensor's dtype and records a node), and
PROPERTIES: {name: getter} for `Tensor.<name>` attributes that are ops (Tensor.real, Tensor.H).

REGISTRY is their union, keyed by public name; the test-suite enumerates it so that no op
escapes testing. Adding an op is: its function (and derivative entry) in a family module,
and its name in that module's tables.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd.inplace import apply_inplace
from ..tensor import Tensor
from . import (
    activations,
    attention,
    binary,
    complex_ops,
    convolution,
    creation,
    ctc,
    distance,
    draws,
    elementwise,
    embedding,
    fft,
    grid_sampling,
    histograms,
    householder,
    indexing,
    inplace_methods,
    inplace_ops,
    interchange,
    legacy,
    linalg,
    linalg_decomp,
    linalg_derived,
    linalg_eig,
    linalg_lu,
    linear_cross_entropy,
    logic,
    losses,
    lowrank,
    margin_losses,
    matrix_functions,
    normalization,
    numeric,
    polynomials,
    pooling,
    products,
    quantized,
    reduction,
    resampling,
    sampling,
    scans,
    scatters,
    segments,
    shape,
    sorting,
    special,
    spectral,
    stacking,
    statistics,
    strided,
    subscript,
)
from .table import refuse_forward_ad

FAMILIES = (
    creation, elementwise, binary, numeric, logic, reduction, scans, sorting, shape, stacking, strided, scatters,
    indexing, linalg, linalg_decomp, linalg_lu, linalg_derived, linalg_eig, matrix_functions, activations, losses,
    margin_losses, ctc, convolution, embedding, pooling, resampling, grid_sampling, normalization, distance,
    attention, complex_ops, fft, special, polynomials, spectral, draws, legacy, sampling, statistics, histograms,
    products, householder, lowrank, quantized, inplace_methods, interchange, linear_cross_entropy, segments,
)

NAMESPACES: dict[str, dict[str, Callable[..., Any]]] = {
    "glassgrad": {}, "glassgrad.linalg": {}, "glassgrad.nn.functional": {},
}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: dict[str, Callable[..., Any]] = {}
PROPERTIES: dict[str, Callable[[Tensor], Any]] = {}
for _family in FAMILIES:
    NAMESPACES.setdefault(getattr(_family, "NAMESPACE", "glassgrad"), {}).update(_family.FUNCTIONS)
    for _namespace, _functions in getattr(_family, "ALSO", {}).items():  # e.g. torch.softmax beside F.softmax
        NAMESPACES[_namespace].update(_functions)
    METHODS.update(_family.METHODS)
    _kernels = getattr(_family, "INPLACE_KERNELS", {})
    INPLACE.update({f"{name}_": _kernels.get(name, _family.METHODS[name]) for name in _family.INPLACE})
    PROPERTIES.update(getattr(_family, "PROPERTIES", {}))


# Arithmetic whose in-place form can write straight into the tensor when there is no graph to record
# (an optimizer's `p -= lr * g`): no temporary, no copy back.
_UFUNCS = {elementwise.add: np.add, elementwise.sub: np.subtract, elementwise.mul: np.multiply, elementwise.div: np.true_divide}


# In-place forms PyTorch 2.13 has no forward-AD rule for, though their out-of-place forms have one.
_NO_FORWARD_AD_INPLACE = frozenset({"asinh", "acosh", "atanh"})


def _inplace_method(fn: Callable[..., Any]) -> Callable[..., Tensor]:
    ufunc = _UFUNCS.get(fn)
    refused = fn.__name__ in _NO_FORWARD_AD_INPLACE

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if refused:
            refuse_forward_ad(f"{fn.__name__}_", self)
        if ufunc is not None and len(args) == 1 and not kwargs and inplace_ops.ufunc_inplace(self, ufunc, args[0]):
            return self
        return apply_inplace(self, lambda x: fn(x, *args, **kwargs))

    method.__name__ = f"{fn.__name__}_"
    method.inplace_of = fn  # type: ignore[attr-defined]  # vmap batches it by fn's rule
    return method


def _copy_(self: Tensor, src: Tensor | float, non_blocking: bool = False) -> Tensor:
    return apply_inplace(self, lambda x: inplace_ops.copy_from(x, src), any_cast=True)


def _zero_(self: Tensor) -> Tensor:
    return apply_inplace(self, inplace_ops.zeroed, any_cast=True)


def _fill_(self: Tensor, value: Any) -> Tensor:
    return apply_inplace(self, lambda x: inplace_ops.filled(x, value), any_cast=True)


def _reflected(fn: Callable[..., Any]) -> Callable[..., Any]:
    def method(self: Tensor, other: Any) -> Any:
        return fn(other, self)

    method.reflects = fn  # type: ignore[attr-defined]  # vmap batches it by fn's rule
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
    "__neg__": elementwise.neg, "__pos__": numeric.positive, "__abs__": elementwise.abs,
    "__eq__": logic.eq, "__ne__": logic.ne, "__lt__": logic.lt, "__le__": logic.le, "__gt__": logic.gt, "__ge__": logic.ge,
    "__and__": logic.bitwise_and, "__or__": logic.bitwise_or, "__xor__": logic.bitwise_xor,
    "__rand__": logic.bitwise_and, "__ror__": logic.bitwise_or, "__rxor__": logic.bitwise_xor,
    "__lshift__": logic.bitwise_left_shift, "__rshift__": logic.bitwise_right_shift,
    "__rlshift__": _reflected(logic.bitwise_left_shift), "__rrshift__": _reflected(logic.bitwise_right_shift),
    "__invert__": logic.bitwise_not,
    "__getitem__": subscript.getitem, "__setitem__": subscript.setitem,
    "__iadd__": _inplace_method(elementwise.add), "__isub__": _inplace_method(elementwise.sub),
    "__imul__": _inplace_method(elementwise.mul), "__itruediv__": _inplace_method(elementwise.div),
    "__ifloordiv__": _inplace_method(elementwise.floor_divide), "__imod__": _inplace_method(elementwise.remainder),
    "__ipow__": _inplace_method(elementwise.pow),
    "__iand__": _inplace_method(logic.bitwise_and), "__ior__": _inplace_method(logic.bitwise_or),
    "__ixor__": _inplace_method(logic.bitwise_xor), "__ilshift__": _inplace_method(logic.bitwise_left_shift),
    "__irshift__": _inplace_method(logic.bitwise_right_shift),
}
METHODS.update(copy_=_copy_, zero_=_zero_, fill_=_fill_)

# One wrapper per in-place op: `Tensor.relu_` and, where PyTorch has it, `glassgrad.relu_` are the same function.
INPLACE_METHODS = {name: _inplace_method(fn) for name, fn in INPLACE.items()}
for _family in FAMILIES:
    NAMESPACES["glassgrad"].update({f"{name}_": INPLACE_METHODS[f"{name}_"] for name in getattr(_family, "INPLACE_FUNCTIONS", ())})

FUNCTIONS = NAMESPACES["glassgrad"]
REGISTRY: dict[str, Callable[..., Any]] = {
    **{f"{space}.{name}": fn for space, functions in NAMESPACES.items() for name, fn in functions.items()},
    **{f"Tensor.{name}": fn for name, fn in METHODS.items()},
    **{f"Tensor.{name}": fn for name, fn in INPLACE.items()},
    **{f"Tensor.{name}": fn for name, fn in PROPERTIES.items()},
}


def install_tensor_methods() -> None:
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    for name, fn in INPLACE_METHODS.items():
        setattr(Tensor, name, fn)
    for name, fn in OPERATORS.items():
        setattr(Tensor, name, fn)
    for name, fn in PROPERTIES.items():
        setattr(Tensor, name, property(fn))
    Tensor._legacy_new = staticmethod(legacy.legacy_new)  # type: ignore[assignment]
    Tensor.T = property(lambda self: shape.permute(self, tuple(reversed(range(self.ndim)))))  # type: ignore[attr-defined]
    Tensor.mT = property(shape.mT)  # type: ignore[attr-defined]


install_tensor_methods()


def load_library(path: str) -> None:
    """torch.ops.load_library. glassgrad runs no C++ operators, so it loads no library: a path that does not exist
    raises PyTorch's OSError (libraries that try optional kernels catch it), one that exists is refused."""
    import os

    if not os.path.exists(path):
        raise OSError(f"Could not load this library: {os.path.realpath(path)}")
    raise NotImplementedError(f"glassgrad cannot load the C++ operators of {path}: it runs no C++ operators")


def __getattr__(name: str) -> object:
    """torch.ops.<namespace>: the operators torch.library.custom_op registered there, torch.ops.aten (glassgrad's own
    ops, as dispatch modes see them) and torch.ops.profiler."""
    if name == "aten":
        from .._aten import aten

        return aten
    if name == "profiler":
        from ..autograd.profiler import ops

        return ops
    from ..library import namespace

    return namespace(name)
