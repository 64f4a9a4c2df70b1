"""segment_reduce against PyTorch 2.13 where the OpInfos' random inputs do not reach: ties of max and min,
zeros in prod, offsets that skip a prefix, per-row lengths, and the refused second derivative."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from ..nn.oracle import assert_raises_like_torch

pytestmark = pytest.mark.torch_oracle

TIES = np.array([1.0, 3, 3, 0, 2, 0, 5])  # ties in the first segment, zeros in the last two


def _value_and_grad(m: Any, data: np.ndarray, call: str) -> tuple[list[Any], list[Any]]:
    x = m.tensor(data, requires_grad=True)
    y = eval(call, {"m": m, "x": x})
    # A different weight per output, of both signs: PyTorch splits a tie's gradient only where it is positive.
    weights = m.tensor((np.arange(1.0, y.numel() + 1) * (-1.0) ** np.arange(y.numel())).reshape(tuple(y.shape)))
    (grad,) = m.autograd.grad((y * weights).sum(), x)
    return np.nan_to_num(y.detach().numpy(), nan=-99.0).tolist(), grad.numpy().tolist()


CASES = [
    *(f"m.segment_reduce(x, '{reduce}', lengths=m.tensor([3, 0, 4]){initial})"
      for reduce in ("sum", "mean", "max", "min", "prod", "amax") for initial in ("", ", initial=2.0")),
    *(f"m.segment_reduce(x, '{reduce}', offsets=m.tensor([1, 3, 3, 7]))" for reduce in ("mean", "max", "prod")),
    "m.segment_reduce(x, 'min', lengths=m.tensor([2, 5]).int(), axis=-1)",
    "m.segment_reduce(x, 'sum', lengths=m.tensor([2, 4]), unsafe=True)",
]


@pytest.mark.parametrize("call", CASES)
def test_values_and_gradients_match_torch(call: str) -> None:
    assert _value_and_grad(glassgrad, TIES, call) == _value_and_grad(torch, TIES, call)


@pytest.mark.parametrize("reduce", ["sum", "max", "prod"])
def test_per_row_lengths_along_a_later_axis_match_torch(reduce: str) -> None:
    data = np.random.default_rng(0).standard_normal((2, 6, 3))
    call = f"m.segment_reduce(x, '{reduce}', lengths=m.tensor([[2, 4], [3, 3]]), axis=1)"
    mine, ref = _value_and_grad(glassgrad, data, call), _value_and_grad(torch, data, call)
    np.testing.assert_allclose(np.array(mine[0]), np.array(ref[0]), rtol=1e-12)
    np.testing.assert_allclose(np.array(mine[1]), np.array(ref[1]), rtol=1e-12)


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "prod"])
def test_second_derivative_is_refused_like_torch(reduce: str) -> None:
    def twice(m: Any) -> None:
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (grad,) = m.autograd.grad(m.segment_reduce(x, reduce, lengths=m.tensor([1, 2])).sum(), x, create_graph=True)
        grad.sum().backward()

    assert_raises_like_torch(twice)


def test_offsets_outside_the_data_are_refused() -> None:
    # PyTorch reads past the buffer here (its result is garbage, or the process aborts), so there is no oracle.
    with pytest.raises(RuntimeError, match="offsets must lie in"):
        glassgrad.segment_reduce(glassgrad.ones(7), "sum", offsets=glassgrad.tensor([0, 3, 9]))
