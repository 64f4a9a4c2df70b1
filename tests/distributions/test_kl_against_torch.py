"""kl_divergence against PyTorch 2.13 for every pair of cases whose types PyTorch has a formula for (values
and gradients), register_kl's dispatch and errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import glassgrad
from glassgrad.distributions import Distribution, kl_divergence, register_kl

from .cases import CASES, build

pytestmark = pytest.mark.torch_oracle


def _pairs() -> list[tuple[str, str]]:
    """Case pairs of one batch shape whose KL PyTorch computes without raising."""
    pairs = []
    for p_name, q_name in itertools.product(sorted(CASES), repeat=2):
        p, q = build(p_name, torch)[0], build(q_name, torch)[0]
        if p.batch_shape != q.batch_shape or p.event_shape != q.event_shape:
            continue
        try:
            torch.distributions.kl_divergence(p, q)
        except NotImplementedError:
            continue
        pairs.append((p_name, q_name))
    return pairs


PAIRS = _pairs()


def test_the_pairs_cover_most_registered_formulas() -> None:
    assert len(PAIRS) > 60


@pytest.mark.parametrize(("p_name", "q_name"), PAIRS)
def test_kl_values_and_gradients(p_name: str, q_name: str) -> None:
    (tp, tp_leaves), (tq, tq_leaves) = build(p_name, torch), build(q_name, torch)
    (gp, gp_leaves), (gq, gq_leaves) = build(p_name, glassgrad), build(q_name, glassgrad)
    expected = torch.distributions.kl_divergence(tp, tq)
    actual = kl_divergence(gp, gq)
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), rtol=1e-6, atol=1e-7)
    finite = torch.isfinite(expected)
    if not finite.all() or not expected.requires_grad:
        return
    their_grads = torch.autograd.grad(expected.sum(), tp_leaves + tq_leaves, allow_unused=True)
    our_grads = glassgrad.autograd.grad(actual.sum(), gp_leaves + gq_leaves, allow_unused=True)
    for mine, reference in zip(our_grads, their_grads, strict=True):
        if reference is not None:
            assert mine is not None
            np.testing.assert_allclose(mine.numpy(), reference.numpy(), rtol=1e-5, atol=1e-7)


def test_no_formula_raises_as_pytorch() -> None:
    p = glassgrad.distributions.Categorical(logits=glassgrad.zeros(3))
    q = glassgrad.distributions.Normal(0.0, 1.0)
    message = "No KL\\(p \\|\\| q\\) is implemented for p type Categorical and q type Normal"
    with pytest.raises(NotImplementedError, match=message):
        kl_divergence(p, q)


def test_register_kl_prefers_the_most_specific_pair_and_checks_its_types() -> None:
    class MyNormal(glassgrad.distributions.Normal):
        pass

    @register_kl(MyNormal, glassgrad.distributions.Normal)
    def _kl(p: Distribution, q: Distribution) -> glassgrad.Tensor:
        return glassgrad.tensor(-1.0)

    assert kl_divergence(MyNormal(0.0, 1.0), glassgrad.distributions.Normal(1.0, 1.0)).item() == -1.0
    assert kl_divergence(glassgrad.distributions.Normal(0.0, 1.0), MyNormal(0.0, 1.0)).item() == 0.0
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        register_kl(int, MyNormal)


def test_different_exponential_families_refuse_the_bregman_formula() -> None:
    # Poisson and Geometric are not a registered pair; the ExponentialFamily fallback refuses them as PyTorch does
    def kl(m: object) -> object:
        return m.distributions.kl_divergence(m.distributions.Poisson(m.tensor([1.0])),  # type: ignore[attr-defined]
                                             m.distributions.Exponential(m.tensor([1.0])))  # type: ignore[attr-defined]

    with pytest.raises(NotImplementedError) as theirs:
        kl(torch)
    with pytest.raises(NotImplementedError) as ours:
        kl(glassgrad)
    assert str(ours.value) == str(theirs.value)
