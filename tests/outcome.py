"""Run one snippet on torch and on glassgrad and reduce each run to what a program can observe.

An outcome is ("ok", value) or (exception type name, first sentence of its message), plus the distinct
warnings raised on the way (category and first sentence). glassgrad's messages keep PyTorch's first sentence and
add their explanation after it, so the first sentence is what must agree.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import torch

import glassgrad

Snippet = Callable[[Any], Any]  # m (torch or glassgrad) -> a value


def first_sentence(message: str) -> str:
    line = message.strip().split("\n", 1)[0]
    return re.split(r"(?<=[.!?])\s", line, maxsplit=1)[0].rstrip(".")


def observable(value: Any) -> Any:
    """What a program can compare across the libraries: tensors as (dtype, values), dtypes by name, devices by repr,
    modules by class."""
    if isinstance(value, (torch.Tensor, glassgrad.Tensor)):
        return ("tensor", str(value.dtype).rpartition(".")[2], value.detach().tolist())
    if isinstance(value, (torch.dtype, glassgrad.dtype)):
        return str(value).rpartition(".")[2]
    if isinstance(value, (torch.device, glassgrad.device)):
        return repr(value)
    if isinstance(value, (torch.nn.Module, glassgrad.nn.Module)):
        return ("module", type(value).__name__)
    if isinstance(value, (tuple, list)):
        return type(value)(observable(v) for v in value)
    if isinstance(value, dict):
        return {k: observable(v) for k, v in value.items()}
    return value


def outcome(snippet: Snippet, m: Any) -> tuple[Any, ...]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: tuple[Any, ...] = ("ok", observable(snippet(m)))
        except Exception as err:  # which exception, and its first sentence, is what is compared
            result = (type(err).__name__, first_sentence(str(err)))
    return (*result, sorted({(w.category.__name__, first_sentence(str(w.message))) for w in caught}))


def assert_same_outcome(snippet: Snippet, *, compare_warnings: bool = True) -> None:
    expected, actual = outcome(snippet, torch), outcome(snippet, glassgrad)
    if not compare_warnings:
        expected, actual = expected[:-1], actual[:-1]
    assert actual == expected, f"torch: {expected}\n glassgrad: {actual}"


def expression(source: str, **names: Any) -> Any:
    """A pytest param running the expression `source` with `m` (torch or glassgrad) and `names` in scope."""
    import pytest

    return pytest.param(lambda m: eval(source, {"m": m, **names}), id=source)


def statements(source: str, **names: Any) -> Any:
    """A pytest param running the statements `source` with `m` and `names` in scope; its result is `r` afterwards."""
    import pytest

    def run(m: Any) -> Any:
        scope = {"m": m, **names}
        exec(source, scope)
        return scope.get("r")

    return pytest.param(run, id=source)
