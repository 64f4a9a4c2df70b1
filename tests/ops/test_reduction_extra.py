"""Gradients at ties, compared with PyTorch: which of several equal elements receives the gradient."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

TIES = np.array([[1.0, 3.0, 3.0, 2.0], [0.0, 0.0, 0.0, 0.0], [2.0, 1.0, 2.0, 1.0]])
CALLS = {
    "max": lambda m, x: m.max(x), "min_dim": lambda m, x: m.min(x, 1).values, "amax": lambda m, x: m.amax(x, 1),
    "amin_all": lambda m, x: m.amin(x), "median": lambda m, x: m.median(x), "median_dim": lambda m, x: m.median(x, 1).values,
    "kthvalue": lambda m, x: m.kthvalue(x, 2, 1).values, "mode": lambda m, x: m.mode(x, 1).values,
    "topk": lambda m, x: m.topk(x, 2, 1).values, "sort": lambda m, x: m.sort(x, 1, descending=True).values,
    "norm_inf": lambda m, x: m.norm(x, float("inf"), dim=1), "prod_zeros": lambda m, x: m.prod(x, 1),
    "cumprod_zeros": lambda m, x: m.cumprod(x, 1), "std_constant_row": lambda m, x: m.std(x, 1),
}


def _grads(m: Any, call: Any) -> list[np.ndarray]:
    x = m.tensor(TIES, dtype=m.float64, requires_grad=True)
    out = call(m, x)
    weight = m.tensor(np.arange(1.0, out.numel() + 1).reshape(tuple(out.shape)), dtype=m.float64)
    (first,) = m.autograd.grad((out * weight).sum(), x, create_graph=True)
    square = (first * first).sum()
    if not square.requires_grad:  # the gradient does not depend on x (a selection)
        return [first.detach().numpy(force=True), np.zeros(TIES.shape)]
    (second,) = m.autograd.grad(square, x, materialize_grads=True)
    return [first.detach().numpy(force=True), second.detach().numpy(force=True)]


@pytest.mark.parametrize("name", CALLS)
def test_gradient_at_ties_matches_torch(name: str) -> None:
    expected, actual = _grads(torch, CALLS[name]), _grads(glassgrad, CALLS[name])
    for e, a in zip(expected, actual, strict=True):
        np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-12)
