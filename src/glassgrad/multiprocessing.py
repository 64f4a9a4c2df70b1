"""torch.multiprocessing: the standard library's multiprocessing, plus PyTorch's spawn and sharing strategies.

As in PyTorch, every name of `multiprocessing` is here (Process, Queue, get_context, ...). glassgrad's
tensors pickle as NumPy arrays, so a tensor sent through a Queue arrives as a copy (PyTorch moves its storage
into shared memory instead); the sharing strategies are recorded and reported, and change nothing else.
`spawn` and `start_processes` run fn(i, *args) in nprocs processes and raise in the parent what a child raised.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import sys
import traceback
from collections.abc import Callable
from multiprocessing import *  # noqa: F403
from typing import Any

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", *multiprocessing.__all__]

_SHARING_STRATEGIES = {"file_descriptor", "file_system"}
_sharing_strategy = "file_descriptor"  # Linux's default in PyTorch


def get_all_sharing_strategies() -> set[str]:
    return set(_SHARING_STRATEGIES)


def get_sharing_strategy() -> str:
    return _sharing_strategy


def set_sharing_strategy(new_strategy: str) -> None:
    global _sharing_strategy
    if new_strategy not in _SHARING_STRATEGIES:
        raise AssertionError(f"Invalid sharing strategy {new_strategy}")
    _sharing_strategy = new_strategy


class ProcessException(Exception):
    def __init__(self, msg: str, error_index: int, pid: int) -> None:
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised: the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process ended with a nonzero exit code (or a signal) without raising."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name: str | None = None) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _run(fn: Callable[..., Any], index: int, args: tuple[Any, ...], errors: Any) -> None:
    try:
        fn(index, *args)
    except KeyboardInterrupt:
        pass  # the parent is being interrupted too
    except Exception:
        errors.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    def __init__(self, processes: list[Any], error_queues: list[Any]) -> None:
        self.processes, self.error_queues = processes, error_queues
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self) -> list[int]:
        return [int(process.pid) for process in self.processes]

    def join(self, timeout: float | None = None) -> bool:
        """True once every process has ended well; raises for the first that did not (ending the others)."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        for process in self.processes:
            if process.is_alive():
                process.terminate()
            process.join()
        self._raise(failed)
        return False  # not reached

    def _raise(self, index: int) -> None:
        process = self.processes[index]
        if self.error_queues[index].empty():
            code = process.exitcode
            if code < 0:
                import signal

                name = signal.Signals(-code).name
                raise ProcessExitedException(
                    f"process {index} terminated with signal {name}", index, process.pid, code, name
                )
            raise ProcessExitedException(f"process {index} terminated with exit code {code}", index, process.pid, code)
        trace = self.error_queues[index].get()
        message = f"\n\n-- Process {index} terminated with the following error:\n" + trace
        raise ProcessRaisedException(message, index, process.pid)


SpawnContext = ProcessContext  # PyTorch's older name for it


def init_reductions() -> None:
    """PyTorch registers how its tensors pickle into shared memory; glassgrad's pickle as plain arrays."""


def start_processes(
    fn: Callable[..., Any],
    args: tuple[Any, ...] = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None:
    """fn(i, *args) in nprocs processes made by `start_method`; with join, wait for all of them."""
    context = multiprocessing.get_context(start_method)
    processes, error_queues = [], []
    for index in range(nprocs):
        errors = context.SimpleQueue()
        process = context.Process(target=_run, args=(fn, index, args, errors), daemon=daemon)
        process.start()
        processes.append(process)
        error_queues.append(errors)
    started = ProcessContext(processes, error_queues)
    if not join:
        return started
    while not started.join():
        pass
    return None


def spawn(
    fn: Callable[..., Any], args: tuple[Any, ...] = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None:
    return start_processes(fn, args, nprocs, join, daemon, start_method)
