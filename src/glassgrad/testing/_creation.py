"""torch.testing.make_tensor: a tensor of a given shape and dtype with values drawn uniformly from [low, high)."""

from __future__ import annotations

import math
import warnings
from typing import Any

from .. import _dtype
from ..tensor import Tensor


def _bounds(dtype: _dtype.dtype, low: Any, high: Any, lowest: Any, highest: Any, default: tuple[int, int]) -> tuple[Any, Any]:
    """low and high with their defaults, checked, and clamped to what the dtype holds ([lowest, highest))."""
    low = default[0] if low is None else low
    high = default[1] if high is None else high
    if any(isinstance(value, float) and math.isnan(value) for value in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and (dtype.is_floating_point or dtype.is_complex):
        warnings.warn(
            "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is deprecated since 2.1 "
            "and will be removed in 2.3. Use `torch.full(...)` instead.",
            FutureWarning,
            stacklevel=3,
        )
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(
            f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only supports "
            f"[{lowest}, {highest})"
        )
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype.is_floating_point or dtype.is_complex:
        return low, high
    return math.ceil(low), math.ceil(high)


def _shape(shape: tuple[Any, ...]) -> tuple[int, ...]:
    """make_tensor(2, 3), make_tensor((2, 3)) and make_tensor([2, 3]) are one shape."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def make_tensor(
    *shape: Any,
    dtype: _dtype.dtype,
    device: Any,
    low: float | None = None,
    high: float | None = None,
    requires_grad: bool = False,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
    memory_format: Any = None,
) -> Tensor:
    from ..ops.complex_ops import view_as_real
    from ..ops.creation import empty, randint

    size = _shape(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
            f"noncontiguous={noncontiguous} and memory_format={memory_format}"
        )
    inexact = dtype.is_floating_point or dtype.is_complex
    if requires_grad and not inexact:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(size) > 1
    if noncontiguous:  # twice the last dim, then every other element: no two neighbours alike, offset by one
        size = (*size[:-1], 2 * size[-1])
    if dtype is _dtype.bool_:
        result = randint(*_bounds(dtype, low, high, 0, 2, (0, 2)), size, dtype=dtype, device=device)
    elif not inexact:
        info = _dtype.iinfo(dtype)
        # randint draws int64 bounds: int64's own maximum cannot be an exclusive bound
        highest = info.max + (0 if dtype is _dtype.int64 else 1)
        result = randint(*_bounds(dtype, low, high, info.min, highest, (-9, 10)), size, dtype=dtype, device=device)
    else:
        info = _dtype.finfo(dtype)
        low, high = _bounds(dtype, low, high, info.min, info.max, (-9, 9))
        result = empty(size, dtype=dtype, device=device)
        target = view_as_real(result) if dtype.is_complex else result
        if high - low >= info.max:  # the span itself would overflow: draw half of it and double
            target.uniform_(low / 2, high / 2).mul_(2)
        else:
            target.uniform_(low, high)
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = _dtype.finfo(dtype).tiny if inexact else 1
    if inexact:
        result.requires_grad = requires_grad
    return result
