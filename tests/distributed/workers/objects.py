"""The object collectives with PyTorch's semantics (lists filled in place, src/dst, groups); run under `mpiexec -n N`
(tests/distributed/test_mpi.py)."""

import glassgrad.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()


def payload(r: int) -> dict:
    """What rank r sends: an object pickling must carry whole (nested containers, None, a string of its own)."""
    return {"rank": r, "metrics": [r * 0.5, None], "name": f"worker-{r}"}


gathered = [None] * world
assert dist.all_gather_object(gathered, payload(rank)) is None
assert gathered == [payload(r) for r in range(world)], gathered

for dst in range(world):
    out = [None] * world if rank == dst else None
    dist.gather_object(payload(rank), out, dst=dst)
    assert out == ([payload(r) for r in range(world)] if rank == dst else None), (dst, out)
try:
    dist.gather_object(payload(rank), [None] * world if rank != 0 else None, dst=0)
except ValueError as error:
    expected = "must be specified on destination rank" if rank == 0 else "must NOT be specified on non-destination"
    assert expected in str(error), error
else:
    raise AssertionError("gather_object accepted a list on the wrong rank")

src = world - 1
objects = [payload(src), "two", 3] if rank == src else [None, None, None]
alias = objects
dist.broadcast_object_list(objects, src=src)
assert alias is objects and objects == [payload(src), "two", 3], objects

out = [None]
dist.scatter_object_list(out, [payload(r) for r in range(world)] if rank == 0 else None, src=0)
assert out == [payload(rank)], out
try:
    dist.scatter_object_list([], None, src=0)
except ValueError as error:
    assert "scatter_object_output_list to be a list of size at least 1" in str(error)
else:
    raise AssertionError("scatter_object_list accepted an empty output list")

# A subgroup of the first two ranks: its ranks number from 0 within it, the rest take no part.
pair = dist.new_group([0, 1])
if pair is not None:
    in_pair = [None, None]
    dist.all_gather_object(in_pair, rank * 10, group=pair)
    assert in_pair == [0, 10], in_pair
    out = [None]
    dist.scatter_object_list(out, ["a", "b"] if rank == 1 else None, group=pair, group_src=1)
    assert out == [["a", "b"][rank]], out

# src and dst are global ranks, group_src and group_dst ranks within the group, as in PyTorch.
last_two = dist.new_group([world - 2, world - 1])
if last_two is not None:
    out = [None]
    dist.scatter_object_list(out, ["x", "y"] if rank == world - 1 else None, src=world - 1, group=last_two)
    assert out == [["x", "y"][rank - (world - 2)]], out
    got = [None, None] if rank == world - 2 else None
    dist.gather_object(rank, got, dst=world - 2, group=last_two)
    assert got == ([world - 2, world - 1] if rank == world - 2 else None), got
try:
    dist.broadcast_object_list([None], src=0, group_src=0)
except ValueError as error:
    assert "Can't specify both group_rank and global_rank" in str(error)
else:
    raise AssertionError("broadcast_object_list accepted both src and group_src")

dist.destroy_process_group()
print(f"rank {rank} of {world}: object collectives agree")
