"""torch.testing.assert_close: nested sequences and mappings compared pair by pair, with PyTorch's per-dtype
tolerances and its messages (the first line of each is what tests match on)."""

from __future__ import annotations

import cmath
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .. import _dtype
from ..tensor import Tensor

# (rtol, atol) by dtype name; every other dtype is compared exactly
_TOLERANCES = {
    "float16": (1e-3, 1e-5), "bfloat16": (0.016, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
    "complex32": (1e-3, 1e-5), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7),
}
_NUMBER_DTYPES = {int: "int64", float: "float64", complex: "complex128"}


class _Mismatch(Exception):
    """One failed comparison: the exception type to raise, its message and where in the nesting it happened."""

    def __init__(self, kind: type[Exception], message: str, at: tuple[Any, ...] = ()) -> None:
        super().__init__(message)
        self.kind, self.message, self.at = kind, message, at

    def error(self, msg: str | Callable[[str], str] | None) -> Exception:
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.message
        if self.at:
            text += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.at)}"
        return self.kind(msg(text) if callable(msg) else text)


def _tolerances(names: Sequence[str], rtol: float | None, atol: float | None) -> tuple[float, float]:
    if (rtol is None) != (atol is None):
        raise _Mismatch(
            ValueError,
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {'rtol' if rtol is None else 'atol'}.",
        )
    if rtol is not None and atol is not None:
        return rtol, atol
    pairs = [_TOLERANCES.get(name, (0.0, 0.0)) for name in names]
    return max(r for r, _ in pairs), max(a for _, a in pairs)


def _mismatch_text(what: str, equality: bool, extra: str, abs_diff: Any, rel_diff: Any, atol: float, rtol: float, at: tuple[Any, ...] | None = None) -> str:
    lines = [f"{what} are not {'equal' if equality else 'close'}!", "", extra]
    for name, diff, tolerance in (("absolute", abs_diff, atol), ("relative", rel_diff, rtol)):
        line = f"{name.title()} difference: {diff}" if at is None else f"Greatest {name} difference: {diff[0]} at index {diff[1]}"
        lines.append(line if equality else f"{line} (up to {tolerance} allowed)")
    return "\n".join(lines)


def _scalar_text(actual: Any, expected: Any, rtol: float, atol: float) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_text("Scalars", rtol == 0 and atol == 0, f"Expected {expected} but got {actual}.", abs_diff, rel_diff, atol, rtol)


def _compare_numbers(actual: Any, expected: Any, rtol: float | None, atol: float | None, equal_nan: bool, check_dtype: bool, **_: Any) -> None:
    actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
    rtol, atol = _tolerances([_NUMBER_DTYPES[type(actual)], _NUMBER_DTYPES[type(expected)]], rtol, atol)
    if check_dtype and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    if actual == expected or (equal_nan and cmath.isnan(actual) and cmath.isnan(expected)):
        return
    difference = abs(actual - expected)
    if cmath.isfinite(difference) and difference <= atol + rtol * abs(expected):
        return
    raise _Mismatch(AssertionError, _scalar_text(actual, expected, rtol, atol))


def _compare_tensors(
    actual: Any, expected: Any, rtol: float | None, atol: float | None, equal_nan: bool, check_dtype: bool,
    check_stride: bool, **_: Any,
) -> None:
    from ..ops.creation import as_tensor

    actual, expected = (x if isinstance(x, Tensor) else as_tensor(x) for x in (actual, expected))
    rtol, atol = _tolerances([actual.dtype.name, expected.dtype.name], rtol, atol)
    checks = [("shape", actual.shape, expected.shape)]
    if check_stride:
        checks.append(("stride()", actual.stride(), expected.stride()))
    checks += [("device", actual.device, expected.device)]
    if check_dtype:
        checks.append(("dtype", actual.dtype, expected.dtype))
    for name, mine, theirs in checks:
        if mine != theirs:
            raise _Mismatch(AssertionError, f"The values for attribute '{name}' do not match: {mine} != {theirs}.")
    a, e = actual.detach()._data, expected.detach()._data
    if a.dtype != e.dtype:
        common = _dtype.promote_types(actual.dtype, expected.dtype).np
        a, e = a.astype(common), e.astype(common)
    matches = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan) if _dtype.is_inexact(a.dtype) else a == e
    if matches.all():
        return
    if a.ndim == 0:
        raise _Mismatch(AssertionError, _scalar_text(a.item(), e.item(), rtol, atol))
    raise _Mismatch(AssertionError, _tensor_text(a, e, matches, rtol, atol))


def _tensor_text(a: np.ndarray, e: np.ndarray, matches: np.ndarray, rtol: float, atol: float) -> str:
    total, wrong = matches.size, int(matches.size - matches.sum())
    if not _dtype.is_inexact(a.dtype):
        a, e = a.astype(np.int64), e.astype(np.int64)
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        abs_diff = np.abs(a - e).ravel()
        abs_diff[matches.ravel()] = 0
        rel_diff = abs_diff / np.abs(e).ravel().astype(np.result_type(abs_diff.dtype, np.float32))
        rel_diff[matches.ravel()] = 0

    def greatest(diff: np.ndarray) -> tuple[Any, tuple[int, ...]]:
        flat = int(np.nanargmax(diff)) if not np.isnan(diff).all() else 0
        return diff[flat].item(), tuple(int(i) for i in np.unravel_index(flat, a.shape))

    extra = f"Mismatched elements: {wrong} / {total} ({wrong / total:.1%})"
    return _mismatch_text("Tensor-likes", rtol == 0 and atol == 0, extra, greatest(abs_diff), greatest(rel_diff), atol, rtol, at=())


def _pairs(actual: Any, expected: Any, at: tuple[Any, ...]) -> list[tuple[Any, Any, tuple[Any, ...]]]:
    """Leaf pairs of two nested sequences or mappings, each with where it sits."""
    if isinstance(actual, Sequence) and isinstance(expected, Sequence) and not isinstance(actual, str) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", at)
        return [pair for i in range(len(actual)) for pair in _pairs(actual[i], expected[i], (*at, i))]
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        mine, theirs = set(actual), set(expected)
        if mine != theirs:
            raise _Mismatch(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(theirs - mine)}\n"
                f"Additional keys in the actual mapping: {sorted(mine - theirs)}",
                at,
            )
        try:
            keys: list[Any] = sorted(mine)
        except TypeError:
            keys = list(mine)
        return [pair for key in keys for pair in _pairs(actual[key], expected[key], (*at, key))]
    return [(actual, expected, at)]


def _comparer(actual: Any, expected: Any, allow_subclasses: bool) -> Callable[..., None] | None:
    """How two leaves are compared (None, booleans, numbers or tensor-likes), or None if they cannot be."""
    if actual is None or expected is None:
        return _compare_none
    if all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
        return _compare_booleans
    if all(isinstance(x, (int, float, complex, np.number)) and not isinstance(x, bool) for x in (actual, expected)):
        return _compare_numbers
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if not related or (not allow_subclasses and type(actual) is not type(expected)):
        return None
    if isinstance(actual, (Tensor, np.ndarray)):
        return _compare_tensors
    return None


def _compare_none(actual: Any, expected: Any, **_: Any) -> None:
    if actual is not expected:
        raise _Mismatch(AssertionError, f"None mismatch: {actual} is not {expected}")


def _compare_booleans(actual: Any, expected: Any, **_: Any) -> None:
    if bool(actual) is not bool(expected):
        raise _Mismatch(AssertionError, f"Booleans mismatch: {bool(actual)} is not {bool(expected)}")


def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: str | Callable[[str], str] | None = None,
) -> None:
    """Raise AssertionError unless `actual` and `expected` are close (elementwise |a - e| <= atol + rtol * |e|)."""
    __tracebackhide__ = True
    options = {"rtol": rtol, "atol": atol, "equal_nan": equal_nan, "check_dtype": check_dtype, "check_stride": check_stride}
    try:
        pairs = _pairs(actual, expected, ())
        comparers = []
        for a, e, at in pairs:
            compare = _comparer(a, e, allow_subclasses)
            if compare is None:
                raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type {type(a)} and {type(e)}.", at)
            comparers.append(compare)
    except _Mismatch as mismatch:
        raise mismatch.error(None) from None
    for compare, (a, e, at) in zip(comparers, pairs, strict=True):
        try:
            compare(a, e, **options)
        except _Mismatch as mismatch:
            mismatch.at = at
            raise mismatch.error(msg) from None


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None, atol: float | None = None, equal_nan: bool = True, msg: str = "") -> None:
    """The deprecated spelling: assert_close without the dtype check, with NaNs equal by default."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. "
        "Please use `torch.testing.assert_close()` instead. You can find detailed upgrade instructions in "
        "https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    from ..ops.creation import as_tensor

    actual = actual if isinstance(actual, Tensor) else as_tensor(actual)
    expected = expected if isinstance(expected, Tensor) else as_tensor(expected, dtype=actual.dtype)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=False, msg=msg or None)
