"""DistributedSampler: each rank of a data-parallel job visits its own share of the dataset."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sized

from ...ops.creation import Generator, randperm
from .sampler import Sampler


class DistributedSampler(Sampler):
    """PyTorch's partition: the (shuffled) indices padded by wrapping around to a multiple of the world size, or
    cut to one with drop_last, and rank r takes every num_replicas-th index from r. With shuffle=True every rank
    draws the same permutation from glassgrad's generator seeded with seed + epoch (call set_epoch each epoch)."""

    def __init__(
        self,
        dataset: Sized,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        if num_replicas is None or rank is None:
            from ... import distributed

            num_replicas = distributed.get_world_size() if num_replicas is None else num_replicas
            rank = distributed.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        self.shuffle = shuffle
        self.seed = seed
        size = len(dataset)
        # With drop_last the tail that cannot be split evenly is left out; otherwise the indices wrap around.
        uneven = drop_last and size % num_replicas != 0
        self.num_samples = math.ceil((size - num_replicas) / num_replicas) if uneven else math.ceil(size / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self) -> Iterator[int]:
        size = len(self.dataset)
        if self.shuffle:
            generator = Generator()
            generator.manual_seed(self.seed + self.epoch)
            indices = randperm(size, generator=generator).tolist()
        else:
            indices = list(range(size))
        if self.drop_last:
            indices = indices[: self.total_size]
        else:
            missing = self.total_size - len(indices)
            indices += (indices * math.ceil(missing / len(indices)))[:missing] if missing else []
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Shuffle differently in each epoch (the same way on every rank)."""
        self.epoch = epoch
