"""Every distribution against PyTorch 2.13, case by case (tests/distributions/cases.py): shapes, moments,
entropy, log_prob and its gradients with respect to the parameters, cdf and icdf, enumerate_support, expand,
and NotImplementedError exactly where PyTorch raises it. log_prob is evaluated at values PyTorch drew."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from .cases import CASES, build

# PyTorch 2.13's Wishart warns "Singular sample detected." for positive-definite draws too (its check of the
# draws counts the valid ones); glassgrad warns only for singular draws, so the warning is PyTorch's here.
pytestmark = [pytest.mark.torch_oracle, pytest.mark.filterwarnings("ignore:Singular sample detected")]


def _both(name: str) -> tuple[Any, list[Any], Any, list[Any]]:
    ours, our_leaves = build(name, glassgrad)
    theirs, their_leaves = build(name, torch)
    return ours, our_leaves, theirs, their_leaves


def _close(ours: Any, theirs: Any, rtol: float = 1e-6, atol: float = 1e-7) -> None:
    # atol 1e-7: PyTorch's VonMises normalizer is a polynomial approximation good to about that
    expected = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else np.asarray(theirs)
    actual = ours.detach().numpy() if isinstance(ours, glassgrad.Tensor) else np.asarray(ours)
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)


def _same_outcome(ours: Callable[[], Any], theirs: Callable[[], Any], **tolerance: float) -> None:
    """Both compute the same value, or both raise NotImplementedError."""
    try:
        expected = theirs()
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            ours()
        return
    _close(ours(), expected, **tolerance)


def _values(theirs: Any) -> np.ndarray:
    torch.manual_seed(0)
    return theirs.sample((4,)).detach().numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_shapes_and_support(name: str) -> None:
    ours, _, theirs, _ = _both(name)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert ours.has_rsample == theirs.has_rsample
    assert ours.has_enumerate_support == theirs.has_enumerate_support
    assert repr(ours.support).split("(")[0] == repr(theirs.support).split("(")[0]
    assert ours.support.event_dim == theirs.support.event_dim


@pytest.mark.parametrize("moment", ["mean", "variance", "stddev", "mode", "entropy"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_moments_and_entropy(name: str, moment: str) -> None:
    ours, _, theirs, _ = _both(name)
    get = (lambda d: d.entropy()) if moment == "entropy" else (lambda d: getattr(d, moment))
    _same_outcome(lambda: get(ours), lambda: get(theirs), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_and_its_gradients(name: str) -> None:
    ours, our_leaves, theirs, their_leaves = _both(name)
    values = _values(theirs)
    expected = theirs.log_prob(torch.tensor(values))
    actual = ours.log_prob(glassgrad.tensor(values))
    _close(actual, expected)
    if not their_leaves:
        return
    their_grads = torch.autograd.grad(expected.sum(), their_leaves, allow_unused=True)
    our_grads = glassgrad.autograd.grad(actual.sum(), our_leaves, allow_unused=True)
    for mine, reference in zip(our_grads, their_grads, strict=True):
        if reference is None:
            assert mine is None or not mine.abs().sum().item()
        else:
            _close(mine, reference, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_second_derivatives(name: str) -> None:
    """The gradient of (the sum of) log_prob's first derivatives: a Hessian-vector product, through the same
    formulas differentiated twice."""
    ours, our_leaves, theirs, their_leaves = _both(name)
    if not their_leaves:
        return
    values = _values(theirs)

    def hessian_vector(m: Any, dist: Any, leaves: list[Any]) -> tuple[Any, ...]:
        first = m.autograd.grad(dist.log_prob(m.tensor(values)).sum(), leaves, create_graph=True, allow_unused=True)
        total = sum(g.sum() for g in first if g is not None and g.requires_grad)
        if not isinstance(total, m.Tensor):  # log_prob is linear in every parameter
            return (None,) * len(leaves)
        return m.autograd.grad(total, leaves, allow_unused=True)

    for mine, reference in zip(hessian_vector(glassgrad, ours, our_leaves),
                               hessian_vector(torch, theirs, their_leaves), strict=True):
        if reference is None:
            assert mine is None or not mine.abs().sum().item()
        else:
            _close(mine, reference, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", sorted(CASES))
def test_cdf_and_icdf(name: str) -> None:
    ours, _, theirs, _ = _both(name)
    values = _values(theirs)
    _same_outcome(lambda: ours.cdf(glassgrad.tensor(values)), lambda: theirs.cdf(torch.tensor(values)))
    shape = (*theirs.batch_shape, *theirs.event_shape)
    quantiles = np.broadcast_to(np.array([0.1, 0.5, 0.9]).reshape((3,) + (1,) * len(shape)), (3, *shape)).copy()
    _same_outcome(lambda: ours.icdf(glassgrad.tensor(quantiles)), lambda: theirs.icdf(torch.tensor(quantiles)))


@pytest.mark.parametrize("expand", [True, False])
@pytest.mark.parametrize("name", sorted(CASES))
def test_enumerate_support(name: str, expand: bool) -> None:
    ours, _, theirs, _ = _both(name)
    _same_outcome(lambda: ours.enumerate_support(expand), lambda: theirs.enumerate_support(expand))


@pytest.mark.parametrize("name", sorted(CASES))
def test_expand(name: str) -> None:
    ours, _, theirs, _ = _both(name)
    shape = (2, *theirs.batch_shape)
    their_expanded = theirs.expand(shape)
    our_expanded = ours.expand(shape)
    assert type(our_expanded).__name__ == type(their_expanded).__name__
    assert tuple(our_expanded.batch_shape) == tuple(their_expanded.batch_shape)
    values = _values(their_expanded)
    _close(our_expanded.log_prob(glassgrad.tensor(values)), their_expanded.log_prob(torch.tensor(values)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_sample_shapes(name: str) -> None:
    ours, _, theirs, _ = _both(name)
    for shape in [(), (5,), (2, 3)]:
        assert tuple(ours.sample(shape).shape) == tuple(theirs.sample(shape).shape)
    assert ours.sample().dtype.is_floating_point == theirs.sample().dtype.is_floating_point
