"""Multi-class and multi-label margin losses of glassgrad.nn.functional, and the triplet losses.

PyTorch computes multi_margin_loss and multilabel_margin_loss in kernels with a backward of their own; here
each is a composition of glassgrad ops (gather, relu, masks, sums) with the same values and gradients:
the kernels count a hinge only where it is strictly positive, which is relu's derivative. The other two
are compositions in PyTorch too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import int64
from ..tensor import Tensor
from .activations import logsigmoid, relu
from .binary import minimum
from .distance import pairwise_distance
from .elementwise import clamp, neg, not_implemented_for
from .indexing import gather
from .losses import _not_differentiable, _reduce, _reduction
from .reduction import mean
from .reduction import sum as reduce_sum
from .shape import reshape, unsqueeze
from .table import refuse_forward_ad

NAMESPACE = "glassgrad.nn.functional"


def _as_rows(name: str, input: Tensor, target: Tensor) -> tuple[Tensor, int]:
    """input as (N, C) rows (a vector or a scalar is one row), after PyTorch's checks of input and target."""
    if input.ndim > 2 or (input.ndim > 0 and input.numel() == 0 and input.shape[-1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {list(input.shape)}")
    if target.dtype is not int64:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.scalar_name}")
    if not input.dtype.is_floating_point:
        raise not_implemented_for(f"{name}_cpu_kernel", input.dtype)
    classes = input.shape[-1] if input.ndim else 1
    return reshape(input, (-1, classes)), classes


def multi_margin_loss(
    input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
    size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
) -> Tensor:
    """Per sample: sum over classes i != y of weight[y] * max(0, margin - x[y] + x[i])^p, divided by C."""
    refuse_forward_ad("multi_margin_loss", input, weight)
    reduction = _reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    rows, classes = _as_rows("multi_margin_loss", input, target)
    if target.numel() != rows.shape[0] or target.ndim > 1:
        raise RuntimeError(
            f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples (batch "
            f"size). Expected target size [{rows.shape[0]}], but got {list(target.shape)}. Input has shape {list(input.shape)}."
        )
    if weight is not None:
        if weight.numel() != classes:
            raise RuntimeError(f"inconsistent weight size, expected {classes} but got {list(weight.shape)}")
        if weight.dtype is not input.dtype:
            raise RuntimeError(f"expected scalar type {input.dtype.scalar_name} but found {weight.dtype.scalar_name}")
        _not_differentiable("multi_margin_loss", "weight", weight)
    labels = target._data.reshape(-1)
    if labels.size and (labels.min() < 0 or labels.max() >= classes):
        raise RuntimeError("target out of range")
    index = Tensor._wrap(labels[:, None])
    hinge = relu(margin - gather(rows, 1, index) + rows)
    if p == 2:
        hinge = hinge * hinge
    others = labels[:, None] != np.arange(classes)  # the target's own term is left out, not counted as `margin`
    scale = others if weight is None else others * weight._data[labels][:, None]
    loss = reduce_sum(hinge * Tensor._wrap(scale.astype(rows._data.dtype)), 1) / classes
    return _reduce(reshape(loss, target.shape), reduction)


def multilabel_margin_loss(
    input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
) -> Tensor:
    """Per sample: sum over its target classes j and non-target classes i of max(0, 1 - (x[j] - x[i])), divided by C.

    A row of target lists class indices and ends at its first -1.
    """
    refuse_forward_ad("multilabel_margin_loss_forward", input)
    reduction = _reduction(reduction, size_average, reduce)
    rows, classes = _as_rows("multilabel_margin_loss", input, target)
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    labels = target._data.reshape(rows.shape)
    if labels.size and (labels.min() < -1 or labels.max() >= classes):
        raise RuntimeError("argument #2 'target' is out of range")
    listed = np.cumprod(labels >= 0, axis=1).astype(bool)  # the entries before the first -1
    is_target = np.zeros(rows.shape, dtype=bool)
    sample, position = np.nonzero(listed)
    is_target[sample, labels[sample, position]] = True
    picked = gather(rows, 1, Tensor._wrap(np.where(listed, labels, 0)))  # (N, K): x at each listed target
    hinge = relu(1 - unsqueeze(picked, 2) + unsqueeze(rows, 1))  # (N, K, C)
    pairs = listed[:, :, None] & ~is_target[:, None, :]
    loss = reduce_sum(hinge * Tensor._wrap(pairs.astype(rows._data.dtype)), (1, 2)) / classes
    return _reduce(reshape(loss, input.shape[:-1]), reduction)


def multilabel_soft_margin_loss(
    input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
    reduce: bool | None = None, reduction: str = "mean",
) -> Tensor:
    """The mean over classes of each class's binary logistic loss: PyTorch's composition."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    loss = neg(target * logsigmoid(input) + (1 - target) * logsigmoid(neg(input)))
    if weight is not None:
        loss = loss * weight
    loss = reduce_sum(loss, input.ndim - 1) / input.shape[input.ndim - 1]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return loss if reduction == "none" else mean(loss) if reduction == "mean" else reduce_sum(loss)


def _check_triplet(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float) -> None:
    """The triplet losses' checks: a positive margin, and three inputs of one rank."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: "
            f"anchor {anchor.ndim}D, positive {positive.ndim}D, and negative {negative.ndim}D inputs"
        )


def triplet_margin_loss(
    anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2, eps: float = 1e-6,
    swap: bool = False, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
) -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    _check_triplet(anchor, positive, negative, margin)
    to_positive = pairwise_distance(anchor, positive, p, eps)
    to_negative = pairwise_distance(anchor, negative, p, eps)
    if swap:
        to_negative = minimum(to_negative, pairwise_distance(positive, negative, p, eps))
    return _reduce(clamp(to_positive + margin - to_negative, min=0), reduction)


def triplet_margin_with_distance_loss(
    anchor: Tensor, positive: Tensor, negative: Tensor, *, distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
    margin: float = 1.0, swap: bool = False, reduction: str = "mean",
) -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d pairwise_distance unless given."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_triplet(anchor, positive, negative, margin)
    distance = distance_function if distance_function is not None else pairwise_distance
    to_positive, to_negative = distance(anchor, positive), distance(anchor, negative)
    if swap:
        to_negative = minimum(to_negative, distance(positive, negative))
    return _reduce(clamp(margin + to_positive - to_negative, min=0), reduction)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "multi_margin_loss": multi_margin_loss, "multilabel_margin_loss": multilabel_margin_loss,
    "multilabel_soft_margin_loss": multilabel_soft_margin_loss,
    "triplet_margin_loss": triplet_margin_loss, "triplet_margin_with_distance_loss": triplet_margin_with_distance_loss,
}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
