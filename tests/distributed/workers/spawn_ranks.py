"""`python spawn_ranks.py WORKER N`: the worker script in N ranks started by glassgrad.multiprocessing.spawn,
as PyTorch's DDP tutorial starts them: each rank finds the others through env:// (MASTER_ADDR, MASTER_PORT,
RANK, WORLD_SIZE) and joins them over TCP."""

import os
import runpy
import socket
import sys

import glassgrad.multiprocessing as mp


def rank_main(rank: int, worker: str, world: int, port: int) -> None:
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    runpy.run_path(worker, run_name="__main__")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


if __name__ == "__main__":
    worker, world = sys.argv[1], int(sys.argv[2])
    mp.spawn(rank_main, args=(worker, world, free_port()), nprocs=world)
