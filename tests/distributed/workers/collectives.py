"""Every collective against NumPy on the gathered inputs; run under `mpiexec -n N` (tests/distributed/test_mpi.py)."""

import numpy as np

import glassgrad as torch
import glassgrad.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
# Every rank can compute every rank's input: the expected result of a collective is plain NumPy over them.
inputs = [np.random.default_rng(r).standard_normal((3, 4)) for r in range(world)]
mine = inputs[rank]


def fresh() -> torch.Tensor:
    return torch.tensor(mine.copy(), dtype=torch.float64)


for op, reduce in [
    (dist.ReduceOp.SUM, np.sum), (dist.ReduceOp.AVG, np.mean), (dist.ReduceOp.MAX, np.max),
    (dist.ReduceOp.MIN, np.min), (dist.ReduceOp.PRODUCT, np.prod),
]:
    t = fresh()
    version = t._version
    dist.all_reduce(t, op)
    np.testing.assert_allclose(t.numpy(), reduce(np.stack(inputs), axis=0), rtol=1e-12)
    assert t._version == version + 1, "an all_reduce is an in-place change"

    t = fresh()
    work = dist.all_reduce(t, op, async_op=True)
    assert work.wait()
    np.testing.assert_allclose(t.numpy(), reduce(np.stack(inputs), axis=0), rtol=1e-12)

    t = fresh()
    dist.reduce(t, dst=world - 1, op=op)
    if rank == world - 1:
        np.testing.assert_allclose(t.numpy(), reduce(np.stack(inputs), axis=0), rtol=1e-12)

    big = torch.tensor(np.tile(mine.ravel(), world), dtype=torch.float64)  # world blocks of 12
    part = torch.zeros(12, dtype=torch.float64)
    dist.reduce_scatter_tensor(part, big, op)
    np.testing.assert_allclose(part.numpy(), reduce(np.stack([x.ravel() for x in inputs]), axis=0), rtol=1e-12)

# a non-contiguous tensor is written back through its own strides
t = torch.tensor(np.asfortranarray(mine), dtype=torch.float64).t()
dist.all_reduce(t)
np.testing.assert_allclose(t.numpy(), np.sum(inputs, axis=0).T, rtol=1e-12)

t = fresh()
dist.broadcast(t, src=world - 1)
np.testing.assert_array_equal(t.numpy(), inputs[world - 1])

outs = [torch.zeros(3, 4, dtype=torch.float64) for _ in range(world)]
dist.all_gather(outs, fresh())
for got, expected in zip(outs, inputs, strict=True):
    np.testing.assert_array_equal(got.numpy(), expected)

out = torch.zeros(world * 3, 4, dtype=torch.float64)
dist.all_gather_into_tensor(out, fresh())
np.testing.assert_array_equal(out.numpy(), np.concatenate(inputs))

gathered = [torch.zeros(3, 4, dtype=torch.float64) for _ in range(world)] if rank == 0 else None
dist.gather(fresh(), gathered, dst=0)
if rank == 0:
    for got, expected in zip(gathered, inputs, strict=True):
        np.testing.assert_array_equal(got.numpy(), expected)

t = torch.zeros(3, 4, dtype=torch.float64)
dist.scatter(t, [torch.tensor(x, dtype=torch.float64) for x in inputs] if rank == 1 else None, src=1)
np.testing.assert_array_equal(t.numpy(), inputs[rank])

if rank == 0:
    dist.send(torch.tensor(inputs[0], dtype=torch.float64), dst=1)
elif rank == 1:
    t = torch.zeros(3, 4, dtype=torch.float64)
    assert dist.recv(t) == 0
    np.testing.assert_array_equal(t.numpy(), inputs[0])

evens = dist.new_group([r for r in range(world) if r % 2 == 0])
if rank % 2 == 0:
    t = fresh()
    dist.all_reduce(t, group=evens)
    np.testing.assert_allclose(t.numpy(), np.sum(inputs[::2], axis=0), rtol=1e-12)
    assert dist.get_world_size(evens) == len(inputs[::2])
else:
    assert evens is None

dist.barrier()
dist.destroy_process_group()
print(f"rank {rank} of {world}: every collective agrees with NumPy")
