"""torch.layout and torch.memory_format: how a tensor's elements are arranged, as values scripts pass around.

glassgrad's dense layout is NumPy's strided array; glassgrad.sparse has the sparse ones. The memory formats name orders of a strided tensor's
dimensions in memory; `memory_format=` arguments accept them, and a tensor's strides say which one it has.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


class layout:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"glassgrad.{self.name}"

    def __reduce__(self) -> str:
        return self.name  # pickled as glassgrad's attribute of that name


class memory_format:
    __slots__ = ("name", "order")

    def __init__(self, name: str, order: tuple[int, ...] | None) -> None:
        self.name = name
        self.order = order  # dimensions from outermost to innermost in memory, for the format of that many dims

    def __repr__(self) -> str:
        return f"glassgrad.{self.name}"

    def __reduce__(self) -> str:
        return self.name


strided = layout("strided")
# glassgrad.sparse has COO tensors and 2-D matrices in the compressed layouts (CSR, CSC, BSR, BSC)
sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc = (
    layout(name) for name in ("sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc")
)
contiguous_format = memory_format("contiguous_format", None)
preserve_format = memory_format("preserve_format", None)
channels_last = memory_format("channels_last", (0, 2, 3, 1))
channels_last_3d = memory_format("channels_last_3d", (0, 2, 3, 4, 1))


def arranged(data: np.ndarray, memory_format: Any) -> np.ndarray:
    """A copy of data, row-major, or with its dimensions in memory in channels_last(_3d)'s order."""
    order = getattr(memory_format, "order", None)
    if order is None:
        return data.copy()
    if data.ndim != len(order):
        raise RuntimeError(f"required rank {len(order)} tensor to use {memory_format.name} format")
    return np.ascontiguousarray(data.transpose(order)).transpose(np.argsort(order))


def is_laid_out(shape: Sequence[int], strides: Sequence[int], order: Sequence[int]) -> bool:
    """Whether element strides are those of a dense tensor whose dimensions lie in memory in `order`
    (outermost first); a dimension of size 1 may have any stride, as in PyTorch."""
    expected = 1
    for dim in reversed(order):
        if shape[dim] != 1 and strides[dim] != expected:
            return False
        expected *= shape[dim]
    return True
