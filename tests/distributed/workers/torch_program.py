"""A torch.distributed + DDP training program as PyTorch users write it: the backend comes from the environment.

PyTorch runs it under torchrun with BACKEND=gloo; glassgrad runs it unchanged under mpiexec with BACKEND=mpi
(`mpiexec -n 2 python -m glassgrad run torch_program.py OUT`). Each rank saves its final parameters to OUT.<rank>.npz.
"""

import os
import sys

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

dist.init_process_group(backend=os.environ.get("BACKEND", "gloo"))
rank, world = dist.get_rank(), dist.get_world_size()
data = np.random.default_rng(0)
dataset = TensorDataset(
    torch.tensor(data.standard_normal((64, 6)), dtype=torch.float32), torch.tensor(data.integers(0, 3, 64))
)
model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
with torch.no_grad():  # the same start in both libraries, whatever their random streams
    for p in model.parameters():
        p.copy_(torch.tensor(data.uniform(-0.3, 0.3, tuple(p.shape)), dtype=torch.float32))
ddp = DDP(model)
optimizer = torch.optim.Adam(ddp.parameters(), lr=1e-2)
loader = DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset, shuffle=False))
for epoch in range(3):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        loss.backward()
        optimizer.step()
np.savez(f"{sys.argv[1]}.{rank}.npz", *[p.detach().numpy() for p in model.parameters()])
print(f"rank {rank}: final loss {loss.item():.6f}")
dist.destroy_process_group()
