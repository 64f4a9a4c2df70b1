"""Argument and sample validation as PyTorch 2.13 does it: the same exception types and first lines (with
"torch" for "glassgrad" in reprs), the default (on, as __debug__) and set_default_validate_args."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

CALLS: dict[str, Callable[[Any], Any]] = {
    "negative_scale": lambda m: m.distributions.Normal(m.tensor([0.0]), m.tensor([-1.0])),
    "log_prob_of_a_number": lambda m: m.distributions.Normal(0.0, 1.0).log_prob(3.0),
    "outside_support": lambda m: m.distributions.Categorical(probs=m.tensor([0.5, 0.5])).log_prob(m.tensor(3)),
    "not_broadcastable": lambda m: m.distributions.Normal(m.zeros(3), 1.0).log_prob(m.zeros(2)),
    "wrong_event_shape": lambda m: m.distributions.Dirichlet(m.ones(3)).log_prob(m.ones(2) / 2),
    "neither_probs_nor_logits": lambda m: m.distributions.Bernoulli(),
    "both_probs_and_logits": lambda m: m.distributions.Binomial(3, probs=m.tensor(0.5), logits=m.tensor(0.0)),
    "scalar_categorical": lambda m: m.distributions.Categorical(probs=m.tensor(0.5)),
    "no_covariance": lambda m: m.distributions.MultivariateNormal(m.zeros(2)),
    "two_covariances": lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.eye(2), scale_tril=m.eye(2)),
    "too_many_reinterpreted": lambda m: m.distributions.Independent(m.distributions.Normal(0.0, 1.0), 1),
    "scalar_dirichlet": lambda m: m.distributions.Dirichlet(m.tensor(1.0)),
    "uniform_reversed": lambda m: m.distributions.Uniform(m.ones(2), m.zeros(2)),
    "tensor_total_count": lambda m: m.distributions.Multinomial(m.tensor(3), probs=m.ones(2)),
    "lkj_dim": lambda m: m.distributions.LKJCholesky(1),
    "bad_transforms": lambda m: m.distributions.TransformedDistribution(m.distributions.Normal(0.0, 1.0), 3),
    "inhomogeneous_entropy": lambda m: m.distributions.Binomial(m.tensor([3.0, 4.0]), m.tensor([0.2, 0.3])).entropy(),
    "geometric_zero": lambda m: m.distributions.Geometric(m.tensor([0.0, 0.5])),
    "simplex_probs": lambda m: m.distributions.Categorical(probs=m.tensor([-0.5, 1.5])),
    "wishart_df": lambda m: m.distributions.Wishart(m.tensor(0.5), m.eye(2)),
    "mixture_not_categorical": lambda m: m.distributions.MixtureSameFamily(
        m.distributions.Normal(0.0, 1.0), m.distributions.Normal(m.zeros(2), 1.0)
    ),
    "no_mean": lambda m: m.distributions.Distribution().mean,
    "no_rsample": lambda m: m.distributions.Poisson(m.tensor(1.0)).rsample(),
    "no_enumerate": lambda m: m.distributions.Independent(
        m.distributions.Bernoulli(m.tensor([0.5])), 1
    ).enumerate_support(),
}


def _outcome(m: Any, name: str) -> tuple[str, str]:
    try:
        CALLS[name](m)
    except Exception as error:
        first = str(error).split("\n")[0].replace("glassgrad.", "torch.")
        return type(error).__name__, first
    return "no error", ""


@pytest.mark.parametrize("name", sorted(CALLS))
def test_errors_match_pytorch(name: str) -> None:
    assert _outcome(glassgrad, name) == _outcome(torch, name)


def test_validation_is_on_by_default_and_can_be_turned_off() -> None:
    D = glassgrad.distributions
    assert D.Distribution._validate_args is True
    D.Normal(0.0, -1.0, validate_args=False)  # no check asked for
    try:
        D.Distribution.set_default_validate_args(False)
        D.Normal(0.0, -1.0)
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args(3)  # type: ignore[arg-type]


def test_sample_n_warns_as_pytorch() -> None:
    with pytest.warns(FutureWarning, match="will be deprecated"):
        sample = glassgrad.distributions.Normal(0.0, 1.0).expand([2]).sample_n(3)
    assert tuple(sample.shape) == (3, 2)


def test_a_subclass_with_its_own_init_must_define_expand() -> None:
    class Shifted(glassgrad.distributions.Normal):
        def __init__(self, loc: Any) -> None:
            super().__init__(loc, 1.0)

    with pytest.raises(NotImplementedError, match="Subclass Shifted of Normal that defines a custom __init__"):
        Shifted(glassgrad.zeros(2)).expand([3, 2])
