"""What the OpInfo harness does not see of issue 18's functions: identities, return types, node names, saved
tensors and error messages, each compared with PyTorch 2.13."""

from __future__ import annotations

from typing import Any

import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

BOTH = pytest.mark.parametrize("m", [torch, glassgrad], ids=["torch", "glassgrad"])


def message(fn: Any) -> tuple[str, str]:
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value).split("\n")[0]


def same_message(fn: Any) -> None:
    assert message(lambda: fn(glassgrad)) == message(lambda: fn(torch))


# -- stacking.py --------------------------------------------------------------------------------
@BOTH
def test_atleast_and_broadcast_tensors_return_inputs_that_fit_unchanged(m: Any) -> None:
    x = m.ones(2, 3, requires_grad=True)
    assert m.atleast_1d(x) is x and m.atleast_2d(x) is x
    assert m.atleast_3d(x) is not x and m.atleast_3d(x)._base is x
    a, b = m.broadcast_tensors(x, m.ones(3))
    assert a is x and b.shape == (2, 3)
    assert m.atleast_1d() == () and m.broadcast_tensors() == ()


def test_broadcast_shapes_gives_a_size() -> None:
    for shapes in [((2, 1), (3,), 3), (), (None, [5, 1], (1, 2))]:
        got = glassgrad.broadcast_shapes(*shapes)
        assert isinstance(got, glassgrad.Size)
        assert tuple(got) == tuple(torch.broadcast_shapes(*shapes))


@pytest.mark.parametrize("call", [
    lambda m: m.broadcast_shapes((2, 3), [3, 1]),
    lambda m: m.broadcast_shapes((-1,)),
    lambda m: m.broadcast_shapes(1.5),
    lambda m: m.broadcast_tensors(m.ones(2, 3), m.ones(4)),
    lambda m: m.broadcast_tensors(m.ones(2), [1.0]),
])
def test_stacking_errors_match_torch(call: Any) -> None:
    same_message(call)
