"""A program that starts its ranks with torch.distributed.launcher's elastic_launch, as torcheval's distributed
example does: each rank joins with init_process_group("gloo"), gathers with all_gather_object and returns a value,
and the launcher hands back {rank: value}, a tensor
included (it outlives the rank that made it). Run unchanged by `glassgrad run torch_elastic_launch.py`."""

import torch
import torch.distributed as dist
from torch.distributed.launcher.api import LaunchConfig, elastic_launch


def work(scale: int) -> tuple:
    dist.init_process_group("gloo")
    every = [None] * dist.get_world_size()
    dist.all_gather_object(every, (dist.get_rank(), torch.__name__))
    mine = torch.tensor([scale * dist.get_rank()])
    dist.destroy_process_group()
    return every, mine


if __name__ == "__main__":
    config = LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=3, rdzv_endpoint="localhost:0", rdzv_backend="c10d",
                          max_restarts=0)
    returned = elastic_launch(config, entrypoint=work)(10)
    print({rank: (every, mine.tolist()) for rank, (every, mine) in returned.items()})
