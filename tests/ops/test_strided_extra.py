"""What the generic OpInfo tests cannot say about strided views and the stacks: in-place writes through views,
overlapping views, and gradients where PyTorch 2.13's own are wrong (checked against finite differences)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle


def test_an_in_place_op_on_overlapping_windows_is_refused() -> None:
    windows = glassgrad.arange(6.0).unfold(0, 2, 1)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        windows.add_(1)


@pytest.mark.parametrize("make", [
    lambda m, x: x.unfold(0, 2, 2),
    lambda m, x: x.as_strided((3,), (2,), 1),
    lambda m, x: x.select(0, 4),
])
def test_an_in_place_op_through_a_strided_view_reaches_the_base_as_in_torch(make) -> None:
    results = []
    for m in (torch, glassgrad):
        leaf = m.arange(6.0, requires_grad=True)
        base = leaf * 1
        make(m, base).mul_(3)
        (grad,) = m.autograd.grad((base * m.arange(6.0)).sum(), leaf)
        results.append((base.detach().numpy(), grad.numpy()))
    np.testing.assert_array_equal(results[1][0], results[0][0])
    np.testing.assert_array_equal(results[1][1], results[0][1])


def test_block_diag_after_an_empty_vector_passes_finite_differences() -> None:
    """PyTorch 2.13 takes the 0-d operand's gradient from row 0, though the empty vector's row pushed it to row 1."""
    a = glassgrad.zeros(0, dtype=glassgrad.float64, requires_grad=True)
    b = glassgrad.tensor([[1.0, 2.0]], dtype=glassgrad.float64, requires_grad=True)
    c = glassgrad.tensor(3.0, dtype=glassgrad.float64, requires_grad=True)
    assert glassgrad.autograd.gradcheck(glassgrad.block_diag, (a, b, c))
    assert glassgrad.autograd.gradgradcheck(glassgrad.block_diag, (a, b, c))
