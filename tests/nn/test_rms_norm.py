"""RMSNorm against PyTorch 2.13: parameters, default eps, outputs and gradients, errors and repr."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad

from .oracle import assert_raises_like_torch, check_against_torch, make_pair

rng = np.random.default_rng(0)


@pytest.mark.torch_oracle
@pytest.mark.parametrize(
    ("factory", "shape"),
    [
        (lambda lib: lib.nn.RMSNorm(6), (4, 6)),
        (lambda lib: lib.nn.RMSNorm((3, 4), eps=1e-2), (2, 3, 4)),
        (lambda lib: lib.nn.RMSNorm([5], elementwise_affine=False), (2, 3, 5)),
        (lambda lib: lib.nn.RMSNorm(5), (5,)),
    ],
    ids=["1d", "2d_eps", "no_affine", "unbatched"],
)
def test_rms_norm_matches_torch(factory, shape) -> None:
    ref, mine = make_pair(factory)
    check_against_torch(ref, mine, [rng.standard_normal(shape)])


@pytest.mark.torch_oracle
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_default_eps_is_the_dtypes_machine_epsilon(dtype: str) -> None:
    # Inputs so small that eps dominates mean(x^2): a fixed eps (1e-5, 1e-6) would give a visibly different result.
    x = rng.standard_normal((3, 4)) * 1e-5
    ref = torch.nn.RMSNorm(4).to(getattr(torch, dtype))(torch.tensor(x, dtype=getattr(torch, dtype)))
    out = glassgrad.nn.RMSNorm(4).to(getattr(glassgrad, dtype))(glassgrad.tensor(x, dtype=getattr(glassgrad, dtype)))
    assert out.dtype == getattr(glassgrad, dtype)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5 if dtype == "float32" else 1e-12)


@pytest.mark.torch_oracle
def test_state_dict_repr_and_initialisation_match_torch() -> None:
    for build in (lambda lib: lib.nn.RMSNorm((2, 3)), lambda lib: lib.nn.RMSNorm(3, eps=1e-3, elementwise_affine=False)):
        ref, mine = build(torch), build(glassgrad)
        assert repr(mine) == repr(ref)
        assert {k: tuple(v.shape) for k, v in mine.state_dict().items()} == {k: tuple(v.shape) for k, v in ref.state_dict().items()}
        for k, v in mine.state_dict().items():
            np.testing.assert_array_equal(v.numpy(), ref.state_dict()[k].numpy())
    assert glassgrad.nn.RMSNorm is glassgrad.nn.modules.normalization.RMSNorm


@pytest.mark.torch_oracle
@pytest.mark.parametrize(
    ("normalized_shape", "input_shape"), [((2, 3), (4, 3)), ((2, 3), (1, 3, 3)), (4, ()), ((2, 3), (3,))]
)
def test_shape_errors_match_torch(normalized_shape, input_shape) -> None:
    assert_raises_like_torch(lambda lib: lib.nn.RMSNorm(normalized_shape)(lib.zeros(input_shape)))
