"""A program as PyTorch's DDP tutorial writes it: torch.multiprocessing.spawn starts the ranks, which meet at
MASTER_ADDR:MASTER_PORT with gloo, take one DDP step and gather what each computed with all_gather_object.
Run unchanged by `glassgrad run torch_spawned.py WORLD PORT`: each spawned rank must import glassgrad as torch."""

import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


def main(rank: int, world: int, port: str) -> None:
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = port
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(rank)  # different weights and data on each rank: DDP broadcasts rank 0's weights
    model = DDP(torch.nn.Linear(4, 2))
    model(torch.randn(8, 4)).pow(2).mean().backward()
    every = [None] * world
    dist.all_gather_object(every, (torch.__name__, model.module.weight.grad.tolist()))
    assert all(grad == every[0][1] for _, grad in every), "DDP leaves one averaged gradient on every rank"
    print(f"rank {rank} of {world}: torch is {sorted({name for name, _ in every})}")
    dist.destroy_process_group()


if __name__ == "__main__":
    world = int(sys.argv[1])
    mp.spawn(main, args=(world, sys.argv[2]), nprocs=world)
