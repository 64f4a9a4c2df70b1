"""torch.multiprocessing against PyTorch's: the standard library's names, sharing strategies, and spawn
running fn(i, *args) in each process and raising in the parent what a child raised."""

from __future__ import annotations

import multiprocessing

import pytest
import torch.multiprocessing as torch_mp

import glassgrad.multiprocessing as mp

pytestmark = pytest.mark.torch_oracle


def test_the_namespace_is_the_standard_librarys_plus_pytorchs() -> None:
    assert set(mp.__all__) == set(torch_mp.__all__)
    assert mp.Queue is multiprocessing.Queue and mp.get_context is multiprocessing.get_context


def test_sharing_strategies_read_as_pytorchs() -> None:
    assert mp.get_all_sharing_strategies() == torch_mp.get_all_sharing_strategies()
    assert mp.get_sharing_strategy() == torch_mp.get_sharing_strategy()
    mp.set_sharing_strategy("file_system")
    assert mp.get_sharing_strategy() == "file_system"
    mp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError):
        mp.set_sharing_strategy("shared_cuda")


def _write_rank(rank: int, queue) -> None:
    queue.put(rank * 10)


def _fail_on_rank_one(rank: int) -> None:
    if rank == 1:
        raise ValueError("rank one failed")


def _exit_with_three(rank: int) -> None:
    raise SystemExit(3)


def test_spawn_runs_fn_with_each_rank() -> None:
    context = multiprocessing.get_context("fork")
    queue = context.SimpleQueue()
    mp.spawn(_write_rank, args=(queue,), nprocs=3, start_method="fork")
    assert sorted(queue.get() for _ in range(3)) == [0, 10, 20]


def test_a_child_that_raises_raises_in_the_parent_with_its_traceback() -> None:
    with pytest.raises(mp.ProcessRaisedException, match="rank one failed") as raised:
        mp.spawn(_fail_on_rank_one, nprocs=2, start_method="fork")
    assert raised.value.error_index == 1
    assert "-- Process 1 terminated with the following error:" in str(raised.value)


def test_a_child_that_exits_badly_raises_process_exited() -> None:
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3") as raised:
        mp.start_processes(_exit_with_three, nprocs=1, start_method="fork")
    assert raised.value.exit_code == 3


def test_without_join_the_context_is_returned() -> None:
    context = mp.start_processes(_fail_on_rank_one, nprocs=1, join=False, start_method="fork")
    assert len(context.pids()) == 1
    while not context.join():
        pass
