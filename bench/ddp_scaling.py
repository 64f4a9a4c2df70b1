"""Data-parallel scaling: W3's model trained on 2 MPI processes (1 thread each) against 1 process (1 thread).

W3 is the MLP of three nn.Linear(2048, 2048) with tanh, loss = sum; here it trains with SGD on one global batch
of 512: 512 rows in one process, or 256 per rank under DistributedDataParallel. Reported: median step time of
each, the speed-up and the scaling efficiency (speed-up / 2), the all-reduce of the gradients (48 MiB) timed
alone, and how much of it backward hid (1 - the wait after backward's last gradient / the all-reduce alone).
Run with `make bench-ddp` (or `bench/.venv/bin/python bench/ddp_scaling.py`).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402 - the thread variables must be set before NumPy loads

import glassgrad as torch  # noqa: E402
import glassgrad.distributed as dist  # noqa: E402
from glassgrad.nn.parallel import DistributedDataParallel  # noqa: E402

GLOBAL_BATCH, WIDTH, STEPS = 512, 2048, 12


def model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(*[layer for _ in range(3) for layer in (torch.nn.Linear(WIDTH, WIDTH), torch.nn.Tanh())])


def timed_steps(net: torch.nn.Module, rows: int) -> tuple[list[float], list[float]]:
    """Step times, and (under DDP) the wait for all-reduces after each backward."""
    x = torch.tensor(np.random.default_rng(1).standard_normal((rows, WIDTH)), dtype=torch.float32)
    optimizer = torch.optim.SGD(net.parameters(), lr=1e-4)
    steps, waits = [], []
    for _ in range(STEPS):
        start = time.perf_counter()
        optimizer.zero_grad()
        net(x).sum().backward()
        optimizer.step()
        steps.append(time.perf_counter() - start)
        waits.append(getattr(net, "comm_wait_s", 0.0))
    return steps[2:], waits[2:]  # the first steps warm up


def worker() -> None:
    dist.init_process_group("mpi")
    net = DistributedDataParallel(model())
    steps, waits = timed_steps(net, GLOBAL_BATCH // dist.get_world_size())
    grads = torch.zeros(sum(p.numel() for p in net.parameters()))
    alone = []
    for _ in range(5):
        dist.barrier()
        start = time.perf_counter()
        dist.all_reduce(grads, dist.ReduceOp.AVG)
        alone.append(time.perf_counter() - start)
    if dist.get_rank() == 0:
        print(json.dumps({"step": statistics.median(steps), "wait": statistics.median(waits), "allreduce": statistics.median(alone)}))
    dist.destroy_process_group()


def main() -> None:
    torch.set_num_threads(1)
    one = statistics.median(timed_steps(model(), GLOBAL_BATCH)[0])
    mpiexec = str(Path(sys.executable).parent / "mpiexec")
    out = subprocess.run([mpiexec, "-n", "2", sys.executable, __file__, "--worker"], capture_output=True, text=True, check=True)
    two = json.loads(out.stdout.strip().splitlines()[-1])
    speedup = one / two["step"]
    hidden = max(0.0, 1 - two["wait"] / two["allreduce"])
    print(f"W3 training step, global batch {GLOBAL_BATCH}, 1 thread per process")
    print(f"  1 process : {one * 1e3:8.1f} ms/step")
    print(f"  2 processes: {two['step'] * 1e3:8.1f} ms/step  speed-up {speedup:.2f}x, scaling efficiency {speedup / 2:.0%}")
    print(f"  all-reduce of the gradients alone {two['allreduce'] * 1e3:.1f} ms; waited {two['wait'] * 1e3:.1f} ms after "
          f"backward's last gradient: {hidden:.0%} of it hidden behind backward")


if __name__ == "__main__":
    worker() if "--worker" in sys.argv else main()
