"""torch.multiprocessing: the standard library's multiprocessing, plus PyTorch's spawn, sharing strategies and tensor
sharing.

As in PyTorch, every name of `multiprocessing` is here (Process, Queue, get_context, ...), and importing this module
(which `import glassgrad` does, as `import torch` does) teaches multiprocessing's pickler to send a tensor as a
reference to shared memory: a tensor passed to a spawned Process or put on a Queue or Pipe is moved into shared memory
in the sender and rebuilt over the same memory in the receiver, so writes on either side are seen by the other
(Hogwild training). The memory's file descriptor travels as multiprocessing sends descriptors, so the sender must
still be running when the receiver unpickles, as with PyTorch's default strategy; both strategy names send it so.
Plain pickle and glassgrad.save still write the values. `spawn` and `start_processes` run fn(i, *args) in nprocs
processes and raise in the parent what a child raised.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import sys
import traceback
from collections.abc import Callable
from multiprocessing import *  # noqa: F403
from multiprocessing.reduction import DupFd, ForkingPickler
from typing import Any

import numpy as np

from . import storage
from .nn.parameter import Parameter
from .tensor import Tensor

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


# -- sending tensors as shared memory -------------------------------------------------------------------------------
def _reduce_block(block: storage.SharedBlock) -> tuple[Any, ...]:
    return _rebuild_block, (DupFd(block.fd), len(block))


def _rebuild_block(descriptor: Any, nbytes: int) -> storage.SharedBlock:
    return storage.SharedBlock.attach(descriptor.detach(), nbytes)


def _reduce_tensor(tensor: Tensor) -> tuple[Any, ...]:
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not support "
            "crossing process boundaries.  If you just want to transfer the data, call detach() on the tensor before "
            "serializing (e.g., putting it on the queue)."
        )
    array = tensor._data
    place = storage.shared_place(tensor)
    return _rebuild_tensor, (type(tensor), place, array.shape, array.dtype, array.strides, tensor.requires_grad)


def _rebuild_tensor(
    cls: type, place: tuple[Any, ...], shape: tuple[int, ...], dtype: np.dtype, strides: tuple[int, ...], requires_grad: bool
) -> Tensor:
    # Only what a new leaf has: PyTorch sends neither .grad nor hooks
    tensor = Tensor._wrap(storage.rebuild_array(*place, shape, dtype, strides))
    if cls is Parameter:
        return Parameter(tensor, requires_grad)
    tensor.requires_grad = requires_grad
    return tensor


def _reduce_storage(untyped: storage.UntypedStorage) -> tuple[Any, ...]:
    block, offset, nbytes, _ = storage.shared_place(untyped)
    return _rebuild_storage, (block, offset, nbytes)


def _rebuild_storage(block: storage.SharedBlock, offset: int, nbytes: int) -> storage.UntypedStorage:
    return storage.UntypedStorage._of(storage.rebuild_array(block, offset, nbytes, 0, (nbytes,), np.uint8, (1,)))


def init_reductions() -> None:
    """Register how tensors, parameters and storages pickle for another process (as shared memory); plain pickle is
    untouched."""
    ForkingPickler.register(storage.SharedBlock, _reduce_block)
    ForkingPickler.register(storage.UntypedStorage, _reduce_storage)
    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, _reduce_tensor)


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


init_reductions()
