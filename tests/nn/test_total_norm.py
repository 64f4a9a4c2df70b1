"""nn.utils.get_total_norm and clip_grads_with_norm_, the two halves of clip_grad_norm_, against PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

DATA = [np.random.default_rng(1).standard_normal(shape) for shape in ((3, 4), (5,), (2, 2, 2))]


@pytest.mark.parametrize("norm_type", [2.0, 1, math.inf, 3.5])
def test_get_total_norm_matches_pytorchs(norm_type: float) -> None:
    for dtype in ("float32", "float64"):
        theirs = torch.nn.utils.get_total_norm([torch.tensor(d, dtype=getattr(torch, dtype)) for d in DATA], norm_type)
        ours = glassgrad.nn.utils.get_total_norm([glassgrad.tensor(d, dtype=getattr(glassgrad, dtype)) for d in DATA], norm_type)
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1] and ours.shape == theirs.shape == ()
        assert ours.item() == pytest.approx(theirs.item(), rel=1e-6)
    for m in (torch, glassgrad):
        assert m.nn.utils.get_total_norm([]).item() == 0.0 and m.nn.utils.get_total_norm(m.ones(4)).item() == 2.0


def test_get_total_norm_refuses_a_nonfinite_norm_as_pytorchs() -> None:
    messages = []
    for m in (torch, glassgrad):
        with pytest.raises(RuntimeError) as info:
            m.nn.utils.get_total_norm([m.tensor([1.0, math.inf])], error_if_nonfinite=True)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grads_with_norm_scales_as_pytorchs(max_norm: float) -> None:
    clipped = []
    for m in (torch, glassgrad):
        params = [m.nn.Parameter(m.zeros(d.shape, dtype=m.float64)) for d in DATA]
        for p, d in zip(params, DATA, strict=True):
            p.grad = m.tensor(d, dtype=m.float64)
        total = m.nn.utils.get_total_norm([p.grad for p in params])
        assert m.nn.utils.clip_grads_with_norm_(iter(params), max_norm, total) is None
        clipped.append([p.grad.numpy() for p in params])
    for ours, theirs in zip(clipped[1], clipped[0], strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
