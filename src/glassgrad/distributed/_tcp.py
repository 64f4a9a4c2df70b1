"""torch.distributed's transport without MPI: the ranks joined by TCP sockets, as PyTorch's gloo joins them.

`rendezvous` meets the ranks the way PyTorch's init methods do (rank 0 listens at MASTER_ADDR:MASTER_PORT, or
at the address written into a file:// path) and then opens a socket between every pair of ranks. `Comm`
offers the part of mpi4py's communicator API that distributed_c10d.py calls (the nonblocking collectives, the
pickling object collectives, point-to-point, Split), so each collective is written once, for both transports.

One reader thread per peer drains that peer's framed messages (communicator, tag, payload) into a mailbox as
they arrive, so a send never waits for its receiver to be ready and no ordering of sends can deadlock.
Collectives send every rank's part to the ranks that need it and reduce on the receiving side, in rank
order, so that every rank computes bitwise the same result. A peer whose connection closes makes the ranks
waiting for it raise instead of hanging.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import pickle
import socket
import struct
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from .errors import DistNetworkError, DistStoreError

# mpi4py's names, as distributed_c10d.py uses them: reductions are NumPy ufuncs here
IN_PLACE = object()
ANY_SOURCE = -1
UNDEFINED = -32766
SUM, PROD, MIN, MAX = np.add, np.multiply, np.minimum, np.maximum

_HEADER = struct.Struct("!IqQ")  # communicator id, tag, payload length
_HELLO = struct.Struct("!ii")  # a connecting rank says who it is, and the port it listens on
_LENGTH = struct.Struct("!Q")  # before rank 0's table of addresses
_RETRY = 0.05  # seconds between attempts to reach a rank that is not listening yet

Payload = bytes | memoryview
Completion = Callable[[dict[int, bytes]], None]  # what a request does with the messages it waited for


def _nothing(parts: dict[int, bytes]) -> None:
    """The completion of a request that only sends."""


class Status:
    """Where a received message came from (MPI.Status's Get_source)."""

    source = -1

    def Get_source(self) -> int:
        return self.source


class Group:
    """The world ranks of a communicator, in its rank order (MPI.Group)."""

    def __init__(self, members: tuple[int, ...]) -> None:
        self.members = members

    def Translate_ranks(self, ranks: Sequence[int], other: Group) -> list[int]:
        """Each of this group's `ranks` as a rank of `other`, UNDEFINED where it is not a member."""
        return [other.members.index(self.members[r]) if self.members[r] in other.members else UNDEFINED for r in ranks]


class Request:
    """A message exchange under way: done when a message from each expected source has arrived."""

    def __init__(self, comm: Comm, tag: int, sources: Sequence[int], complete: Completion) -> None:
        self._comm, self._tag = comm, tag
        self._waiting = list(sources)  # ranks of `comm`; ANY_SOURCE takes the first to arrive
        self._received: dict[int, bytes] = {}
        self._complete: Completion | None = complete

    def Test(self) -> bool:
        if self._complete is None:
            return True
        for source in list(self._waiting):
            found = self._comm.take(self._tag, source)
            if found is not None:
                self._waiting.remove(source)
                self._received[found[0]] = found[1]
        if self._waiting:
            return False
        complete, self._complete = self._complete, None
        complete(self._received)
        return True

    @classmethod
    def Testall(cls, requests: Sequence[Request]) -> bool:
        return all([request.Test() for request in requests])  # a list: every request moves on, not only the first


class Mesh:
    """The open sockets to every other rank, their reader threads, and the mailbox they fill."""

    def __init__(self, rank: int, peers: dict[int, socket.socket]) -> None:
        self.rank = rank
        self._peers = peers
        self._send_locks = {peer: threading.Lock() for peer in peers}
        self._mailbox: dict[tuple[int, int, int], deque[bytes]] = {}
        self._lock = threading.Lock()
        self.gone: dict[int, str] = {}  # peer -> why its connection ended
        for peer, connection in peers.items():
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # collectives are many small messages
            threading.Thread(target=self._read, args=(peer, connection), name=f"glassgrad-rank{peer}", daemon=True).start()

    def _read(self, peer: int, connection: socket.socket) -> None:
        try:
            while True:
                context, tag, length = _HEADER.unpack(_receive(connection, _HEADER.size))
                payload = _receive(connection, length)
                with self._lock:
                    self._mailbox.setdefault((context, tag, peer), deque()).append(payload)
        except (OSError, EOFError) as error:
            self.gone[peer] = "it closed its connection (it ended or failed)" if isinstance(error, EOFError) else str(error)

    def send(self, peer: int, context: int, tag: int, payload: bytes | memoryview) -> None:
        header = _HEADER.pack(context, tag, len(payload))
        small = len(payload) < 65536  # one packet with its header; a large payload is not copied to join it
        with self._send_locks[peer]:
            try:
                self._peers[peer].sendall(header + payload if small else header)
                if not small:
                    self._peers[peer].sendall(payload)
            except OSError as error:
                raise RuntimeError(f"glassgrad.distributed: rank {self.rank} could not send to rank {peer}: {error}") from None

    def take(self, context: int, tag: int, peer: int) -> bytes | None:
        """The oldest message from `peer` with this communicator and tag, or None; raises once the peer is gone."""
        gone = self.gone.get(peer)  # read first: a reader files every message it got before it marks its peer gone
        key = (context, tag, peer)
        with self._lock:
            queue = self._mailbox.get(key)
            if queue:
                message = queue.popleft()
                if not queue:
                    del self._mailbox[key]  # each collective has a tag of its own: keep no empty queue behind
                return message
        if gone is not None:
            raise RuntimeError(
                f"glassgrad.distributed: rank {peer} is gone ({gone}) while rank {self.rank} waits for it; "
                "the other ranks stop instead of waiting forever."
            )
        return None

    def close(self) -> None:
        for connection in self._peers.values():
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()


def _receive(connection: socket.socket, size: int) -> bytes:
    buffer = bytearray(size)
    view, got = memoryview(buffer), 0
    while got < size:
        count = connection.recv_into(view[got:])
        if count == 0:
            raise EOFError
        got += count
    return bytes(buffer)


class Comm:
    """A set of ranks over one Mesh, with mpi4py's communicator methods that distributed_c10d.py calls."""

    def __init__(self, mesh: Mesh, members: tuple[int, ...], context: int, timeout: datetime.timedelta) -> None:
        self._mesh, self._members, self._context, self._timeout = mesh, members, context, timeout
        self._rank = members.index(mesh.rank)
        self._collectives = 0  # every member calls the collectives in the same order: their count names each one
        self._splits = 0

    def Get_rank(self) -> int:
        return self._rank

    def Get_size(self) -> int:
        return len(self._members)

    def Get_group(self) -> Group:
        return Group(self._members)

    # -- moving bytes ---------------------------------------------------------------------------------------
    def _next_tag(self) -> int:
        self._collectives += 1
        return -self._collectives  # user tags of send/recv are >= 0

    def _send(self, rank: int, tag: int, payload: bytes | memoryview) -> None:
        self._mesh.send(self._members[rank], self._context, tag, payload)

    def take(self, tag: int, source: int) -> tuple[int, bytes] | None:
        """(source, message) for a message from `source` (a rank of this communicator, or ANY_SOURCE), or None."""
        for rank in range(self.Get_size()) if source == ANY_SOURCE else (source,):
            if rank != self._rank and (message := self._mesh.take(self._context, tag, self._members[rank])) is not None:
                return rank, message
        return None

    def _others(self) -> list[int]:
        return [rank for rank in range(self.Get_size()) if rank != self._rank]

    def _exchange(self, sends: dict[int, Payload], sources: Sequence[int], complete: Completion = _nothing) -> Request:
        """Send each rank in `sends` its payload, and complete once a message has come from each of `sources`."""
        tag = self._next_tag()
        for rank, payload in sends.items():
            self._send(rank, tag, payload)
        return Request(self, tag, sources, complete)

    def _to_others(self, payload: Payload) -> dict[int, Payload]:
        return dict.fromkeys(self._others(), payload)

    def _blocking(self, request: Request, name: str) -> None:
        from .distributed_c10d import _wait

        _wait([request], self._timeout, name)

    # -- nonblocking collectives on NumPy buffers -----------------------------------------------------------
    def Iallreduce(self, sendbuf: Any, recvbuf: np.ndarray, op: np.ufunc) -> Request:
        mine = np.array(recvbuf if sendbuf is IN_PLACE else sendbuf, copy=True)
        reduce = partial(_reduce_into, recvbuf, op, mine, self._rank)
        return self._exchange(self._to_others(_bytes(mine)), self._others(), reduce)

    def Ireduce(self, sendbuf: Any, recvbuf: np.ndarray | None, op: np.ufunc, root: int = 0) -> Request:
        if self._rank != root:
            return self._exchange({root: _bytes(sendbuf)}, [])
        assert recvbuf is not None
        mine = np.array(recvbuf if sendbuf is IN_PLACE else sendbuf, copy=True)
        return self._exchange({}, self._others(), partial(_reduce_into, recvbuf, op, mine, self._rank))

    def Ireduce_scatter_block(self, sendbuf: np.ndarray, recvbuf: np.ndarray, op: np.ufunc) -> Request:
        blocks = np.ascontiguousarray(sendbuf).reshape(self.Get_size(), -1)
        reduce = partial(_reduce_into, recvbuf, op, blocks[self._rank].copy(), self._rank)
        return self._exchange({rank: _bytes(blocks[rank]) for rank in self._others()}, self._others(), reduce)

    def Ibcast(self, buffer: np.ndarray, root: int = 0) -> Request:
        if self._rank == root:
            return self._exchange(self._to_others(_bytes(buffer)), [])
        return self._exchange({}, [root], lambda parts: _copy_into(buffer, parts[root]))

    def Iallgather(self, sendbuf: np.ndarray, recvbuf: np.ndarray) -> Request:
        mine = _bytes(sendbuf)
        place = partial(_place, recvbuf, self.Get_size(), self._rank, mine)
        return self._exchange(self._to_others(mine), self._others(), place)

    def Igather(self, sendbuf: np.ndarray, recvbuf: np.ndarray | None, root: int = 0) -> Request:
        if self._rank != root:
            return self._exchange({root: _bytes(sendbuf)}, [])
        assert recvbuf is not None
        return self._exchange({}, self._others(), partial(_place, recvbuf, self.Get_size(), root, _bytes(sendbuf)))

    def Iscatter(self, sendbuf: np.ndarray | None, recvbuf: np.ndarray, root: int = 0) -> Request:
        if self._rank != root:
            return self._exchange({}, [root], lambda parts: _copy_into(recvbuf, parts[root]))
        assert sendbuf is not None
        np.copyto(recvbuf, sendbuf[root].reshape(recvbuf.shape))
        return self._exchange({rank: _bytes(sendbuf[rank]) for rank in self._others()}, [])

    def Ibarrier(self) -> Request:
        return self._exchange(self._to_others(b""), self._others())

    # -- point to point (user tags) -------------------------------------------------------------------------
    def Isend(self, buf: np.ndarray, dest: int, tag: int = 0) -> Request:
        self._send(dest, tag, _bytes(buf))
        return Request(self, tag, [], _nothing)

    def Irecv(self, buf: np.ndarray, source: int = ANY_SOURCE, tag: int = 0, status: Status | None = None) -> Request:
        def complete(parts: dict[int, bytes]) -> None:
            ((sender, message),) = parts.items()
            _copy_into(buf, message)
            if status is not None:
                status.source = sender

        return Request(self, tag, [source], complete)

    def Recv(self, buf: np.ndarray, source: int = ANY_SOURCE, tag: int = 0, status: Status | None = None) -> None:
        self._blocking(self.Irecv(buf, source, tag, status), "recv")

    # -- Python objects (pickled), blocking as mpi4py's lower-case methods ----------------------------------
    def _objects(self, sends: dict[int, Any], sources: Sequence[int], name: str) -> dict[int, Any]:
        """Send each rank in `sends` its object; wait for one from each of `sources`: {rank: object}."""
        received: dict[int, bytes] = {}
        self._blocking(self._exchange({rank: pickle.dumps(obj) for rank, obj in sends.items()}, sources, received.update), name)
        return {rank: pickle.loads(message) for rank, message in received.items()}

    def allgather(self, obj: Any) -> list[Any]:
        every = {**self._objects(dict.fromkeys(self._others(), obj), self._others(), "all_gather_object"), self._rank: obj}
        return [every[rank] for rank in range(self.Get_size())]

    def bcast(self, obj: Any, root: int = 0) -> Any:
        if self._rank != root:
            return self._objects({}, [root], "broadcast_object_list")[root]
        self._objects(dict.fromkeys(self._others(), obj), [], "broadcast_object_list")
        return obj

    def gather(self, obj: Any, root: int = 0) -> list[Any] | None:
        if self._rank != root:
            self._objects({root: obj}, [], "gather_object")
            return None
        every = {**self._objects({}, self._others(), "gather_object"), root: obj}
        return [every[rank] for rank in range(self.Get_size())]

    def scatter(self, objects: Sequence[Any] | None, root: int = 0) -> Any:
        if self._rank != root:
            return self._objects({}, [root], "scatter_object_list")[root]
        assert objects is not None
        self._objects({rank: objects[rank] for rank in self._others()}, [], "scatter_object_list")
        return objects[root]

    # -- communicators ----------------------------------------------------------------------------------------
    def Split(self, color: int, key: int = 0) -> Comm | None:
        """The ranks that passed the same `color`, ordered by `key`; None for UNDEFINED. Every rank must call it."""
        every = self.allgather((color, key))
        self._splits += 1
        if color == UNDEFINED:
            return None
        ranks = sorted((k, rank) for rank, (c, k) in enumerate(every) if c == color)
        context = zlib.crc32(f"{self._context}/{self._splits}/{color}".encode())
        return Comm(self._mesh, tuple(self._members[rank] for _, rank in ranks), context, self._timeout)

    def Dup(self) -> Comm:
        duplicate = self.Split(0, self._rank)
        assert duplicate is not None
        return duplicate

    def Free(self) -> None:
        """Freeing the world (context 0) closes the sockets; a sub-communicator holds nothing of its own."""
        if self._context == 0:
            self._mesh.close()

    def Abort(self, errorcode: int = 1) -> None:
        self._mesh.close()
        os._exit(errorcode)


def _bytes(array: np.ndarray) -> memoryview:
    return memoryview(np.ascontiguousarray(array)).cast("B")


def _copy_into(buffer: np.ndarray, message: bytes) -> None:
    np.copyto(buffer, np.frombuffer(message, dtype=buffer.dtype).reshape(buffer.shape))


def _place(buffer: np.ndarray, size: int, rank: int, mine: Payload, parts: dict[int, bytes]) -> None:
    """Each rank's part (this `rank`'s is `mine`) into its block of `size` equal blocks of `buffer`."""
    blocks = buffer.reshape(size, -1)
    for sender, part in {**parts, rank: mine}.items():
        blocks[sender] = np.frombuffer(part, dtype=buffer.dtype)


def _reduce_into(buffer: np.ndarray, op: np.ufunc, mine: np.ndarray, rank: int, parts: dict[int, bytes]) -> None:
    """op over every rank's part in rank order (the same order, so the same bits, on every rank), into `buffer`."""
    ordered = [mine.ravel() if r == rank else np.frombuffer(parts[r], dtype=mine.dtype) for r in range(len(parts) + 1)]
    total = ordered[0].copy()
    for part in ordered[1:]:
        op(total, part, out=total)
    np.copyto(buffer, total.reshape(buffer.shape), casting="unsafe")


# -- rendezvous ---------------------------------------------------------------------------------------------
def rendezvous(rank: int, size: int, master: tuple[str, int] | Path, timeout: datetime.timedelta) -> Comm:
    """Meet the other ranks and connect every pair; the world communicator. `master` is rank 0's address
    (tcp://, env://) or the file where rank 0 writes it (file://)."""
    deadline = time.monotonic() + timeout.total_seconds()
    listener = _listen(master[1] if isinstance(master, tuple) and rank == 0 else 0)
    try:
        if rank == 0:
            if isinstance(master, Path):
                _publish(master, listener.getsockname()[1])
            joined = _accept(listener, size - 1, deadline, lambda count: DistStoreError(
                f"Timed out after {int(timeout.total_seconds())} seconds waiting for clients. {count + 1}/{size} clients joined."
            ))
            table = pickle.dumps({peer: (host, port) for peer, (_, host, port) in joined.items()})
            for connection, _, _ in joined.values():
                connection.sendall(_LENGTH.pack(len(table)) + table)
            if isinstance(master, Path):
                master.unlink(missing_ok=True)
            peers = {peer: connection for peer, (connection, _, _) in joined.items()}
        else:
            to_master = _connect_to_master(master, deadline, timeout)
            to_master.sendall(_HELLO.pack(rank, listener.getsockname()[1]))
            table = pickle.loads(_receive(to_master, _LENGTH.unpack(_receive(to_master, _LENGTH.size))[0]))
            peers = {0: to_master, **_join_mesh(rank, size, listener, table, deadline)}
    finally:
        listener.close()
    return Comm(Mesh(rank, peers), tuple(range(size)), 0, timeout)


def _listen(port: int) -> socket.socket:
    """A listening socket on every interface (as PyTorch's store binds), at `port` or one the system picks."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        server.bind(("", port))
    except OSError as error:
        server.close()
        raise DistNetworkError(
            f"The server socket has failed to listen on any local network address. port: {port}, {error.strerror}"
        ) from None
    server.listen(128)
    return server


def _accept(listener: socket.socket, count: int, deadline: float, timed_out: Callable[[int], Exception]
            ) -> dict[int, tuple[socket.socket, str, int]]:
    """`count` connecting ranks: rank -> (connection, its host, the port it listens on)."""
    joined: dict[int, tuple[socket.socket, str, int]] = {}
    while len(joined) < count:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            for connection, _, _ in joined.values():
                connection.close()
            raise timed_out(len(joined))
        listener.settimeout(remaining)
        try:
            connection, (host, _) = listener.accept()
        except TimeoutError:
            continue
        connection.settimeout(None)
        peer, port = _HELLO.unpack(_receive(connection, _HELLO.size))
        joined[peer] = (connection, host, port)
    return joined


def _join_mesh(rank: int, size: int, listener: socket.socket, table: dict[int, tuple[str, int]], deadline: float
               ) -> dict[int, socket.socket]:
    """Rank r > 0: connect to each rank between 0 and r, accept each rank above r."""
    peers = {}
    for peer in range(1, rank):
        peers[peer] = socket.create_connection(table[peer], timeout=max(deadline - time.monotonic(), _RETRY))
        peers[peer].settimeout(None)
        peers[peer].sendall(_HELLO.pack(rank, 0))
    above = _accept(listener, size - 1 - rank, deadline, lambda count: DistNetworkError(
        f"glassgrad.distributed: rank {rank} timed out waiting for the ranks above it to connect ({count} of {size - 1 - rank} did)."
    ))
    return {**peers, **{peer: connection for peer, (connection, _, _) in above.items()}}


def _publish(path: Path, port: int) -> None:
    """file://: rank 0 writes where it listens; the others read it (written whole, then renamed into place)."""
    staged = path.with_name(path.name + f".{os.getpid()}")
    staged.write_text(f"{socket.gethostname()}:{port}")
    os.replace(staged, path)


def _master_address(master: tuple[str, int] | Path) -> tuple[str, int] | None:
    if isinstance(master, tuple):
        return master
    try:
        host, _, port = master.read_text().rpartition(":")
    except FileNotFoundError:
        return None
    return (host, int(port)) if port.isdigit() else None


def _connect_to_master(master: tuple[str, int] | Path, deadline: float, timeout: datetime.timedelta) -> socket.socket:
    """Reach rank 0, retrying while it is not listening yet, as PyTorch's store client does."""
    while True:
        address = _master_address(master)
        if address is not None:
            with contextlib.suppress(OSError):
                connection = socket.create_connection(address, timeout=max(deadline - time.monotonic(), _RETRY))
                connection.settimeout(None)
                return connection
        if time.monotonic() > deadline:
            where = f"({address[0]}, {address[1]})" if address is not None else f"the address rank 0 writes into {master}"
            raise DistNetworkError(
                f"The client socket has timed out after {int(timeout.total_seconds() * 1000)}ms while trying to connect to {where}."
            )
        time.sleep(_RETRY)
