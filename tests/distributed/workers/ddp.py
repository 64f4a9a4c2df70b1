"""DDP against one process training on the concatenated batches; run under `mpiexec -n N`."""

from contextlib import nullcontext

import numpy as np

import glassgrad as torch
import glassgrad.distributed as dist
from glassgrad.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
data = np.random.default_rng(7)
X = data.standard_normal((6 * world * 4, 5))
Y = data.standard_normal((6 * world * 4, 3))


def model(seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3)).double()


def batch(step: int, ranks: range) -> tuple[torch.Tensor, torch.Tensor]:
    rows = np.concatenate([np.arange(6) + 6 * (world * step + r) for r in ranks])
    return torch.tensor(X[rows]), torch.tensor(Y[rows])


def train(net: torch.nn.Module, ranks: range, steps: int, accumulate: int = 1) -> None:
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    for step in range(steps):
        optimizer.zero_grad()
        for micro in range(accumulate):
            x, y = batch(accumulate * step + micro, ranks)
            local = accumulate > 1 and micro < accumulate - 1 and isinstance(net, DistributedDataParallel)
            with net.no_sync() if local else nullcontext():  # forward and backward inside, as PyTorch requires
                (((net(x) - y) ** 2).mean() / accumulate).backward()
        optimizer.step()


def params(net: torch.nn.Module) -> list[np.ndarray]:
    return [p.detach().numpy() for p in net.parameters()]


# The reference: one process, the concatenated batches of every rank. Each rank starts from its own seed;
# DDP must broadcast rank 0's weights, so the reference starts from seed 0.
reference = model(0)
train(reference, range(world), steps=4)
ddp = DistributedDataParallel(model(rank), bucket_cap_mb=0.0005)  # several buckets
assert len(ddp._buckets) > 1
train(ddp, range(rank, rank + 1), steps=4)
for got, expected in zip(params(ddp.module), params(reference), strict=True):
    np.testing.assert_allclose(got, expected, atol=1e-6, rtol=0)

# no_sync: gradients of two micro-batches accumulated locally, averaged once, equal one large batch
reference = model(0)
train(reference, range(world), steps=2, accumulate=2)
ddp = DistributedDataParallel(model(0))
train(ddp, range(rank, rank + 1), steps=2, accumulate=2)
for got, expected in zip(params(ddp.module), params(reference), strict=True):
    np.testing.assert_allclose(got, expected, atol=1e-6, rtol=0)

assert list(ddp.state_dict()) == [f"module.{k}" for k in ddp.module.state_dict()]


class TwoHeads(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = torch.nn.Linear(5, 3).double(), torch.nn.Linear(5, 3).double()

    def forward(self, x: torch.Tensor, use_b: bool) -> torch.Tensor:
        return self.b(x) if use_b else self.a(x)


# find_unused_parameters: rank 0 uses head a, the others head b; each head's gradient is the average over ranks
ddp = DistributedDataParallel(TwoHeads(), find_unused_parameters=True)
x, y = batch(0, range(rank, rank + 1))
((ddp(x, use_b=rank > 0) - y) ** 2).mean().backward()
grads = {n: p.grad for n, p in ddp.module.named_parameters()}
assert all(g is not None for g in grads.values()), "a head used on some rank gets the averaged gradient"

# without it, an unused parameter leaves the reduction unfinished: PyTorch's error at the next forward
ddp = DistributedDataParallel(TwoHeads())
((ddp(x, use_b=False) - y) ** 2).mean().backward()
try:
    ddp(x, use_b=False)
except RuntimeError as error:
    assert str(error).startswith("Expected to have finished reduction in the prior iteration")
else:
    raise AssertionError("an unfinished reduction must be reported")

dist.destroy_process_group()
print(f"rank {rank} of {world}: DDP equals one process on the whole batch")
