"""Dtypes and PyTorch's type-promotion rules.

PyTorch promotes in three tiers (tensors with dimensions, 0-d tensors, Python
scalars) and a lower tier only wins when it brings a higher category
(bool < integer < floating < complex). NumPy's rules differ (float16 + int64 is
float64 there, float16 here), so promotion is computed here, never by NumPy.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


class dtype:
    __slots__ = ("_category", "itemsize", "name", "np", "scalar_name")

    def __init__(self, name: str, np_dtype: type, category: int, scalar_name: str) -> None:
        self.name = name
        self.scalar_name = scalar_name  # PyTorch's C++ ScalarType, as its messages print it ("Float", "Long")
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self._category = category

    @property
    def is_floating_point(self) -> bool:
        return self._category == FLOAT

    @property
    def is_signed(self) -> bool:
        return self.name not in ("bool", "float8_e8m0fnu") and self.np.kind != "u"

    @property
    def is_complex(self) -> bool:
        return self._category == COMPLEX

    def to_real(self) -> dtype:
        return _BY_NUMPY[np.finfo(self.np).dtype] if self._category == COMPLEX else self

    def to_complex(self) -> dtype:
        if self._category == COMPLEX:
            return self
        if self is float16:  # PyTorch's ComplexHalf
            raise TypeError("glassgrad has no complex32 (ComplexHalf): compute in float32 or float64 instead")
        return _BY_NUMPY[np.result_type(self.np, np.complex64)]

    def __repr__(self) -> str:
        return f"glassgrad.{self.name}"

    def __reduce__(self) -> str:
        return "bool_" if self.name == "bool" else self.name  # pickled as this module's attribute


BOOL, INTEGER, FLOAT, COMPLEX = 0, 1, 2, 3

bool_ = dtype("bool", np.bool_, BOOL, "Bool")
uint8 = dtype("uint8", np.uint8, INTEGER, "Byte")
int8 = dtype("int8", np.int8, INTEGER, "Char")
int16 = dtype("int16", np.int16, INTEGER, "Short")
int32 = dtype("int32", np.int32, INTEGER, "Int")
int64 = dtype("int64", np.int64, INTEGER, "Long")
float16 = dtype("float16", np.float16, FLOAT, "Half")
float32 = dtype("float32", np.float32, FLOAT, "Float")
float64 = dtype("float64", np.float64, FLOAT, "Double")
complex64 = dtype("complex64", np.complex64, COMPLEX, "ComplexFloat")
complex128 = dtype("complex128", np.complex128, COMPLEX, "ComplexDouble")

# PyTorch's "barebones" unsigned types: tensors of them can be made, converted, copied, indexed and multiplied, but
# most kernels (add, comparisons, max, ...) refuse them, and they promote only with floating types.
uint16 = dtype("uint16", np.uint16, INTEGER, "UInt16")
uint32 = dtype("uint32", np.uint32, INTEGER, "UInt32")
uint64 = dtype("uint64", np.uint64, INTEGER, "UInt64")
BAREBONES = (uint16, uint32, uint64)

ALL_DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128)
_BY_NUMPY = {d.np: d for d in (*ALL_DTYPES, *BAREBONES)}
_BY_NAME = {d.name: d for d in (*ALL_DTYPES, *BAREBONES)}
_BY_NAME.update(
    half=float16, float=float32, double=float64, long=int64, int=int32, short=int16, cfloat=complex64, cdouble=complex128
)

_default_float = float32


def get_default_dtype() -> dtype:
    return _default_float


def set_default_dtype(d: dtype) -> None:
    global _default_float
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_float = d


# NumPy's kind letter for a floating array is "f"; ml_dtypes gives bfloat16 and most of the float8 family "V"
# (NumPy's letter for its own void type, which no tensor holds), float8_e5m2 "f". NumPy numbers the dtypes that
# other libraries register from 256 (NPY_USERDEF): for a tensor's array, those are ml_dtypes'. These predicates
# are the one place that knows it.
def is_floating(np_dtype: np.dtype) -> bool:
    """Whether an array of this NumPy dtype is a floating-point tensor's (bfloat16 and float8 included)."""
    kind = np_dtype.kind
    return kind == "f" or kind == "V"


def is_inexact(np_dtype: np.dtype) -> bool:
    """Floating or complex: the arrays gradients flow through and that may require grad."""
    kind = np_dtype.kind
    return kind == "f" or kind == "c" or kind == "V"


def is_low_precision(np_dtype: np.dtype) -> bool:
    """bfloat16 or a float8: arrays that PyTorch's CPU kernels compute in float32 and round back."""
    return np_dtype.num >= _USER_DEFINED


_USER_DEFINED = 256


def widened(array: np.ndarray) -> np.ndarray:
    """A bfloat16 or float8 array in float32, where PyTorch's CPU kernels compute it (rounding the result back
    once, not after every partial sum); any other array as it is."""
    return array.astype(np.float32) if is_low_precision(array.dtype) else array


def machine_limits(np_dtype: np.dtype) -> Any:
    """np.finfo of a floating NumPy dtype; ml_dtypes' own finfo for its types, which NumPy's does not know."""
    if is_low_precision(np_dtype):
        import ml_dtypes

        return ml_dtypes.finfo(np_dtype)
    return np.finfo(np_dtype)


def from_numpy_dtype(np_dtype: np.dtype) -> dtype:
    found = _BY_NUMPY.get(np_dtype)  # the hot path: an array's own dtype object
    if found is not None:
        return found
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        if getattr(np_dtype, "type", None) is not None and np_dtype.type.__module__ == "ml_dtypes":
            return low_precision(np_dtype.type.__name__)  # an ml_dtypes array made before its glassgrad dtype
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).type.__name__}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, "
            "and bool."
        ) from None


def to_dtype(spec: object) -> dtype:
    """Accept a glassgrad dtype, a NumPy dtype, a Python type or a name."""
    if isinstance(spec, dtype):
        return spec
    if spec is float:
        return float64  # PyTorch reads Python's float as double, whatever the default dtype
    if spec is int:
        return int64
    if spec is bool:
        return bool_
    if spec is complex:
        return default_complex()
    if isinstance(spec, str) and spec in _BY_NAME:
        return _BY_NAME[spec]
    if isinstance(spec, str) and spec in LOW_PRECISION:
        return low_precision(spec)
    try:
        return from_numpy_dtype(np.dtype(spec))  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{spec!r} is not a dtype glassgrad supports") from None


def promote_types(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if a in BAREBONES or b in BAREBONES:
        if a.is_floating_point or b.is_floating_point:
            return a if a.is_floating_point else b
        raise RuntimeError(
            f"Promotion for uint16, uint32, uint64 types is not supported, attempted to promote {a.scalar_name} and "
            f"{b.scalar_name}"
        )
    if (a.itemsize == 1 and a._category == FLOAT) or (b.itemsize == 1 and b._category == FLOAT):
        raise RuntimeError(
            f"Promotion for Float8 Types is not supported, attempted to promote {a.scalar_name} and {b.scalar_name}"
        )
    if a._category != b._category:
        high, low = (a, b) if a._category > b._category else (b, a)
        if high._category == COMPLEX and low._category == FLOAT and 2 * low.itemsize > high.itemsize:
            return low.to_complex()  # complex64 + float64 is complex128
        return high
    if a._category == FLOAT:
        if a.itemsize == b.itemsize:
            return float32  # bfloat16 with float16: neither holds the other
        return a if a.itemsize > b.itemsize else b
    return _BY_NUMPY[np.promote_types(a.np, b.np)]


def default_complex() -> dtype:
    """The dtype of a Python complex number: complex64 beside a float32 default, complex128 beside float64."""
    return _default_float.to_complex() if _default_float is not float16 else complex64


def _scalar_dtype(value: object) -> dtype:
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (complex, np.complexfloating)):
        return default_complex()
    return _default_float


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    if higher is None:
        return lower
    if lower is not None and lower._category == COMPLEX and higher._category < COMPLEX:
        # a complex 0-d tensor or scalar makes a float tensor complex at the tensor's own precision
        return higher.to_complex() if higher._category == FLOAT else lower
    if lower is None or higher._category >= FLOAT:
        return higher
    if higher is bool_ or lower._category == FLOAT:
        return promote_types(higher, lower)
    return higher


def result_type(*operands: object) -> dtype:
    """The dtype PyTorch gives an elementwise op over these tensors and scalars."""
    tensor_type = _tensor_type()
    if len(operands) == 2:  # the common case, decided without the tier bookkeeping
        a, b = operands
        if isinstance(a, tensor_type):
            if isinstance(b, tensor_type):
                if a._data.dtype == b._data.dtype:
                    return _BY_NUMPY[a._data.dtype]
            elif isinstance(b, float) and a._data.dtype.kind == "f":
                return _BY_NUMPY[a._data.dtype]
    dim_result = zero_result = scalar_result = None
    for x in operands:
        if isinstance(x, tensor_type):
            d = _BY_NUMPY[x._data.dtype]
            if x._data.ndim:
                dim_result = d if dim_result is None else promote_types(dim_result, d)
            else:
                zero_result = d if zero_result is None else promote_types(zero_result, d)
        elif x is not None:
            d = _scalar_dtype(x)
            scalar_result = d if scalar_result is None else promote_types(scalar_result, d)
    result = _combine(dim_result, _combine(zero_result, scalar_result))
    assert result is not None, "result_type needs at least one operand"
    return result


def _tensor_type() -> type:
    # tensor.py imports this module, so Tensor is looked up once, on first use
    global _TENSOR
    if _TENSOR is None:
        from .tensor import Tensor

        _TENSOR = Tensor
    return _TENSOR


_TENSOR: type | None = None

# The C++ type names PyTorch's messages print for a dtype ("attn_mask.dtype: long int", "to - 1 is out of bounds
# for unsigned char").
CPP_NAMES = {
    bool_: "bool", uint8: "unsigned char", int8: "signed char", int16: "short int", int32: "int", int64: "long int",
    float16: "c10::Half", float32: "float", float64: "double",
    complex64: "c10::complex<float>", complex128: "c10::complex<double>",
    uint16: "unsigned short", uint32: "unsigned int", uint64: "unsigned long",
}


# bfloat16 and the float8 family: NumPy dtypes from ml_dtypes (the library JAX uses for them), made on first use
# so that `import glassgrad` does not load it. By name: PyTorch's ScalarType name.
LOW_PRECISION = {
    "bfloat16": "BFloat16",
    "float8_e4m3fn": "Float8_e4m3fn",
    "float8_e5m2": "Float8_e5m2",
    "float8_e4m3fnuz": "Float8_e4m3fnuz",
    "float8_e5m2fnuz": "Float8_e5m2fnuz",
    "float8_e8m0fnu": "Float8_e8m0fnu",
}


def low_precision(name: str) -> dtype:
    """The dtype `name` of LOW_PRECISION, registered in this module's tables the first time it is asked for."""
    found = _BY_NAME.get(name)
    if found is not None:
        return found
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError(
            f"glassgrad's {name} needs the ml_dtypes package (pip install ml_dtypes): NumPy has no {name} of its own"
        ) from None
    made = dtype(name, getattr(ml_dtypes, name), FLOAT, LOW_PRECISION[name])
    _BY_NUMPY[made.np] = _BY_NAME[name] = made
    CPP_NAMES[made] = "c10::" + made.scalar_name
    globals()[name] = made  # pickled dtypes are looked up here by name
    return made


def __getattr__(name: str) -> dtype:
    if name in LOW_PRECISION:
        return low_precision(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _require_dtype(value: object, function: str, argument: str, position: int) -> dtype:
    if not isinstance(value, dtype):
        raise TypeError(
            f"{function}(): argument '{argument}' (position {position}) must be torch.dtype, not {type(value).__name__}"
        )
    return value


def can_cast(from_: dtype, to: dtype) -> bool:
    """Whether PyTorch's in-place ops and out= arguments may write a `from_` result into a `to` tensor: never
    from a higher category (complex > floating > integer > bool) to a lower one."""
    source = _require_dtype(from_, "can_cast", "from_", 1)
    target = _require_dtype(to, "can_cast", "to", 2)
    return source._category <= target._category


class finfo:
    """Machine limits of a floating dtype (of the real part, for a complex one), as Python floats."""

    def __init__(self, type: dtype | None = None) -> None:
        real = get_default_dtype() if type is None else _require_dtype(type, "finfo", "type", 1).to_real()
        if not real.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'")
        info = machine_limits(real.np)
        self.bits = info.bits
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        # As PyTorch computes it (NumPy's is rounded to the dtype): 10 to the minus the decimal digits eps leaves.
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        if real.name == "float8_e5m2fnuz":
            self.eps = 0.125  # PyTorch's value, not the format's 2**-2
        self.dtype = real.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(self.dtype)

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
            f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})"
        )


class iinfo:
    """Machine limits of an integer dtype, as Python ints."""

    def __init__(self, type: dtype | None = None) -> None:
        if type is None:
            raise TypeError('iinfo() missing 1 required positional arguments: "type"')
        integer = _require_dtype(type, "iinfo", "type", 1)
        if integer is bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if integer._category != INTEGER:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(integer.np)
        self.bits, self.min, self.max, self.dtype = info.bits, int(info.min), int(info.max), integer.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(self.dtype)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
