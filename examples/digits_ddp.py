"""The digits convnet of digits_cnn.py trained data-parallel on 2 processes, against 1 process.

Run with `make demo-distributed` (or `python examples/digits_ddp.py`). The script first trains on one
process, then launches itself on two MPI ranks (`mpiexec -n 2`), each training a DistributedDataParallel
copy of the model on half of every global batch (DistributedSampler); the global batch, epochs and
learning rate are the same. It prints both test accuracies and wall times. Each process uses one thread.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import glassgrad as torch
import glassgrad.distributed as dist
from glassgrad.nn.parallel import DistributedDataParallel
from glassgrad.utils.data import DataLoader, DistributedSampler

sys.path.insert(0, str(Path(__file__).resolve().parent))
from digits_cnn import accuracy, load_data, make_model  # the single-process demo's model and data

EPOCHS = 12
GLOBAL_BATCH = 32


def train(ranks: int, rank: int) -> tuple[float, float]:
    """(test accuracy, seconds to train) for one rank of `ranks`."""
    torch.manual_seed(0)
    train_set, test_set = load_data()
    model = make_model()
    sampler = DistributedSampler(train_set, num_replicas=ranks, rank=rank, seed=0)
    loader = DataLoader(train_set, batch_size=GLOBAL_BATCH // ranks, sampler=sampler)
    if ranks > 1:
        model = DistributedDataParallel(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    start = time.perf_counter()
    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)
        for images, labels in loader:
            optimizer.zero_grad()
            loss_fn(model(images), labels).backward()
            optimizer.step()
    seconds = time.perf_counter() - start
    return accuracy(model.module if ranks > 1 else model, test_set), seconds


def worker() -> None:
    dist.init_process_group("mpi")
    result = train(dist.get_world_size(), dist.get_rank())
    if dist.get_rank() == 0:
        print(json.dumps(result))
    dist.destroy_process_group()


def main() -> None:
    one_accuracy, one_seconds = train(1, 0)
    print(f"1 process : test accuracy {one_accuracy:.2%}, {one_seconds:.1f} s to train {EPOCHS} epochs")
    mpiexec = str(Path(sys.executable).parent / "mpiexec")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run([mpiexec, "-n", "2", sys.executable, __file__, "--worker"], env=env, capture_output=True, text=True, check=True)
    two_accuracy, two_seconds = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"2 processes: test accuracy {two_accuracy:.2%}, {two_seconds:.1f} s to train {EPOCHS} epochs "
          f"(speed-up {one_seconds / two_seconds:.2f}x, scaling efficiency {one_seconds / two_seconds / 2:.0%})")


if __name__ == "__main__":
    torch.set_num_threads(1)
    worker() if "--worker" in sys.argv else main()
