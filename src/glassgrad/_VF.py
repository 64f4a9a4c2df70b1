"""torch._VF: the namespace of ops that PyTorch's Python wrappers call under the public names, and the unique
overloads that always return every output (_unique and _unique2 an empty int64 tensor for one not asked for), as
its internals call them. Any other name is the op of the same name in torch's namespace."""

from __future__ import annotations

from typing import Any

from .ops.sorting import unique
from .tensor import Tensor


def _all_outputs(input: Tensor, dim: int | None, return_inverse: bool, return_counts: bool, sorted: bool) -> tuple[Tensor, ...]:
    results = unique(input, sorted=sorted, return_inverse=True, return_counts=True, dim=dim)
    values, inverse, counts = results
    empty = Tensor._wrap(inverse._data[:0].reshape(0))
    return values, inverse if return_inverse else empty, counts if return_counts else empty


def _unique(input: Tensor, sorted: bool = True, return_inverse: bool = False) -> tuple[Tensor, Tensor]:
    values, inverse, _ = _all_outputs(input, None, return_inverse, False, sorted)
    return values, inverse


def _unique2(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False) -> tuple[Tensor, ...]:
    return _all_outputs(input, None, return_inverse, return_counts, sorted)


def unique_dim(input: Tensor, dim: int, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False) -> tuple[Tensor, ...]:
    """Along a dim, PyTorch computes (and returns) the inverse and the counts whether or not they are asked for."""
    return _all_outputs(input, dim, True, True, sorted)


def __getattr__(name: str) -> Any:
    import glassgrad

    return getattr(glassgrad, name)
