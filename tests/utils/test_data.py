"""DataLoader, datasets, samplers and collation against PyTorch 2.13."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad
from glassgrad.ops.creation import Generator  # not yet exported as glassgrad.Generator
from glassgrad.utils import data


def as_lists(batch):
    if isinstance(batch, (list, tuple)):
        return [as_lists(b) for b in batch]
    if isinstance(batch, dict):
        return {k: as_lists(v) for k, v in batch.items()}
    return (batch.tolist(), str(batch.dtype).split(".")[-1])


@pytest.mark.torch_oracle
@pytest.mark.parametrize("batch_size,drop_last", [(4, False), (4, True), (3, False), (None, False)])
def test_tensor_dataset_batches_match_torch(batch_size, drop_last) -> None:
    x, y = np.arange(30.0).reshape(10, 3), np.arange(10)

    def batches(lib):
        ds = lib.utils.data.TensorDataset(lib.tensor(x, dtype=lib.float32), lib.tensor(y))
        loader = lib.utils.data.DataLoader(ds, batch_size=batch_size, drop_last=drop_last)
        return len(loader), [as_lists(b) for b in loader]

    assert batches(glassgrad) == batches(torch)


class Samples:
    def __init__(self, lib):
        self.lib = lib

    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": self.lib.full((2,), float(i)), "label": i, "weight": i / 2, "name": f"s{i}", "pair": (i, np.float32(i))}


@pytest.mark.torch_oracle
def test_default_collate_of_dicts_numbers_strings_and_tuples_matches_torch() -> None:
    def batches(lib):
        return [as_lists({k: v for k, v in b.items() if k != "name"}) | {"name": b["name"]} for b in lib.utils.data.DataLoader(Samples(lib), batch_size=2)]

    assert batches(glassgrad) == batches(torch)


def test_shuffle_with_a_generator_is_reproducible_and_a_permutation() -> None:
    ds = data.TensorDataset(glassgrad.arange(20))

    def order(seed):
        g = Generator().manual_seed(seed)
        return [int(v) for (b,) in data.DataLoader(ds, batch_size=6, shuffle=True, generator=g) for v in b]

    assert order(3) == order(3) and sorted(order(3)) == list(range(20)) and order(3) != list(range(20))


def test_samplers_random_split_and_subset() -> None:
    assert list(data.BatchSampler(data.SequentialSampler(range(7)), 3, drop_last=False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(data.BatchSampler(range(7), 3, drop_last=True)) == 2
    parts = data.random_split(range(10), [0.5, 0.3, 0.2], generator=Generator().manual_seed(0))
    assert [len(p) for p in parts] == [5, 3, 2]
    assert sorted(i for p in parts for i in p) == list(range(10))
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        data.random_split(range(10), [3, 3])
    sub = data.Subset(data.TensorDataset(glassgrad.arange(5) * 10), [4, 0])
    assert len(sub) == 2 and int(sub[0][0]) == 40
    loader = data.DataLoader(data.TensorDataset(glassgrad.arange(6)), sampler=data.RandomSampler(range(6)), batch_size=6)
    assert sorted(next(iter(loader))[0].tolist()) == list(range(6))


def test_iterable_dataset_and_argument_errors() -> None:
    class Stream(data.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    assert [b.tolist() for b in data.DataLoader(Stream(), batch_size=3, num_workers=2)] == [[0, 1, 2], [3, 4, 5], [6]]
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        data.DataLoader(Stream(), shuffle=True)
    ds = data.TensorDataset(glassgrad.arange(4))
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        data.DataLoader(ds, shuffle=True, sampler=[0, 1])
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        data.DataLoader(ds, batch_size=2, batch_sampler=[[0, 1]])
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        data.TensorDataset(glassgrad.arange(4), glassgrad.arange(3))
    from glassgrad.utils.data.dataloader import DataLoader

    assert DataLoader is data.DataLoader


@pytest.mark.torch_oracle
def test_sampling_with_replacement_draws_lazily_as_torch() -> None:
    """minGPT's trainer loops over RandomSampler(..., replacement=True, num_samples=int(1e10)) and stops when it likes."""

    def first(lib):
        sampler = lib.utils.data.RandomSampler(range(7), replacement=True, num_samples=int(1e10))
        loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.arange(7)), sampler=sampler, batch_size=40)
        batch = next(iter(loader))[0]
        return len(sampler), len(loader), batch.shape[0], int(batch.min()) >= 0 and int(batch.max()) < 7

    assert first(glassgrad) == first(torch)
    counts = np.bincount(list(data.RandomSampler(range(3), replacement=True, num_samples=3001)), minlength=3)
    assert counts.sum() == 3001 and counts.min() > 900
