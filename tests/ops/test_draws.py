"""torch.normal, torch.bernoulli, torch.poisson and torch.multinomial (and randint_like) beyond the OpInfos: the graph PyTorch records for a
sample (zero gradients, or a node that refuses) and the statistics of glassgrad's own stream.

MorvanZhou's tutorials draw their toy data with torch.normal, and minGPT and yunjey's language model sample
their next token with torch.multinomial (docs/real-programs.md).
"""

from __future__ import annotations

import numpy as np
import pytest

import glassgrad

from ..outcome import assert_same_outcome, statements

GRAPHS = [
    statements(
        "m.manual_seed(0)\nmean = m.zeros(3, 1, requires_grad=True)\nstd = m.ones(3, requires_grad=True)\n"
        "y = m.normal(mean, std)\n(y * y).sum().backward()\nr = (type(y.grad_fn).__name__, y.shape, mean.grad, std.grad)"
    ),
    statements("x = m.zeros(2, requires_grad=True)\ny = m.normal(x, 2.0)\ny.sum().backward()\nr = (type(y.grad_fn).__name__, x.grad)"),
    statements("s = m.ones(2, requires_grad=True)\ny = m.normal(1.0, s)\ny.sum().backward()\nr = (type(y.grad_fn).__name__, s.grad)"),
    statements("r = m.normal(0.0, 1.0, (2,), requires_grad=True).requires_grad"),
    statements("r = m.normal(m.zeros(2, requires_grad=True)).detach().requires_grad"),
    statements("with m.no_grad():\n    r = m.normal(m.zeros(2, requires_grad=True)).requires_grad"),
    statements("p = m.full((3,), 0.5, requires_grad=True)\ny = m.bernoulli(p)\ny.sum().backward()\nr = (type(y.grad_fn).__name__, p.grad)"),
    statements("p = m.full((3,), 0.5, requires_grad=True)\ny = m.bernoulli(p, 0.3)\nr = type(y.grad_fn).__name__\ny.sum().backward()"),
    statements("p = m.tensor([0.2, 0.8], requires_grad=True)\ny = m.multinomial(p, 1)\nr = (y.dtype, y.requires_grad, y.grad_fn)"),
    statements("r = m.multinomial(m.tensor([0.0, 1.0, 2.0]), 3).sort().values"),
    statements("r = m.multinomial(m.tensor([[0.0, 1.0], [1.0, 0.0]]), 3, replacement=True)"),
    statements("r = m.multinomial(m.tensor([0.0, 0.0, 5.0]), 1)"),
    statements("r = m.bernoulli(m.tensor([0.0, 1.0, 1.0, 0.0], dtype=m.float64))"),
    statements("r = m.bernoulli(m.zeros(2, 2), 1.0)"),
    statements("x = m.tensor([1.0, 4.0], requires_grad=True)\ny = m.poisson(x)\ny.sum().backward()\nr = (type(y.grad_fn).__name__, x.grad)"),
    statements("r = m.poisson(m.zeros(3, dtype=m.float16))"),
    statements("x = m.tensor([[1.0], [2.0]])\nr = (m.randint_like(x, 3, 4), m.randint_like(x, 1, dtype=m.int64))"),
    statements("r = m.randint_like(m.ones(2), 5, requires_grad=True).requires_grad"),
    statements("r = m.randint_like(m.ones(2), low=2, high=3)"),
    statements("r = m.thread_safe_generator()"),
]


@pytest.mark.torch_oracle
@pytest.mark.parametrize("snippet", GRAPHS)
def test_outcome_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)


def test_statistics_of_the_draws() -> None:
    glassgrad.manual_seed(0)
    x = glassgrad.normal(glassgrad.full((200_000,), 3.0), 2.0).numpy()
    assert abs(x.mean() - 3) < 0.02 and abs(x.std() - 2) < 0.02
    y = glassgrad.normal(-1.0, 0.5, (200_000,)).numpy()
    assert abs(y.mean() + 1) < 0.01 and abs(y.std() - 0.5) < 0.01
    b = glassgrad.bernoulli(glassgrad.full((200_000,), 0.3)).numpy()
    assert set(np.unique(b)) == {0.0, 1.0} and abs(b.mean() - 0.3) < 0.01
    counts = np.bincount(glassgrad.multinomial(glassgrad.tensor([1.0, 2.0, 7.0]), 100_000, replacement=True).numpy(), minlength=3)
    np.testing.assert_allclose(counts / 100_000, [0.1, 0.2, 0.7], atol=0.01)
    rows = glassgrad.multinomial(glassgrad.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]), 5, replacement=True).numpy()
    assert (rows[0] == 0).all() and (rows[1] == 2).all()


def test_poisson_counts_have_the_rates_as_mean_and_variance() -> None:
    glassgrad.manual_seed(0)
    counts = glassgrad.poisson(glassgrad.full((200_000,), 3.0)).numpy()
    assert (counts == np.round(counts)).all() and abs(counts.mean() - 3) < 0.02 and abs(counts.var() - 3) < 0.05


def test_rng_state_round_trips_through_set_rng_state() -> None:
    glassgrad.manual_seed(5)
    glassgrad.rand(3)
    state = glassgrad.get_rng_state()
    first = (glassgrad.randn(4), glassgrad.randint(0, 9, (4,)), glassgrad.poisson(glassgrad.ones(4)))
    glassgrad.set_rng_state(state)
    again = (glassgrad.randn(4), glassgrad.randint(0, 9, (4,)), glassgrad.poisson(glassgrad.ones(4)))
    assert all(a.tolist() == b.tolist() for a, b in zip(first, again, strict=True))
    assert state.dtype is glassgrad.uint8 and glassgrad.get_rng_state().tolist() != state.tolist()


def test_without_replacement_each_category_once_and_likelier_first() -> None:
    glassgrad.manual_seed(0)
    draws = np.stack([glassgrad.multinomial(glassgrad.tensor([1.0, 10.0, 100.0, 0.0]), 4).numpy() for _ in range(300)])
    assert (np.sort(draws, axis=1) == np.arange(4)).all()
    assert (draws[:, -1] == 3).all()  # the zero-probability category is only taken when nothing else is left
    assert (draws[:, 0] == 2).mean() > 0.85


def test_a_generator_gives_its_own_repeatable_stream() -> None:
    g = glassgrad.Generator().manual_seed(5)
    first = glassgrad.normal(0.0, 1.0, (4,), generator=g).numpy()
    g.manual_seed(5)
    np.testing.assert_array_equal(glassgrad.normal(0.0, 1.0, (4,), generator=g).numpy(), first)
