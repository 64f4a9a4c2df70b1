"""manual_seed, seed and initial_seed: the global stream's contract (streams need not match PyTorch's values)."""

from __future__ import annotations

import numpy as np

import glassgrad


def test_manual_seed_repeats_the_stream() -> None:
    glassgrad.manual_seed(123)
    first = (glassgrad.rand(3).numpy(), glassgrad.randn(2, 2).numpy(), glassgrad.randint(0, 10, (4,)).numpy())
    glassgrad.manual_seed(123)
    again = (glassgrad.rand(3).numpy(), glassgrad.randn(2, 2).numpy(), glassgrad.randint(0, 10, (4,)).numpy())
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)


def test_manual_seed_returns_the_generator_and_sets_initial_seed() -> None:
    generator = glassgrad.manual_seed(42)
    assert generator.initial_seed() == 42 == glassgrad.initial_seed()


def test_seed_picks_a_fresh_seed_and_records_it() -> None:
    chosen = glassgrad.seed()
    assert isinstance(chosen, int) and chosen == glassgrad.initial_seed()
    glassgrad.manual_seed(chosen)
    a = glassgrad.rand(4).numpy()
    glassgrad.manual_seed(chosen)
    np.testing.assert_array_equal(a, glassgrad.rand(4).numpy())


def test_different_seeds_give_different_streams() -> None:
    glassgrad.manual_seed(1)
    a = glassgrad.rand(8).numpy()
    glassgrad.manual_seed(2)
    assert not np.array_equal(a, glassgrad.rand(8).numpy())
