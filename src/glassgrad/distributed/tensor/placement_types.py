"""torch.distributed.tensor's placements: how a tensor would lie over one dimension of a device mesh.

Plain values (compared, hashed, printed as PyTorch prints them) with the chunk arithmetic libraries call;
glassgrad places no tensor by them.
"""

from __future__ import annotations

from dataclasses import dataclass


class Placement:
    def is_shard(self, dim: int | None = None) -> bool:
        return False

    def is_replicate(self) -> bool:
        return False

    def is_partial(self, reduce_op: str | None = None) -> bool:
        return False


@dataclass(frozen=True, repr=False)
class Shard(Placement):
    dim: int

    def is_shard(self, dim: int | None = None) -> bool:
        return dim is None or dim == self.dim

    @staticmethod
    def local_shard_size_and_offset(size_on_dim: int, num_chunks: int, rank: int) -> tuple[int, int]:
        """The size and offset of rank's piece when torch.chunk splits size_on_dim into num_chunks."""
        full_chunk = -(-size_on_dim // num_chunks)
        offset = min(rank * full_chunk, size_on_dim)
        return min(full_chunk, size_on_dim - offset), offset

    def __repr__(self) -> str:
        return f"Shard(dim={self.dim})"

    def __str__(self) -> str:
        return f"S({self.dim})"


@dataclass(frozen=True, repr=False)
class _StridedShard(Shard):
    split_factor: int = 1

    def __repr__(self) -> str:
        return f"_StridedShard(dim={self.dim}, sf={self.split_factor})"


@dataclass(frozen=True, repr=False)
class Replicate(Placement):
    def is_replicate(self) -> bool:
        return True

    def __repr__(self) -> str:
        return "Replicate()"

    def __str__(self) -> str:
        return "R"


@dataclass(frozen=True, repr=False)
class Partial(Placement):
    reduce_op: str = "sum"

    def is_partial(self, reduce_op: str | None = None) -> bool:
        return reduce_op is None or reduce_op == self.reduce_op

    def __repr__(self) -> str:
        return f"Partial({self.reduce_op})"

    def __str__(self) -> str:
        return f"P({self.reduce_op})"
