"""Draws: reproducible under manual_seed, of the right law (checked with fixed seeds against PyTorch's exact
moments and cdfs, with margins of many standard errors, so a check cannot fail by chance), and with
PyTorch's reparameterized gradients: pathwise for location-scale families, implicit for Gamma, Beta and
Dirichlet (checked against -(dF/dalpha) / density from SciPy)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.special
import scipy.stats
import torch

import glassgrad

from .cases import CASES, build

# PyTorch's Wishart warns for valid draws too (see test_against_torch.py)
pytestmark = [pytest.mark.torch_oracle, pytest.mark.filterwarnings("ignore:Singular sample detected")]

N = 20000


@pytest.mark.parametrize("name", sorted(CASES))
def test_manual_seed_makes_draws_reproducible(name: str) -> None:
    dist, _ = build(name, glassgrad)
    glassgrad.manual_seed(3)
    first = dist.sample((5,))
    glassgrad.manual_seed(3)
    assert np.array_equal(dist.sample((5,)).numpy(), first.numpy())


def _moment_cases() -> list[str]:
    """Cases whose mean and variance PyTorch gives as finite numbers (VonMises's are circular: left out)."""
    names = []
    for name in sorted(set(CASES) - {"von_mises"}):
        dist, _ = build(name, torch)
        try:
            mean, variance = dist.mean, dist.variance
        except NotImplementedError:
            continue
        if torch.isfinite(mean).all() and torch.isfinite(variance).all():
            names.append(name)
    return names


@pytest.mark.parametrize("name", _moment_cases())
def test_sample_means_agree_with_pytorchs_means(name: str) -> None:
    ours, _ = build(name, glassgrad)
    theirs, _ = build(name, torch)
    glassgrad.manual_seed(0)
    draws = ours.sample((N,)).numpy().astype(np.float64)
    mean = theirs.mean.detach().numpy()
    standard_error = np.sqrt(theirs.variance.detach().numpy() / N)
    assert np.all(np.abs(draws.mean(0) - mean) <= 6 * standard_error + 1e-12)


def _cdf_cases() -> list[str]:
    names = []
    for name in sorted(CASES):
        dist, _ = build(name, torch)
        try:
            with warnings.catch_warnings():  # collection runs outside the module's filterwarnings mark
                warnings.simplefilter("ignore")
                dist.cdf(dist.sample())
        except NotImplementedError:
            continue
        names.append(name)
    return names


@pytest.mark.parametrize("name", _cdf_cases())
def test_draws_follow_pytorchs_cdf(name: str) -> None:
    """Kolmogorov-Smirnov distance per batch element, against the bound that a sample of N exceeds with
    probability 1e-9 (fixed seed: the outcome is the same on every run)."""
    ours, _ = build(name, glassgrad)
    theirs, _ = build(name, torch)
    glassgrad.manual_seed(1)
    draws = np.sort(ours.sample((N,)).numpy().astype(np.float64), axis=0)
    cdf = theirs.cdf(torch.tensor(draws, dtype=theirs.mean.dtype)).detach().numpy()
    steps = np.arange(1, N + 1).reshape((N,) + (1,) * (draws.ndim - 1)) / N
    distance = np.max(np.maximum(steps - cdf, cdf - (steps - 1 / N)), axis=0)
    assert np.all(distance < np.sqrt(np.log(2 / 1e-9) / (2 * N)))


def test_pathwise_gradients_of_normal() -> None:
    loc = glassgrad.tensor([0.5, -1.0], requires_grad=True)
    scale = glassgrad.tensor([1.0, 2.0], requires_grad=True)
    glassgrad.manual_seed(0)
    x = glassgrad.distributions.Normal(loc, scale).rsample()
    x.sum().backward()
    assert np.allclose(loc.grad.numpy(), 1.0)
    assert np.allclose(scale.grad.numpy(), ((x - loc) / scale).detach().numpy())


@pytest.mark.parametrize("alpha", [0.05, 0.5, 1.0, 4.0, 50.0])
def test_gamma_implicit_gradient(alpha: float) -> None:
    concentration = glassgrad.full((200,), alpha, dtype=glassgrad.float64, requires_grad=True)
    glassgrad.manual_seed(0)
    x = glassgrad.distributions.Gamma(concentration, 1.0).rsample()
    x.sum().backward()
    xs = x.detach().numpy()
    step = 1e-5 * alpha
    d_cdf = (scipy.special.gammainc(alpha + step, xs) - scipy.special.gammainc(alpha - step, xs)) / (2 * step)
    expected = -d_cdf / scipy.stats.gamma.pdf(xs, alpha)
    np.testing.assert_allclose(concentration.grad.numpy(), expected, rtol=1e-4, atol=1e-12)


@pytest.mark.parametrize(("a", "b"), [(0.1, 0.1), (0.5, 3.0), (2.0, 2.0), (10.0, 1.0)])
def test_beta_implicit_gradients(a: float, b: float) -> None:
    alpha = glassgrad.full((100,), a, dtype=glassgrad.float64, requires_grad=True)
    beta = glassgrad.full((100,), b, dtype=glassgrad.float64, requires_grad=True)
    glassgrad.manual_seed(0)
    x = glassgrad.distributions.Beta(alpha, beta).rsample()
    x.sum().backward()
    xs = x.detach().numpy()
    density = scipy.stats.beta.pdf(xs, a, b)
    step_a, step_b = 1e-5 * a, 1e-5 * b
    d_a = (scipy.special.betainc(a + step_a, b, xs) - scipy.special.betainc(a - step_a, b, xs)) / (2 * step_a)
    d_b = (scipy.special.betainc(a, b + step_b, xs) - scipy.special.betainc(a, b - step_b, xs)) / (2 * step_b)
    np.testing.assert_allclose(alpha.grad.numpy(), -d_a / density, rtol=1e-3, atol=1e-10)
    np.testing.assert_allclose(beta.grad.numpy(), -d_b / density, rtol=1e-3, atol=1e-10)


def test_dirichlet_gradient_keeps_draws_on_the_simplex() -> None:
    """Moving any concentration moves the coordinates so that they still sum to one: the gradient of the
    sum of the coordinates is zero."""
    concentration = glassgrad.tensor([[0.5, 1.0, 3.0]] * 50, dtype=glassgrad.float64, requires_grad=True)
    glassgrad.manual_seed(0)
    x = glassgrad.distributions.Dirichlet(concentration).rsample()
    (grad,) = glassgrad.autograd.grad(x.sum(), concentration, retain_graph=True)
    assert np.allclose(grad.numpy(), 0.0, atol=1e-8)
    (grad_first,) = glassgrad.autograd.grad(x[:, 0].sum(), concentration)
    assert (grad_first[:, 0] > 0).all()  # more of the first concentration, more of the first coordinate


def test_sampling_functions_raise_as_pytorch() -> None:
    for m in (torch, glassgrad):
        with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
            m._standard_gamma(m.tensor([1, 2]))
        with pytest.raises(ValueError, match="binomial only supports floating-point dtypes for count"):
            m.binomial(m.tensor([3, 4]), m.tensor([0.5, 0.5]))
        x = m.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="derivative for aten::_sample_dirichlet is not implemented"):
            m._sample_dirichlet(x).sum().backward()


def test_second_derivative_through_a_gamma_draw_refuses_as_pytorch() -> None:
    for m in (torch, glassgrad):
        alpha = m.tensor([2.0], requires_grad=True)
        (grad,) = m.autograd.grad(m._standard_gamma(alpha).sum(), alpha, create_graph=True)
        with pytest.raises(NotImplementedError, match="the derivative for '_standard_gamma_grad' is not implemented"):
            m.autograd.grad(grad.sum(), alpha)
