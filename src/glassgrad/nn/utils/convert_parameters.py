"""Flatten parameters into one vector and back."""

from __future__ import annotations

from collections.abc import Iterable

from ...tensor import Tensor
from ..modules.module import typename


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """One 1-D tensor of all parameters, differentiable (it is a cat of views)."""
    from ...ops.shape import cat

    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Replace each parameter's data with its slice of vec (through .data, so no version bump, as in PyTorch)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer : pointer + n].view_as(param).data
        pointer += n
