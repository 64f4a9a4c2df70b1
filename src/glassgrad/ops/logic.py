"""Comparisons, logical and bitwise ops, shifts and value predicates: bool or integer results, never differentiable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from .._dtype import result_type
from ..tensor import Tensor

# isnan is defined in elementwise and only registered here: reduction.py imports it from there.
from .elementwise import Kernel, Operand, _cast, _run, _zero, not_implemented_for, refuse_barebones, require_tensor
from .table import derivative


def _compare(name: str, kernel: Kernel, ordering: bool = True) -> Callable[[Tensor, Operand], Tensor]:
    """`ordering`: lt, le, gt, ge (which PyTorch has no uint16/32/64 kernels for), not eq and ne."""

    def op(input: Tensor, other: Operand) -> Tensor:
        require_tensor(name, "input", 1, input)
        if ordering:
            refuse_barebones(f"{name}_cpu", input, other)
        common = result_type(input, other)
        b = other._data if isinstance(other, Tensor) else np.asarray(other)
        return Tensor._wrap(_run(kernel, _cast(input._data, common), _cast(b, common)))

    op.__name__ = op.__qualname__ = name
    return op


def _logical(name: str, kernel: Kernel) -> Callable[[Tensor, Tensor], Tensor]:
    def op(input: Tensor, other: Tensor) -> Tensor:
        require_tensor(name, "input", 1, input)
        return Tensor._wrap(_run(kernel, input._data, require_tensor(name, "other", 2, other)._data))

    op.__name__ = op.__qualname__ = name
    return op


def _bitwise(name: str, kernel: Kernel, kernel_name: str, bools: bool = True) -> Callable[[Operand, Operand], Tensor]:
    """`bools`: whether bool operands are accepted (PyTorch's shifts refuse them, and uint16/32/64 too)."""

    def op(input: Operand, other: Operand) -> Tensor:
        common = result_type(input, other)
        if common.is_floating_point or (not bools and (common is _dtype.bool_ or common in _dtype.BAREBONES)):
            raise not_implemented_for(kernel_name, common)
        a, b = (_cast(np.asarray(x._data if isinstance(x, Tensor) else x), common) for x in (input, other))
        return Tensor._wrap(_cast(_run(kernel, a, b), common))

    op.__name__ = op.__qualname__ = name
    return op


def _shift(np_shift: Kernel) -> Kernel:
    """Shifts by the width or more (or by a negative amount) fill with the sign, as PyTorch's kernels do."""

    def kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        bits = a.dtype.itemsize * 8
        wide = (b < 0) | (b >= bits)
        fill = np.where(a < 0, -1, 0) if np_shift is np.right_shift else np.zeros_like(a)
        return np.where(wide, fill, np_shift(a, np.where(wide, 0, b)))

    return kernel


eq = _compare("eq", np.equal, ordering=False)
ne = _compare("ne", np.not_equal, ordering=False)
lt = _compare("lt", np.less)
le = _compare("le", np.less_equal)
gt = _compare("gt", np.greater)
ge = _compare("ge", np.greater_equal)
logical_and = _logical("logical_and", np.logical_and)
logical_or = _logical("logical_or", np.logical_or)
logical_xor = _logical("logical_xor", np.logical_xor)
bitwise_and = _bitwise("bitwise_and", np.bitwise_and, "bitwise_and_cpu")
bitwise_or = _bitwise("bitwise_or", np.bitwise_or, "bitwise_or_cpu")
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor, "bitwise_xor_cpu")
bitwise_left_shift = _bitwise("bitwise_left_shift", _shift(np.left_shift), "lshift_cpu", bools=False)
bitwise_right_shift = _bitwise("bitwise_right_shift", _shift(np.right_shift), "rshift_cpu", bools=False)


def _integer_binary(name: str, kernel: Kernel) -> Callable[[Tensor, Tensor], Tensor]:
    """gcd and lcm: the bitwise ops' dtype rules without bools, on two tensors only."""
    op = _bitwise(name, kernel, f"{name}_cpu", bools=False)

    def checked(input: Tensor, other: Tensor) -> Tensor:
        require_tensor(name, "input", 1, input)
        return op(input, require_tensor(name, "other", 2, other))

    checked.__name__ = checked.__qualname__ = name
    return checked


gcd = _integer_binary("gcd", np.gcd)
lcm = _integer_binary("lcm", np.lcm)


def _compare_in_place(compare: Callable[[Tensor, Operand], Tensor]) -> Callable[[Tensor, Operand], Tensor]:
    """What `Tensor.eq_` (and the other in-place comparisons) computes: the comparison in the tensor's own dtype.

    Written into a float tensor, PyTorch records it with a zero gradient (EqBackward0 for a number, EqBackward1
    for a tensor), where the out-of-place comparison's bool result ends the graph.
    """
    stem = compare.__name__.capitalize()
    by_number = derivative(f"{stem}Backward0", ("self",), self=_zero)
    by_tensor = derivative(f"{stem}Backward1", ("self", "other"), self=_zero, other=_zero)

    def kernel(input: Tensor, other: Operand) -> Tensor:
        out = compare(input, other)._data.astype(input._data.dtype)
        if isinstance(other, Tensor):
            return by_tensor.record(out, (input, other))
        return by_number.record(out, (input,))

    kernel.__name__ = kernel.__qualname__ = compare.__name__
    return kernel


def isin(elements: Operand, test_elements: Operand, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each element is among test_elements, compared after type promotion (NaN is in nothing)."""
    tensors = [x for x in (elements, test_elements) if isinstance(x, Tensor)]
    if not tensors:
        raise TypeError(
            f"isin() received an invalid combination of arguments - got ({type(elements).__name__}, "
            f"{type(test_elements).__name__}), but expected one of: (Tensor elements, Tensor test_elements), "
            "(Number element, Tensor test_elements), (Tensor elements, Number test_element)"
        )
    if any(t.dtype is _dtype.bool_ for t in tensors):
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    common = result_type(elements, test_elements)
    a, b = (_cast(np.asarray(x._data if isinstance(x, Tensor) else x), common) for x in (elements, test_elements))
    return Tensor._wrap(np.asarray(np.isin(a, b, assume_unique=assume_unique, invert=invert)))


# -- predicates ------------------------------------------------------------------------------
def _predicate(name: str, kernel: Kernel) -> Callable[[Tensor], Tensor]:
    def op(input: Tensor) -> Tensor:
        return Tensor._wrap(np.asarray(kernel(require_tensor(name, "input", 1, input)._data)))

    op.__name__ = op.__qualname__ = name
    return op


isnan = _predicate("isnan", np.isnan)
logical_not = _predicate("logical_not", np.logical_not)
isinf = _predicate("isinf", np.isinf)
isfinite = _predicate("isfinite", np.isfinite)
isposinf = _predicate("isposinf", np.isposinf)
isneginf = _predicate("isneginf", np.isneginf)
signbit = _predicate("signbit", np.signbit)


def bitwise_not(input: Tensor) -> Tensor:
    if require_tensor("bitwise_not", "input", 1, input).dtype.is_floating_point or input.dtype in _dtype.BAREBONES:
        raise not_implemented_for("bitwise_not_cpu", input.dtype)
    return Tensor._wrap(np.invert(input._data))


# -- closeness and equality --------------------------------------------------------------------
def _float_argument(op: str, name: str, value: object) -> float:
    if isinstance(value, Tensor) and value.numel() == 1:
        value = value.item()
    if not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{op}(): argument '{name}' must be float, not {type(value).__name__}")
    return float(value)


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other|, elementwise, or equal (infinities included).

    As in PyTorch: both tensors must have one dtype (no promotion), integer and bool tensors are compared in
    the default float dtype, and float16 rounds each step from float32 arithmetic, as its CPU kernels do.
    """
    return _isclose("isclose", input, other, rtol, atol, equal_nan)


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    return bool(_isclose("allclose", input, other, rtol, atol, equal_nan)._data.all())


def _isclose(op: str, input: Tensor, other: Tensor, rtol: object, atol: object, equal_nan: object) -> Tensor:
    require_tensor(op, "input", 1, input)
    require_tensor(op, "other", 2, other)
    if not isinstance(equal_nan, bool):
        raise TypeError(f"{op}(): argument 'equal_nan' must be bool, not {type(equal_nan).__name__}")
    rtol, atol = _float_argument(op, "rtol", rtol), _float_argument(op, "atol", atol)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype.scalar_name} did not match {other.dtype.scalar_name}")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if not value >= 0:  # NaN fails too, as in PyTorch
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {value:g}")
    exact = (input.dtype if input.dtype.is_floating_point else _dtype.get_default_dtype()).np
    arithmetic = np.dtype(np.float32) if exact == np.float16 else exact

    def rounded(x: np.ndarray) -> np.ndarray:
        return x.astype(exact, copy=False).astype(arithmetic, copy=False)

    def kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        close = a == b
        if equal_nan and input.dtype.is_floating_point:
            close |= np.isnan(a) & np.isnan(b)
        if rtol == 0 and atol == 0:
            return close
        a, b = rounded(a), rounded(b)
        allowed = rounded(arithmetic.type(atol) + np.abs(rounded(arithmetic.type(rtol) * b)))
        actual = np.abs(rounded(a - b))
        return close | (np.isfinite(actual) & (actual <= allowed))

    return Tensor._wrap(_run(kernel, input._data, other._data))


def equal(input: Tensor, other: Tensor) -> bool:
    """Same shape and the same values after type promotion (NaN equals nothing)."""
    require_tensor("equal", "input", 1, input)
    require_tensor("equal", "other", 2, other)
    if input.shape != other.shape:
        return False
    common = _dtype.promote_types(input.dtype, other.dtype)
    return bool(np.array_equal(_cast(input._data, common), _cast(other._data, common)))


def _method(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Tensor.<fn>: PyTorch's message counts `other` as argument 1 of the method."""

    def method(self: Tensor, other: Tensor, *args: Any, **kwargs: Any) -> Any:
        require_tensor(fn.__name__, "other", 1, other)
        return fn(self, other, *args, **kwargs)

    method.__name__ = method.__qualname__ = fn.__name__
    return method


# -- what this module exports (collected by ops/__init__.py) --------------------------------
_BOTH: dict[str, Callable[..., Any]] = {
    "eq": eq, "ne": ne, "lt": lt, "le": le, "gt": gt, "ge": ge,
    "logical_and": logical_and, "logical_or": logical_or, "logical_xor": logical_xor, "logical_not": logical_not,
    "bitwise_and": bitwise_and, "bitwise_or": bitwise_or, "bitwise_xor": bitwise_xor, "bitwise_not": bitwise_not,
    "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift, "gcd": gcd, "lcm": lcm,
    "isnan": isnan, "isinf": isinf, "isfinite": isfinite, "isposinf": isposinf, "isneginf": isneginf, "signbit": signbit,
    # PyTorch's aliases
    "greater": gt, "greater_equal": ge, "less": lt, "less_equal": le, "not_equal": ne,
}
_CLOSENESS = (isclose, allclose, equal)
FUNCTIONS: dict[str, Callable[..., Any]] = {**_BOTH, **{fn.__name__: fn for fn in _CLOSENESS}, "isin": isin}
METHODS: dict[str, Callable[..., Any]] = {**_BOTH, **{fn.__name__: _method(fn) for fn in _CLOSENESS}}
_COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal")
# The logical ones write their bool result back and leave the tensor's history as it was, as PyTorch's do.
INPLACE: tuple[str, ...] = (
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm",
    "logical_and", "logical_or", "logical_xor", "logical_not", *_COMPARISONS,
)
_IN_PLACE_COMPARISONS = {fn: _compare_in_place(fn) for fn in (eq, ne, lt, le, gt, ge)}
INPLACE_KERNELS: dict[str, Callable[..., Any]] = {name: _IN_PLACE_COMPARISONS[_BOTH[name]] for name in _COMPARISONS}
