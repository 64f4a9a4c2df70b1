"""softmax, log_softmax and cross-entropy as PyTorch computes them: their backward is an op of its own
(_softmax_backward_data, _log_softmax_backward_data) with PyTorch's double-backward nodes, and each step writes one
full-size array (log_softmax's forward one more, for exp), where the composite formulas made three or four."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad
from tests.allocations import SLACK, peak_bytes

NAMES = ["softmax", "log_softmax"]


@pytest.mark.torch_oracle
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("shape", "dim"), [((3, 4), 1), ((3, 4), 0), ((2, 3, 4), 1), ((5,), 0)], ids=str)
def test_double_backward_nodes_and_values_match_pytorch(name: str, shape: tuple[int, ...], dim: int) -> None:
    rng = np.random.default_rng(len(shape) + dim)
    x_np, w_np, v_np = (rng.standard_normal(shape) for _ in range(3))
    results = []
    for lib in (glassgrad, torch):
        x, w = lib.tensor(x_np, requires_grad=True), lib.tensor(w_np, requires_grad=True)
        y = getattr(lib, name)(x, dim)
        (g,) = lib.autograd.grad((y * w).sum(), x, create_graph=True)
        second = lib.autograd.grad((g * lib.tensor(v_np)).sum(), [x, w])
        nodes = (type(g.grad_fn).__name__, [type(n).__name__ for n, _ in g.grad_fn.next_functions])
        results.append((nodes, [t.detach().numpy() for t in (y, g, *second)]))
    assert results[0][0] == results[1][0]
    for got, expected in zip(results[0][1], results[1][1], strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", NAMES)
def test_forward_and_backward_write_one_array(name: str) -> None:
    x = glassgrad.randn(512, 256, requires_grad=True)
    full = x.numel() * 4
    out: list[Any] = []
    forward = peak_bytes(lambda: out.append(getattr(glassgrad, name)(x, 1)))
    assert forward < (2 if name == "log_softmax" else 1) * full + SLACK
    g = glassgrad.ones_like(out[0])
    backward = peak_bytes(lambda: out[0].backward(g))
    assert backward < full + SLACK  # the gradient, which x keeps


def test_cross_entropy_backward_writes_one_array() -> None:
    logits = glassgrad.randn(512, 256, requires_grad=True)
    target = glassgrad.randint(0, 256, (512,))
    loss = glassgrad.nn.functional.cross_entropy(logits, target)
    peak = peak_bytes(loss.backward)
    assert peak < 2 * logits.numel() * 4 + SLACK  # nll's gradient, then log_softmax's (which logits keeps)
