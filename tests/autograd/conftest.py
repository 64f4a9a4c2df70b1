"""The oracle: run one program with real PyTorch and with glassgrad, and require the same observable outcome."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

Program = Callable[[ModuleType], Any]


@dataclass(frozen=True)
class Raised:
    """An exception, reduced to what must match PyTorch: its type and the first line of its message.

    glassgrad appends its explanation after a blank line, so only the first line is PyTorch's sentence.
    """

    type: type[BaseException]
    first_line: str


@dataclass(frozen=True)
class Warned:
    """A value produced while warnings were issued, e.g. reading `.grad` of a non-leaf."""

    value: Any
    warnings: tuple[tuple[type[Warning], str], ...]


def attempt(fn: Callable[[], Any]) -> Any:
    """fn()'s result, or the Raised it ended with, so one program can record several outcomes."""
    try:
        return fn()
    except Exception as err:
        return Raised(type(err), str(err).split("\n")[0])


def warned(fn: Callable[[], Any]) -> Warned:
    """fn()'s result with the warnings it issued (their message's first 60 characters)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn()
    return Warned(value, tuple((w.category, str(w.message)[:60]) for w in caught))


def _is_tensor(value: Any) -> bool:
    return isinstance(value, (torch.Tensor, glassgrad.Tensor))


def _dtype_name(dtype: Any) -> str:
    return str(dtype).rpartition(".")[2]  # torch.float32 and glassgrad.float32 are the same dtype


def _normalize(value: Any) -> Any:
    """Module-independent form: tensors become ('tensor', array, dtype name, requires_grad)."""
    if _is_tensor(value):
        return ("tensor", value.detach().numpy().copy(), _dtype_name(value.dtype), value.requires_grad)
    if isinstance(value, (list, tuple)):
        return type(value)(_normalize(v) for v in value)
    if isinstance(value, dict):
        return {k: _normalize(v) for k, v in value.items()}
    if isinstance(value, Warned):
        return Warned(_normalize(value.value), value.warnings)
    if isinstance(value, (torch.dtype, glassgrad.dtype)):
        return _dtype_name(value)
    return value


def _assert_same(expected: Any, actual: Any, path: str) -> None:
    if isinstance(expected, tuple) and expected[:1] == ("tensor",):
        assert isinstance(actual, tuple) and actual[:1] == ("tensor",), f"{path}: expected a tensor, got {actual!r}"
        _, want, want_dtype, want_rg = expected
        _, got, got_dtype, got_rg = actual
        assert got.shape == want.shape, f"{path}: shape {got.shape} != PyTorch's {want.shape}"
        assert got_dtype == want_dtype, f"{path}: dtype {got_dtype} != PyTorch's {want_dtype}"
        assert got_rg == want_rg, f"{path}: requires_grad {got_rg} != PyTorch's {want_rg}"
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=path)
    elif isinstance(expected, (list, tuple)):
        assert type(actual) is type(expected) and len(actual) == len(expected), f"{path}: {actual!r} != {expected!r}"
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            _assert_same(e, a, f"{path}[{i}]")
    elif isinstance(expected, dict):
        assert isinstance(actual, dict) and actual.keys() == expected.keys(), f"{path}: keys differ"
        for k in expected:
            _assert_same(expected[k], actual[k], f"{path}[{k!r}]")
    elif isinstance(expected, Warned):
        assert isinstance(actual, Warned), f"{path}: expected warnings {expected.warnings}, got {actual!r}"
        assert actual.warnings == expected.warnings, f"{path}: warnings {actual.warnings} != {expected.warnings}"
        _assert_same(expected.value, actual.value, f"{path}.value")
    elif isinstance(expected, float):
        assert type(actual) is float, f"{path}: expected a float, got {actual!r}"
        np.testing.assert_allclose(actual, expected, rtol=1e-5, err_msg=path)
    else:
        assert type(actual) is type(expected) and actual == expected, f"{path}: {actual!r} != PyTorch's {expected!r}"


def check(program: Program) -> Any:
    """Run `program(torch)` and `program(glassgrad)`; their outcomes must agree. Returns PyTorch's."""
    expected = _normalize(attempt(lambda: program(torch)))
    actual = _normalize(attempt(lambda: program(glassgrad)))
    _assert_same(expected, actual, "outcome")
    return expected


@pytest.fixture
def oracle() -> SimpleNamespace:
    """check(program), and attempt(fn) and warned(fn) for use inside programs."""
    return SimpleNamespace(check=check, attempt=attempt, warned=warned)
