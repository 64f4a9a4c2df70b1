"""Flatten and Unflatten."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...tensor import Size, Tensor
from .module import Module


class Flatten(Module):
    """Flattens dims start_dim..end_dim (by default all but the batch dim)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expands dim `dim` into `unflattened_size` (one entry may be -1)."""

    def __init__(self, dim: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        if not isinstance(dim, int):
            raise TypeError(f"invalid argument type for dim parameter, expected int but got {type(dim).__name__}")
        if not isinstance(unflattened_size, (tuple, list, Size)):
            raise TypeError(f"unflattened_size must be tuple of ints, but found type {type(unflattened_size).__name__}")
        for idx, elem in enumerate(unflattened_size):
            if not isinstance(elem, int):
                raise TypeError(f"unflattened_size must be tuple of ints, but found element of type {type(elem).__name__} at pos {idx}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        dim = input._wrap_dim(self.dim)
        sizes = list(self.unflattened_size)
        if sizes.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        known = math.prod(s for s in sizes if s != -1)
        if -1 in sizes:
            sizes[sizes.index(-1)] = input.shape[dim] // known if known else 0
        if math.prod(sizes) != input.shape[dim]:
            raise RuntimeError(
                f"unflatten: Provided sizes {list(self.unflattened_size)} don't multiply up to the size of dim {self.dim} "
                f"({input.shape[dim]}) in the input tensor"
            )
        return input.view(*input.shape[:dim], *sizes, *input.shape[dim + 1:])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
