"""DataLoader: batches from a dataset through a sampler and a collate function.

`num_workers`, `pin_memory`, `timeout`, `worker_init_fn`, `prefetch_factor` and `persistent_workers`
are accepted so that PyTorch scripts run unchanged, but loading always happens in the calling
process (NumPy releases no GIL worth a worker pool here); batches and their order are what
`num_workers=0` gives in PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ...ops.creation import Generator
from ._utils.collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler


class DataLoader:
    def __init__(
        self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
        sampler: Sampler | Iterable[int] | None = None, batch_sampler: Sampler | Iterable[list[int]] | None = None,
        num_workers: int = 0, collate_fn: Callable[[list[Any]], Any] | None = None, pin_memory: bool = False,
        drop_last: bool = False, timeout: float = 0, worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None, generator: Generator | None = None, *, prefetch_factor: int | None = None,
        persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.generator = generator
        # accepted and kept (Lightning reads them back to rebuild a loader), though loading stays in this process
        self.multiprocessing_context = multiprocessing_context
        self.pin_memory_device = pin_memory_device
        self.in_order = in_order
        self._iterator = None  # PyTorch's persistent-workers iterator; Lightning resets it between epochs
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but got batch_sampler={batch_sampler}"
                )
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)  # type: ignore[arg-type]
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)  # type: ignore[arg-type]
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self._auto_collation = batch_sampler is not None or (self._iterable and batch_size is not None)
        self.collate_fn = collate_fn or (default_collate if self._auto_collation else default_convert)

    def __iter__(self) -> _BaseDataLoaderIter:
        return _SingleProcessDataLoaderIter(self)

    def _batches(self) -> Iterator[Any]:
        if self._iterable:
            return self._iterate_stream()
        if self._auto_collation:
            return (self.collate_fn([self.dataset[i] for i in indices]) for indices in self.batch_sampler)  # type: ignore[union-attr]
        return (self.collate_fn(self.dataset[i]) for i in self.sampler)  # type: ignore[union-attr]

    def _iterate_stream(self) -> Iterator[Any]:
        if not self._auto_collation:
            yield from (self.collate_fn(sample) for sample in self.dataset)  # type: ignore[attr-defined]
            return
        batch: list[Any] = []
        for sample in self.dataset:  # type: ignore[attr-defined]
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self._auto_collation else self.sampler)  # type: ignore[arg-type]


class _BaseDataLoaderIter:
    """What iter(DataLoader) gives: the batches one at a time (Lightning tests iterators against this class)."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._batches = loader._batches()
        self._num_yielded = 0

    def __iter__(self) -> _BaseDataLoaderIter:
        return self

    def __next__(self) -> Any:
        batch = next(self._batches)
        self._num_yielded += 1
        return batch

    def __len__(self) -> int:
        return len(self._loader)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    pass


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Never made here (loading always happens in the calling process); named for isinstance checks."""
