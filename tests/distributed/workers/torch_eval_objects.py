"""A distributed evaluation as PyTorch users write it: each rank scores its shard, the per-rank metrics (a dict)
are gathered with all_gather_object and merged. Run unchanged by `mpiexec -n N python -m glassgrad run` (the
backend comes from the environment, as under torchrun); it checks the merge against scoring everything at once."""

import os

import numpy as np
import torch
import torch.distributed as dist

dist.init_process_group(backend=os.environ.get("BACKEND", "gloo"))
rank, world = dist.get_rank(), dist.get_world_size()
data = np.random.default_rng(0)
x = torch.tensor(data.standard_normal((30, 5)), dtype=torch.float32)
y = torch.tensor(data.integers(0, 3, 30))
model = torch.nn.Linear(5, 3)
with torch.no_grad():
    model.weight.copy_(torch.tensor(data.uniform(-1, 1, (3, 5)), dtype=torch.float32))
    model.bias.zero_()


@torch.no_grad()
def score(rows: slice) -> dict:
    logits = model(x[rows])
    return {"correct": int((logits.argmax(1) == y[rows]).sum()), "seen": len(y[rows]),
            "loss_sum": float(torch.nn.functional.cross_entropy(logits, y[rows], reduction="sum"))}


mine = score(slice(rank, None, world))
every = [None] * world
dist.all_gather_object(every, mine)
merged = {key: sum(m[key] for m in every) for key in mine}
whole = score(slice(None))
assert merged["correct"] == whole["correct"] and merged["seen"] == whole["seen"] == 30, (merged, whole)
assert abs(merged["loss_sum"] - whole["loss_sum"]) < 1e-4, (merged, whole)

summary = [f"{merged['correct'] / merged['seen']:.4f}"] if rank == 0 else [None]
dist.broadcast_object_list(summary, src=0)
print(f"rank {rank} of {world}: accuracy {summary[0]}")
dist.destroy_process_group()
