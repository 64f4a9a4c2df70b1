"""Ranks that pass different shapes to one collective: every rank gets an error naming both, never a wrong sum."""

import glassgrad as torch
import glassgrad.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
try:
    dist.all_reduce(torch.ones(3 + rank))
except RuntimeError as error:
    print(f"rank {rank}: {error}")
else:
    raise AssertionError("a mismatched all_reduce must be reported")
dist.all_reduce(torch.ones(2))  # the group still works afterwards
dist.destroy_process_group()
