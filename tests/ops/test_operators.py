"""Python operators on tensors (<<, >>, ^ and their reflected and in-place forms) against PyTorch, on int64 and bool."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

INT64 = ([5, -3, 0, 7, -128], [1, 2, 0, 63, 3])
BOOL = ([True, False, True, False, True], [True, True, False, False, False])


def _iop(name: str) -> Callable[[Any, Any], Any]:
    """An augmented assignment on a clone, so that the operands stay as they were."""

    def apply(x: Any, y: Any) -> Any:
        x = x.clone()
        out = getattr(x, name)(y)
        assert out is x  # `x <<= y` rebinds x to what __ilshift__ returns: it must be x itself
        return x

    return apply


OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "__lshift__": lambda x, y: x << y,
    "__rshift__": lambda x, y: x >> y,
    "__rlshift__": lambda x, y: 3 << y,
    "__rrshift__": lambda x, y: -64 >> y,
    "__rxor__": lambda x, y: 6 ^ y,
    "__rxor___bool": lambda x, y: True ^ y,
    **{name: _iop(name) for name in ("__ilshift__", "__irshift__", "__iand__", "__ior__", "__ixor__")},
}


def _outcome(lib: Any, fn: Callable[[Any, Any], Any], values: tuple[list[Any], list[Any]]) -> Any:
    try:
        out = fn(*(lib.tensor(v) for v in values))
    except (RuntimeError, TypeError) as error:  # NotImplementedError is a RuntimeError
        return type(error), str(error)
    return np.asarray(out.tolist()), str(out.dtype).split(".")[-1]


@pytest.mark.parametrize("values", [INT64, BOOL], ids=["int64", "bool"])
@pytest.mark.parametrize("name", OPERATORS)
def test_operator_matches_pytorch(name: str, values: tuple[list[Any], list[Any]]) -> None:
    ours, theirs = (_outcome(lib, OPERATORS[name], values) for lib in (glassgrad, torch))
    if isinstance(theirs[0], type):
        assert isinstance(ours[0], type) and issubclass(ours[0], theirs[0]), f"PyTorch raised {theirs}, glassgrad gave {ours}"
        return
    assert not isinstance(ours[0], type), f"glassgrad raised {ours}, PyTorch gave {theirs}"
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1] == theirs[1]
