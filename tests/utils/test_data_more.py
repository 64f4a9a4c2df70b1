"""ChainDataset, StackDataset, WeightedRandomSampler and get_worker_info against PyTorch 2.13."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from ..nn.oracle import assert_raises_like_torch
from .test_data import as_lists

pytestmark = pytest.mark.torch_oracle


class Stream:
    """An iterable dataset of n numbered tensors, written once for either library."""

    def __init__(self, lib: Any, start: int, n: int) -> None:
        self.lib, self.start, self.n = lib, start, n

    def __iter__(self) -> Iterator[Any]:
        return (self.lib.tensor([float(self.start + i)]) for i in range(self.n))

    def __len__(self) -> int:
        return self.n


def _stream(lib: Any, start: int, n: int) -> Any:
    return type("S", (Stream, lib.utils.data.IterableDataset), {})(lib, start, n)


def test_chain_dataset_matches_torch() -> None:
    def run(lib: Any) -> Any:
        chain = lib.utils.data.ChainDataset([_stream(lib, 0, 3), _stream(lib, 10, 2)])
        loader = lib.utils.data.DataLoader(chain, batch_size=2)
        return len(chain), [as_lists(b) for b in loader]

    assert run(glassgrad) == run(torch)
    assert_raises_like_torch(lambda lib: list(lib.utils.data.ChainDataset([lib.utils.data.TensorDataset(lib.zeros(2))])))
    assert_raises_like_torch(lambda lib: len(lib.utils.data.ChainDataset([lib.utils.data.TensorDataset(lib.zeros(2))])))


@pytest.mark.parametrize("keyword", [False, True])
def test_stack_dataset_matches_torch(keyword: bool) -> None:
    def run(lib: Any) -> Any:
        images = lib.utils.data.TensorDataset(lib.arange(12.0).reshape(4, 3))
        labels = lib.utils.data.TensorDataset(lib.arange(4))
        stack = lib.utils.data.StackDataset(images=images, labels=labels) if keyword else lib.utils.data.StackDataset(images, labels)
        return len(stack), as_lists(stack[1]), [as_lists(b) for b in lib.utils.data.DataLoader(stack, batch_size=3)]

    assert run(glassgrad) == run(torch)


@pytest.mark.parametrize("call", [
    lambda lib: lib.utils.data.StackDataset(),
    lambda lib: lib.utils.data.StackDataset(lib.zeros(2), y=lib.zeros(2)),
    lambda lib: lib.utils.data.StackDataset(lib.zeros(2), lib.zeros(3)),
])
def test_stack_dataset_errors_like_torch(call: Any) -> None:
    assert_raises_like_torch(call)


def test_weighted_random_sampler_draws_from_glassgrad_generator_with_the_weights_distribution() -> None:
    weights = [0.1, 0.0, 0.6, 0.3]
    gen = glassgrad.Generator().manual_seed(0)
    sampler = glassgrad.utils.data.WeightedRandomSampler(weights, 20000, generator=gen)
    ref = torch.utils.data.WeightedRandomSampler(weights, 20000)
    assert len(sampler) == len(ref) == 20000
    assert sampler.weights.dtype == glassgrad.float64 and sampler.weights.tolist() == ref.weights.tolist()
    counts = np.bincount(list(sampler), minlength=4) / 20000
    np.testing.assert_allclose(counts, weights, atol=0.015)  # 20000 draws: a few standard deviations
    glassgrad.manual_seed(7)
    first = list(glassgrad.utils.data.WeightedRandomSampler(weights, 5))
    glassgrad.manual_seed(7)
    assert list(glassgrad.utils.data.WeightedRandomSampler(weights, 5)) == first  # the default generator's stream


def test_weighted_random_sampler_without_replacement_takes_each_index_once_heaviest_first_in_distribution() -> None:
    drawn = list(glassgrad.utils.data.WeightedRandomSampler([1.0, 2.0, 0.5, 3.0, 1.0], 5, replacement=False))
    assert sorted(drawn) == [0, 1, 2, 3, 4]
    # As torch.multinomial: zero weights come only after every positive one.
    assert next(iter(glassgrad.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0], 2, replacement=False))) == 1
    firsts = np.bincount([next(iter(glassgrad.utils.data.WeightedRandomSampler([1.0, 3.0], 2, replacement=False)))
                          for _ in range(4000)], minlength=2) / 4000
    np.testing.assert_allclose(firsts, [0.25, 0.75], atol=0.03)


@pytest.mark.parametrize("call", [
    lambda lib: lib.utils.data.WeightedRandomSampler([1.0, 2.0], 0),
    lambda lib: lib.utils.data.WeightedRandomSampler([1.0, 2.0], 2, replacement=1),
    lambda lib: lib.utils.data.WeightedRandomSampler([[1.0, 2.0]], 2),
    lambda lib: list(lib.utils.data.WeightedRandomSampler([1.0, -2.0], 2)),
    lambda lib: list(lib.utils.data.WeightedRandomSampler([0.0, 0.0], 2)),
    lambda lib: list(lib.utils.data.WeightedRandomSampler([1.0, 2.0], 3, replacement=False)),
])
def test_weighted_random_sampler_errors_like_torch(call: Any) -> None:
    assert_raises_like_torch(call)


def test_get_worker_info_is_none_in_the_main_process_and_in_a_loaded_dataset() -> None:
    assert glassgrad.utils.data.get_worker_info() is torch.utils.data.get_worker_info() is None

    class Seen(glassgrad.utils.data.Dataset):
        def __getitem__(self, i: int) -> Any:
            return glassgrad.tensor(float(glassgrad.utils.data.get_worker_info() is None))

        def __len__(self) -> int:
            return 4

    batches = list(glassgrad.utils.data.DataLoader(Seen(), batch_size=2, num_workers=2))
    assert [b.tolist() for b in batches] == [[1.0, 1.0], [1.0, 1.0]]
