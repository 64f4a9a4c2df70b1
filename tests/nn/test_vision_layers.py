"""Softmax2d, ChannelShuffle, UpsamplingNearest2d and UpsamplingBilinear2d against PyTorch, and F.gumbel_softmax's
distribution (its noise comes from glassgrad's generator, so only the law can be compared)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import glassgrad

from .oracle import assert_raises_like_torch, check_against_torch, make_pair

pytestmark = pytest.mark.torch_oracle
RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 6, 3, 4))

CASES: dict[str, tuple[Any, np.ndarray]] = {
    "Softmax2d": (lambda lib: lib.nn.Softmax2d(), X),
    "Softmax2d_unbatched": (lambda lib: lib.nn.Softmax2d(), X[0]),
    "ChannelShuffle": (lambda lib: lib.nn.ChannelShuffle(3), X),
    "UpsamplingNearest2d": (lambda lib: lib.nn.UpsamplingNearest2d(scale_factor=2), X),
    "UpsamplingNearest2d_size": (lambda lib: lib.nn.UpsamplingNearest2d(size=(5, 7)), X),
    "UpsamplingBilinear2d": (lambda lib: lib.nn.UpsamplingBilinear2d(scale_factor=1.5), X),
    "UpsamplingBilinear2d_size": (lambda lib: lib.nn.UpsamplingBilinear2d((4, 9)), X),
}


@pytest.mark.parametrize("name", CASES)
def test_layer_matches_torch(name: str) -> None:
    factory, x = CASES[name]
    ref, mine = make_pair(factory)
    assert repr(mine) == repr(ref)
    check_against_torch(ref, mine, [x])


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.Softmax2d()(lib.zeros(2, 3)),
    lambda lib: lib.nn.ChannelShuffle(4)(lib.zeros(1, 6, 2)),
])
def test_layer_errors_like_torch(call: Any) -> None:
    assert_raises_like_torch(call)


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_samples_the_softmax_distribution(hard: bool) -> None:
    logits = np.log(np.array([0.1, 0.2, 0.7]))
    glassgrad.manual_seed(0)
    draws = glassgrad.nn.functional.gumbel_softmax(glassgrad.tensor(np.tile(logits, (20000, 1))), hard=hard).numpy()
    np.testing.assert_allclose(draws.sum(1), 1, rtol=1e-6)
    if hard:
        assert set(np.unique(draws)) == {0.0, 1.0}
    # tau = 1: the argmax of logits + Gumbel noise is distributed as softmax(logits).
    frequencies = np.bincount(draws.argmax(1), minlength=3) / len(draws)
    np.testing.assert_allclose(frequencies, [0.1, 0.2, 0.7], atol=0.015)


def test_gumbel_softmax_hard_passes_the_soft_gradient_straight_through() -> None:
    logits = glassgrad.tensor([[0.5, -1.0, 2.0]], dtype=glassgrad.float64, requires_grad=True)
    glassgrad.manual_seed(1)
    hard = glassgrad.nn.functional.gumbel_softmax(logits, tau=0.7, hard=True)
    (hard * glassgrad.tensor([[1.0, 2.0, 3.0]], dtype=glassgrad.float64)).sum().backward()
    glassgrad.manual_seed(1)
    soft_logits = logits.detach().requires_grad_()
    soft = glassgrad.nn.functional.gumbel_softmax(soft_logits, tau=0.7)
    (soft * glassgrad.tensor([[1.0, 2.0, 3.0]], dtype=glassgrad.float64)).sum().backward()
    assert hard.sum().item() == 1.0 and hard.detach().numpy().argmax() == soft.detach().numpy().argmax()
    np.testing.assert_allclose(logits.grad.numpy(), soft_logits.grad.numpy(), rtol=1e-12)
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        glassgrad.nn.functional.gumbel_softmax(logits, eps=1e-5)


def test_grid_sample_and_affine_grid_warn_without_align_corners_and_then_take_false() -> None:
    theta = glassgrad.tensor([[[1.0, 0.2, 0.1], [-0.3, 0.9, 0.0]]])
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
        grid = glassgrad.nn.functional.affine_grid(theta, (1, 1, 3, 4))
    np.testing.assert_array_equal(grid.numpy(), glassgrad.nn.functional.affine_grid(theta, (1, 1, 3, 4), align_corners=False).numpy())
    x = glassgrad.tensor(RNG.standard_normal((1, 1, 3, 4)), dtype=glassgrad.float32)
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
        out = glassgrad.nn.functional.grid_sample(x, grid)
    np.testing.assert_array_equal(out.numpy(), glassgrad.nn.functional.grid_sample(x, grid, align_corners=False).numpy())


def test_grid_sample_bicubic_is_refused_with_the_modes_glassgrad_has() -> None:
    with pytest.raises(NotImplementedError, match="use mode='bilinear' or 'nearest'"):
        glassgrad.nn.functional.grid_sample(glassgrad.zeros(1, 1, 2, 2), glassgrad.zeros(1, 2, 2, 2), mode="bicubic", align_corners=False)
