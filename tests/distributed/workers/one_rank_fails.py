"""Rank 1 raises before a collective the others wait in: the job must stop, not hang."""

import glassgrad as torch
import glassgrad.distributed as dist

dist.init_process_group("gloo")
if dist.get_rank() == 1:
    raise ValueError("rank 1 found bad data")
dist.all_reduce(torch.ones(2))
