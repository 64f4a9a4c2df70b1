"""The modules over the functionals added with scaled_dot_product_attention's batch (threshold, shrinks, PReLU,
RReLU, pixel shuffles, Upsample, SoftMarginLoss, AdaptiveMaxPool1d) against PyTorch 2.13: outputs, gradients of
inputs and parameters, state_dict, repr and class path."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from .oracle import check_against_torch, make_pair

pytestmark = pytest.mark.torch_oracle

rng = np.random.default_rng(0)

CASES: dict[str, tuple[Any, list[np.ndarray], str]] = {
    "Threshold": (lambda lib: lib.nn.Threshold(0.3, -2.0), [rng.standard_normal((3, 4))], "activation"),
    "Hardshrink": (lambda lib: lib.nn.Hardshrink(0.7), [rng.standard_normal((3, 4))], "activation"),
    "Softshrink": (lambda lib: lib.nn.Softshrink(), [rng.standard_normal((3, 4))], "activation"),
    "RReLU_eval": (lambda lib: lib.nn.RReLU(0.1, 0.3).eval(), [rng.standard_normal((3, 4))], "activation"),
    "PReLU": (lambda lib: lib.nn.PReLU(), [rng.standard_normal((2, 3, 4))], "activation"),
    "PReLU_channels": (lambda lib: lib.nn.PReLU(3, init=0.1), [rng.standard_normal((2, 3, 4))], "activation"),
    "PixelShuffle": (lambda lib: lib.nn.PixelShuffle(2), [rng.standard_normal((2, 8, 2, 3))], "pixelshuffle"),
    "PixelUnshuffle": (lambda lib: lib.nn.PixelUnshuffle(3), [rng.standard_normal((1, 2, 3, 6))], "pixelshuffle"),
    "Upsample": (lambda lib: lib.nn.Upsample(scale_factor=2, mode="bilinear"), [rng.standard_normal((1, 2, 3, 4))],
                 "upsampling"),
    "Upsample_size": (lambda lib: lib.nn.Upsample(size=(5, 2, 3), mode="trilinear", align_corners=True),
                      [rng.standard_normal((1, 2, 3, 4, 2))], "upsampling"),
    "Upsample_bicubic": (lambda lib: lib.nn.Upsample(scale_factor=(1.5, 0.5), mode="bicubic"),
                         [rng.standard_normal((1, 1, 4, 4))], "upsampling"),
    # An integer target: PyTorch refuses a target that requires grad, as the oracle makes float inputs.
    "SoftMarginLoss": (lambda lib: lib.nn.SoftMarginLoss(reduction="sum"),
                       [rng.standard_normal((3, 4)), rng.choice([-1, 1], (3, 4))], "loss"),
    "AdaptiveMaxPool1d": (lambda lib: lib.nn.AdaptiveMaxPool1d(3, return_indices=True), [rng.standard_normal((2, 3, 7))],
                          "pooling"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_module_matches_torch(case: str) -> None:
    factory, inputs, module = CASES[case]
    ref, mine = make_pair(factory)
    check_against_torch(ref, mine, inputs)
    assert repr(mine) == repr(ref)
    assert type(mine).__module__ == f"glassgrad.nn.modules.{module}" == type(ref).__module__.replace("torch", "glassgrad")


def test_prelu_parameter_and_init_match_torch() -> None:
    mine, ref = glassgrad.nn.PReLU(4, init=0.3), torch.nn.PReLU(4, init=0.3)
    assert list(mine.state_dict()) == list(ref.state_dict()) == ["weight"]
    np.testing.assert_array_equal(mine.weight.detach().numpy(), ref.weight.detach().numpy().astype(np.float32))
    assert mine.weight.dtype is glassgrad.float32 and mine.weight.requires_grad


def test_rrelu_draws_while_training_and_is_deterministic_in_eval() -> None:
    module, x = glassgrad.nn.RReLU(), glassgrad.full((1000,), -1.0)
    training = module(x).numpy()
    assert len(np.unique(training)) > 900 and training.min() >= -1 / 3 and training.max() <= -1 / 8
    module.eval()
    np.testing.assert_allclose(module(x).numpy(), -(1 / 8 + 1 / 3) / 2, rtol=1e-6)


def test_upsample_keeps_factors_as_floats_like_torch() -> None:
    for kwargs in ({"scale_factor": 2}, {"scale_factor": (2, 3)}, {"scale_factor": 0}, {"size": 4}):
        mine, ref = glassgrad.nn.Upsample(**kwargs), torch.nn.Upsample(**kwargs)
        assert mine.scale_factor == ref.scale_factor and type(mine.scale_factor) is type(ref.scale_factor)
        assert repr(mine) == repr(ref)
