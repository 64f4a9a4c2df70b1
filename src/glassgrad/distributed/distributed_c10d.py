"""torch.distributed's process groups and collectives, carried by MPI (mpi4py) or by TCP sockets.

A process that an MPI launcher started (mpirun, `glassgrad run --nproc`) joins through MPI. Any other joins
PyTorch's way, through its init_method (env://: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE; tcp://; file://),
over the sockets of _tcp.py, whose communicator offers the part of mpi4py's API used here: each collective
below is written once, for both transports (`pg.api` is mpi4py's MPI or the _tcp module).

Every collective works in place on the tensor's own NumPy buffer (a copy only for a non-contiguous
tensor) and bumps its version counter, as an in-place op. Each one first compares what every rank
passed (the collective, dtype, shape): a mismatch raises on every rank instead of summing the wrong
bytes. Waits poll with short sleeps, so that ranks sharing cores (mpirun --oversubscribe) yield to each
other and a collective that outlives the group's timeout raises instead of hanging. A rank that ends
with an uncaught exception aborts the job, so that the other ranks stop instead of waiting for it.
"""

from __future__ import annotations

import datetime
import os
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qs, urlparse

import numpy as np

from ..autograd.inplace import bump_version
from ..tensor import Tensor

DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)  # PyTorch's default for CPU process groups
BACKENDS = ("mpi", "gloo")  # either runs on either transport: MPI when an MPI launcher started the process, else TCP
_MPI_LAUNCHED = (("PMI_RANK", "PMI_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"))  # MPICH's, Open MPI's
_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


class ReduceOp:
    """The reductions all_reduce, reduce and reduce_scatter_tensor accept."""

    class RedOpType:
        def __init__(self, name: str, code: int) -> None:
            self.name, self.code = name, code

        def __repr__(self) -> str:
            return f"RedOpType.{self.name}"

    SUM = RedOpType("SUM", 0)
    AVG = RedOpType("AVG", 1)
    PRODUCT = RedOpType("PRODUCT", 2)
    MIN = RedOpType("MIN", 3)
    MAX = RedOpType("MAX", 4)


def mpi_launched_rank() -> tuple[int, int] | None:
    """(rank, world size) when an MPI launcher (MPICH's or Open MPI's) started this process."""
    return _rank_from_environment(_MPI_LAUNCHED)


def launched_rank() -> tuple[int, int] | None:
    """(rank, world size) when a launcher started this process as one rank: MPI's, or torchrun's RANK/WORLD_SIZE."""
    return _rank_from_environment((*_MPI_LAUNCHED, ("RANK", "WORLD_SIZE")))


def _rank_from_environment(names: tuple[tuple[str, str], ...]) -> tuple[int, int] | None:
    for rank, size in names:
        if rank in os.environ and size in os.environ:
            return int(os.environ[rank]), int(os.environ[size])
    return None


def _mpi() -> ModuleType:
    try:
        from mpi4py import MPI
    except ImportError:
        raise RuntimeError(
            "glassgrad.distributed runs on MPI through mpi4py, which is not installed: pip install 'glassgrad[distributed]' "
            "(mpi4py and MPICH from PyPI), then launch with `mpirun -np N python train.py` or `glassgrad run --nproc N train.py`."
        ) from None
    return MPI


class ProcessGroup:
    """A set of ranks and the communicator that joins them; `api` is its transport's module (MPI or _tcp)."""

    def __init__(self, comm: Any, api: ModuleType, timeout: datetime.timedelta, backend: str) -> None:
        self.comm = comm
        self.api = api
        self.timeout = timeout
        self.backend = backend
        self.restore_excepthook: Callable[[], None] = lambda: None  # the default group's: see init_process_group
        self._rank, self._size = comm.Get_rank(), comm.Get_size()

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return self._size

    def __repr__(self) -> str:
        transport = "MPI" if self.api.__name__.startswith("mpi4py") else "TCP"
        return f"<ProcessGroup rank {self._rank} of {self._size} ({self.backend} over {transport})>"


class Work:
    """A collective under way (async_op=True): wait() finishes it and writes the result into the tensors."""

    def __init__(self, requests: list[Any], finish: Callable[[], None], group: ProcessGroup, name: str) -> None:
        self._requests = requests
        self._finish: Callable[[], None] | None = finish
        self._group = group
        self._name = name

    def is_completed(self) -> bool:
        if self._finish is None:
            return True
        return bool(self._requests[0].Testall(self._requests))

    def wait(self, timeout: datetime.timedelta | None = None) -> bool:
        if self._finish is None:
            return True
        _wait(self._requests, timeout or self._group.timeout, self._name)
        finish, self._finish = self._finish, None
        finish()
        return True


def _wait(requests: list[Any], timeout: datetime.timedelta, name: str) -> None:
    """Wait for requests (MPI's or _tcp's), sleeping a little between tests; raise after `timeout`."""
    test_all = requests[0].Testall
    deadline = time.monotonic() + timeout.total_seconds()
    spins = 0
    while not test_all(requests):
        spins += 1
        if spins > 64:  # a short spin first: most collectives between ranks of one machine end within it
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"glassgrad.distributed: {name} did not complete within the process group's timeout ({timeout}); "
                    "a rank is stuck or never reached it. Every rank must call the same collectives in the same order."
                )
            time.sleep(min(1e-3, 1e-6 * 2 ** min(spins - 64, 10)))


_world: ProcessGroup | None = None


class _WorldMember:
    """`dist.group.WORLD` / `dist.GroupMember.WORLD`: the default group once there is one."""

    @property
    def WORLD(self) -> ProcessGroup | None:
        return _world


group = GroupMember = _WorldMember()


def is_available() -> bool:
    """Whether collectives can run here: always, over TCP at least."""
    return True


def is_initialized() -> bool:
    return _world is not None


def is_mpi_available() -> bool:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def is_gloo_available() -> bool:
    return True


def is_nccl_available() -> bool:
    return False


def _abort_on_uncaught_exception(world: ProcessGroup) -> Callable[[], None]:
    """An exception that ends one rank stops every rank: the others would wait for it in their next collective.
    Returns what puts the previous hook back (when the group is destroyed)."""
    previous = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, traceback: Any) -> None:
        previous(kind, error, traceback)
        print(
            f"glassgrad.distributed: rank {world.rank()} ended with {kind.__name__}; stopping every rank", file=sys.stderr, flush=True
        )
        time.sleep(0.5)  # an MPI launcher forwards output through a proxy that an abort would cut short
        world.comm.Abort(1)

    sys.excepthook = hook

    def restore() -> None:
        sys.excepthook = previous

    return restore


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout: datetime.timedelta | None = None,
    world_size: int = -1,
    rank: int = -1,
    store: Any = None,
    group_name: str = "",
    pg_options: Any = None,
    device_id: Any = None,
) -> None:
    """Join the other ranks as torch.distributed's default group.

    Under an MPI launcher (or with backend "mpi", which needs mpi4py: outside a launcher, a world of one), ranks
    and world size are MPI's (`world_size` and `rank`, when given, must agree) and `init_method` is not needed.
    Otherwise the ranks meet as in PyTorch, through `init_method`: "env://" (the
    default: MASTER_ADDR, MASTER_PORT and, unless given as arguments, RANK and WORLD_SIZE), "tcp://host:port"
    or "file:///path" (with `rank` and `world_size`), within `timeout`.
    """
    global _world
    if _world is not None:
        raise ValueError("trying to initialize the default process group twice!")
    launched = mpi_launched_rank()
    name = _cpu_backend(backend or ("mpi" if launched else "gloo"))
    timeout = timeout or DEFAULT_TIMEOUT
    if launched is not None or name == "mpi":
        _world = ProcessGroup(_join_mpi(world_size, rank), _mpi(), timeout, name)
    else:
        from . import _tcp

        if store is not None:
            raise RuntimeError("glassgrad.distributed: init_process_group(store=...) is not supported; use an init_method")
        rank, world_size, master = _rendezvous_arguments(init_method or "env://", rank, world_size)
        _world = ProcessGroup(_tcp.rendezvous(rank, world_size, master, timeout), _tcp, timeout, name)
    _world.restore_excepthook = _abort_on_uncaught_exception(_world)


def _cpu_backend(backend: str) -> str:
    """The backend for CPU tensors: "gloo", "mpi", or the CPU entry of a "cpu:gloo,cuda:nccl" list."""
    entries = dict(entry.split(":", 1) for entry in backend.lower().split(",")) if ":" in backend else {"cpu": backend.lower()}
    name = entries.get("cpu", "")
    if name == "nccl":
        raise RuntimeError("Distributed package doesn't have NCCL built in: NCCL needs CUDA, which glassgrad does not have; use 'gloo'.")
    if name not in BACKENDS:
        raise ValueError(
            f"glassgrad.distributed has no backend {backend!r} for the CPU: it runs the collectives of 'gloo' and 'mpi', over MPI "
            "when an MPI launcher started the ranks and over TCP otherwise."
        )
    return name


def _join_mpi(world_size: int, rank: int) -> Any:
    comm = _mpi().COMM_WORLD.Dup()
    for what, given, actual in (("world_size", world_size, comm.Get_size()), ("rank", rank, comm.Get_rank())):
        if given not in (-1, None) and given != actual:
            raise ValueError(
                f"init_process_group({what}={given}) disagrees with MPI, which started this process as {what} {actual}: "
                f"launch with `mpirun -np N` and leave {what} out (or pass MPI's value)."
            )
    return comm


def _rendezvous_arguments(init_method: str, rank: int, world_size: int) -> tuple[int, int, tuple[str, int] | Path]:
    """(rank, world size, rank 0's address or the file:// path) from PyTorch's init_method, with PyTorch's errors."""
    url = urlparse(init_method)
    query = {key: values[-1] for key, values in parse_qs(url.query).items()}
    rank = int(query.get("rank", rank))
    world_size = int(query.get("world_size", world_size))
    if url.scheme == "env":
        def variable(name: str) -> str:
            if name not in os.environ:
                raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: environment variable {name} expected, but not set")
            return os.environ[name]

        rank = int(variable("RANK")) if rank == -1 else rank
        world_size = int(variable("WORLD_SIZE")) if world_size == -1 else world_size
        # torchrun's agent serves its own store at MASTER_PORT (PyTorch's ranks join that store): rank 0 listens
        # at the next port instead
        agent_store = os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True"
        return rank, world_size, (variable("MASTER_ADDR"), int(variable("MASTER_PORT")) + agent_store)
    if url.scheme not in ("tcp", "file"):
        raise RuntimeError(f"No rendezvous handler for {url.scheme}://")
    for what, value in (("rank", rank), ("world size", world_size)):
        if value == -1:
            raise ValueError(f"Error initializing torch.distributed using {url.scheme}:// rendezvous: {what} parameter missing")
    if url.scheme == "file":
        return rank, world_size, Path(url.path)
    if url.hostname is None or url.port is None:
        raise ValueError(f"Error initializing torch.distributed using tcp:// rendezvous: port number missing in {init_method}")
    return rank, world_size, (url.hostname, url.port)


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    global _world
    target = group or _world
    if target is None:
        raise ValueError(_NOT_INITIALIZED)
    target.comm.Free()
    target.restore_excepthook()
    if target is _world:
        _world = None


def new_group(ranks: Sequence[int] | None = None, timeout: datetime.timedelta | None = None, backend: str | None = None, **_: Any) -> ProcessGroup | None:
    """A group of some ranks of the default group. Every rank must call it (as in PyTorch); ranks outside get None."""
    world = _group(None)
    members = sorted(range(world.size()) if ranks is None else ranks)
    inside = world.rank() in members
    comm = world.comm.Split(0 if inside else world.api.UNDEFINED, members.index(world.rank()) if inside else 0)
    return ProcessGroup(comm, world.api, timeout or world.timeout, backend or world.backend) if inside else None


def _group(group: ProcessGroup | None) -> ProcessGroup:
    if group is not None:
        return group
    if _world is None:
        raise ValueError(_NOT_INITIALIZED)
    return _world


def get_rank(group: ProcessGroup | None = None) -> int:
    return _group(group).rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    return _group(group).size()


def get_backend(group: ProcessGroup | None = None) -> str:
    return _group(group).backend


# -- collectives ---------------------------------------------------------------------------------------------
_CODES = {"all_reduce": 1, "broadcast": 2, "all_gather": 3, "all_gather_into_tensor": 4, "reduce_scatter_tensor": 5,
          "gather": 6, "scatter": 7, "reduce": 8, "barrier": 9, "all_gather_object": 10, "broadcast_object_list": 11,
          "gather_object": 12, "scatter_object_list": 13}


def _check_same(pg: ProcessGroup, name: str, tensor: Tensor | None, op: ReduceOp.RedOpType | None = None) -> None:
    """Every rank must call the same collective on tensors of one dtype and shape: compare before moving bytes."""
    shape = () if tensor is None else tuple(tensor.shape)
    dtype = "" if tensor is None else tensor.dtype.name
    mine = np.array([_CODES[name], -1 if op is None else op.code, zlib.crc32(f"{dtype}{shape}".encode())], dtype=np.int64)
    every = np.empty((pg.size(), mine.size), dtype=np.int64)
    _wait([pg.comm.Iallgather(mine, every)], pg.timeout, name)
    if (every != mine).any():
        described = pg.comm.allgather(f"{name}({dtype} {list(shape)}{'' if op is None else ', ' + op.name})")
        raise RuntimeError(
            "glassgrad.distributed: the ranks called different collectives or passed different tensors: "
            + "; ".join(f"rank {r}: {d}" for r, d in enumerate(described))
            + ". Every rank must call the same collectives, in the same order, on tensors of the same shape and dtype."
        )


def _buffer(tensor: Tensor) -> np.ndarray:
    data = tensor._data
    return data if data.flags.c_contiguous and data.flags.writeable else np.ascontiguousarray(data)


def _written(tensor: Tensor, buffer: np.ndarray) -> Callable[[], None]:
    """What finishing a collective does to its output tensor: copy back where MPI wrote a copy, bump the version."""

    def finish() -> None:
        if buffer is not tensor._data:
            np.copyto(tensor._data, buffer.reshape(tensor._data.shape))
        bump_version(tensor)

    return finish


def _run(pg: ProcessGroup, name: str, requests: list[Any], finish: Callable[[], None], async_op: bool) -> Work | None:
    work = Work(requests, finish, pg, name)
    if async_op:
        return work
    work.wait()
    return None


def _op(pg: ProcessGroup, op: ReduceOp.RedOpType) -> Any:
    """The transport's reduction for `op` (AVG sums, then divides when the collective finishes)."""
    return getattr(pg.api, {"SUM": "SUM", "AVG": "SUM", "PRODUCT": "PROD", "MIN": "MIN", "MAX": "MAX"}[op.name])


def _averaged(op: ReduceOp.RedOpType, buffer: np.ndarray, size: int, then: Callable[[], None]) -> Callable[[], None]:
    def finish() -> None:
        if op is ReduceOp.AVG:
            np.divide(buffer, size, out=buffer, casting="unsafe")
        then()

    return finish


def all_reduce(tensor: Tensor, op: ReduceOp.RedOpType = ReduceOp.SUM, group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    pg = _group(group)
    _check_same(pg, "all_reduce", tensor, op)
    buffer = _buffer(tensor)
    request = pg.comm.Iallreduce(pg.api.IN_PLACE, buffer, _op(pg, op))
    return _run(pg, "all_reduce", [request], _averaged(op, buffer, pg.size(), _written(tensor, buffer)), async_op)


def reduce(tensor: Tensor, dst: int = 0, op: ReduceOp.RedOpType = ReduceOp.SUM, group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    pg = _group(group)
    _check_same(pg, "reduce", tensor, op)
    buffer = _buffer(tensor)
    mine = pg.rank() == dst
    request = pg.comm.Ireduce(pg.api.IN_PLACE if mine else buffer, buffer if mine else None, _op(pg, op), root=dst)
    finish = _averaged(op, buffer, pg.size(), _written(tensor, buffer)) if mine else (lambda: None)
    return _run(pg, "reduce", [request], finish, async_op)


def broadcast(tensor: Tensor, src: int = 0, group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    pg = _group(group)
    _check_same(pg, "broadcast", tensor)
    buffer = _buffer(tensor)
    return _run(pg, "broadcast", [pg.comm.Ibcast(buffer, root=src)], _written(tensor, buffer), async_op)


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    pg = _group(group)
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError(
            f"all_gather_into_tensor: the output has {output_tensor.numel()} elements; it needs world size x input "
            f"= {pg.size()} x {input_tensor.numel()}"
        )
    _check_same(pg, "all_gather_into_tensor", input_tensor)
    buffer = _buffer(output_tensor)
    request = pg.comm.Iallgather(np.ascontiguousarray(input_tensor._data), buffer)
    return _run(pg, "all_gather_into_tensor", [request], _written(output_tensor, buffer), async_op)


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    pg = _group(group)
    if len(tensor_list) != pg.size():
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors; it needs one per rank ({pg.size()})")
    _check_same(pg, "all_gather", tensor)
    gathered = np.empty((pg.size(), *tensor._data.shape), dtype=tensor._data.dtype)
    request = pg.comm.Iallgather(np.ascontiguousarray(tensor._data), gathered)

    def finish() -> None:
        for out, part in zip(tensor_list, gathered, strict=True):
            np.copyto(out._data, part.reshape(out._data.shape))
            bump_version(out)

    return _run(pg, "all_gather", [request], finish, async_op)


def reduce_scatter_tensor(
    output: Tensor, input: Tensor, op: ReduceOp.RedOpType = ReduceOp.SUM, group: ProcessGroup | None = None, async_op: bool = False
) -> Work | None:
    pg = _group(group)
    if input.numel() != output.numel() * pg.size():
        raise ValueError(
            f"reduce_scatter_tensor: the input has {input.numel()} elements; it needs world size x output "
            f"= {pg.size()} x {output.numel()}"
        )
    _check_same(pg, "reduce_scatter_tensor", input, op)
    buffer = _buffer(output)
    request = pg.comm.Ireduce_scatter_block(np.ascontiguousarray(input._data), buffer, _op(pg, op))
    return _run(pg, "reduce_scatter_tensor", [request], _averaged(op, buffer, pg.size(), _written(output, buffer)), async_op)


def gather(tensor: Tensor, gather_list: list[Tensor] | None = None, dst: int = 0, group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    pg = _group(group)
    mine = pg.rank() == dst
    if mine and (gather_list is None or len(gather_list) != pg.size()):
        raise ValueError(f"gather: the destination rank needs a gather_list of {pg.size()} tensors")
    _check_same(pg, "gather", tensor)
    gathered = np.empty((pg.size(), *tensor._data.shape), dtype=tensor._data.dtype) if mine else None
    request = pg.comm.Igather(np.ascontiguousarray(tensor._data), gathered, root=dst)

    def finish() -> None:
        if gathered is not None and gather_list is not None:
            for out, part in zip(gather_list, gathered, strict=True):
                np.copyto(out._data, part.reshape(out._data.shape))
                bump_version(out)

    return _run(pg, "gather", [request], finish, async_op)


def scatter(tensor: Tensor, scatter_list: list[Tensor] | None = None, src: int = 0, group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    pg = _group(group)
    mine = pg.rank() == src
    if mine and (scatter_list is None or len(scatter_list) != pg.size()):
        raise ValueError(f"scatter: the source rank needs a scatter_list of {pg.size()} tensors")
    _check_same(pg, "scatter", tensor)
    parts = np.stack([np.ascontiguousarray(t._data) for t in scatter_list]) if mine and scatter_list is not None else None
    buffer = _buffer(tensor)
    return _run(pg, "scatter", [pg.comm.Iscatter(parts, buffer, root=src)], _written(tensor, buffer), async_op)


# -- object collectives: any picklable Python object, moved by the communicator's pickling collectives --------
def _root(pg: ProcessGroup, rank: int | None, group_rank: int | None) -> int:
    """The root's rank in `pg`: `group_rank` as it is, or the global `rank` (src/dst) translated; global rank 0
    when neither is given."""
    if rank is not None and group_rank is not None:
        raise ValueError("Can't specify both group_rank and global_rank")
    if group_rank is not None:
        return group_rank
    rank = 0 if rank is None else rank
    if _world is None or pg.comm is _world.comm:
        return rank
    (translated,) = pg.api.Group.Translate_ranks(_world.comm.Get_group(), [rank], pg.comm.Get_group())
    if translated == pg.api.UNDEFINED:
        raise ValueError(f"Global rank {rank} is not part of group {pg}")
    return int(translated)


def all_gather_object(object_list: list[Any], obj: Any, group: ProcessGroup | None = None) -> None:
    """Every rank's `obj`, into `object_list` (one slot per rank) on every rank."""
    pg = _group(group)
    _check_same(pg, "all_gather_object", None)
    for rank, gathered in enumerate(pg.comm.allgather(obj)):
        object_list[rank] = gathered


def broadcast_object_list(
    object_list: list[Any], src: int | None = None, group: ProcessGroup | None = None, device: Any = None,
    group_src: int | None = None,
) -> None:
    """The root's `object_list`, copied into the same-length `object_list` of every rank."""
    pg = _group(group)
    root = _root(pg, src, group_src)
    _check_same(pg, "broadcast_object_list", None)
    sent = pg.comm.bcast(list(object_list) if pg.rank() == root else None, root=root)
    object_list[:] = sent[: len(object_list)]


def gather_object(
    obj: Any, object_gather_list: list[Any] | None = None, dst: int | None = None, group: ProcessGroup | None = None,
    group_dst: int | None = None,
) -> None:
    """Every rank's `obj`, into the destination's `object_gather_list` (one slot per rank); the others pass None."""
    pg = _group(group)
    root = _root(pg, dst, group_dst)
    if pg.rank() == root and not object_gather_list:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if pg.rank() != root and object_gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    _check_same(pg, "gather_object", None)
    gathered = pg.comm.gather(obj, root=root)
    if object_gather_list is not None:
        for rank, value in enumerate(gathered):
            object_gather_list[rank] = value


def scatter_object_list(
    scatter_object_output_list: list[Any], scatter_object_input_list: list[Any] | None = None, src: int | None = None,
    group: ProcessGroup | None = None, group_src: int | None = None,
) -> None:
    """The root's `scatter_object_input_list[r]` into `scatter_object_output_list[0]` of each rank r."""
    pg = _group(group)
    root = _root(pg, src, group_src)
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    _check_same(pg, "scatter_object_list", None)
    sent = list(scatter_object_input_list) if pg.rank() == root and scatter_object_input_list is not None else None
    if pg.rank() == root and (sent is None or len(sent) != pg.size()):
        raise ValueError(f"scatter_object_list: the source rank needs a scatter_object_input_list of {pg.size()} objects")
    scatter_object_output_list[0] = pg.comm.scatter(sent, root=root)


def barrier(group: ProcessGroup | None = None, async_op: bool = False, device_ids: Any = None) -> Work | None:
    pg = _group(group)
    return _run(pg, "barrier", [pg.comm.Ibarrier()], lambda: None, async_op)


def isend(tensor: Tensor, dst: int, group: ProcessGroup | None = None, tag: int = 0) -> Work:
    pg = _group(group)
    work = _run(pg, "send", [pg.comm.Isend(np.ascontiguousarray(tensor._data), dest=dst, tag=tag)], lambda: None, True)
    assert work is not None
    return work


def irecv(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None, tag: int = 0) -> Work:
    pg = _group(group)
    buffer = _buffer(tensor)
    source = pg.api.ANY_SOURCE if src is None else src
    work = _run(pg, "recv", [pg.comm.Irecv(buffer, source=source, tag=tag)], _written(tensor, buffer), True)
    assert work is not None
    return work


def send(tensor: Tensor, dst: int, group: ProcessGroup | None = None, tag: int = 0) -> None:
    isend(tensor, dst, group, tag).wait()


def recv(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None, tag: int = 0) -> int:
    """Receive into `tensor`; returns the sender's rank (any rank when src is None)."""
    pg = _group(group)
    buffer = _buffer(tensor)
    status = pg.api.Status()
    pg.comm.Recv(buffer, source=pg.api.ANY_SOURCE if src is None else src, tag=tag, status=status)
    _written(tensor, buffer)()
    return int(status.Get_source())
