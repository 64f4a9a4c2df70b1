"""torch.dequantize on the plain tensors glassgrad has: PyTorch's answer (the tensor as float32) and its graph, a node
that refuses to differentiate."""

from __future__ import annotations

import pytest

import glassgrad

from ..outcome import assert_same_outcome, statements

CASES = [
    statements("x = m.ones(2)\nr = x.dequantize() is x"),
    statements("x = m.ones(2, requires_grad=True)\nwith m.no_grad():\n    r = x.dequantize() is x"),
    statements("x = m.ones(2, requires_grad=True)\ny = x.dequantize()\nr = (type(y.grad_fn).__name__, y)"),
    statements("x = m.ones(2, dtype=m.float64, requires_grad=True)\nm.dequantize(x).sum().backward()"),
    statements("r = m.tensor([True, False]).dequantize()"),
]


@pytest.mark.torch_oracle
@pytest.mark.parametrize("snippet", CASES)
def test_outcome_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)


@pytest.mark.torch_oracle
def test_complex_input_loses_its_imaginary_part_with_a_warning() -> None:
    # PyTorch's warning carries its C++ source location after the sentence, so the values are compared here.
    assert_same_outcome(lambda m: m.tensor([1 + 2j, 3j]).dequantize(), compare_warnings=False)
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        glassgrad.tensor([1 + 2j]).dequantize()
