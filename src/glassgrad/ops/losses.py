"""Loss functions of glassgrad.nn.functional.

Losses PyTorch implements as kernels (mse, smooth_l1, huber, nll, binary cross-entropy) have a
derivative entry each, named as PyTorch names them; the others are compositions of glassgrad ops,
as they are in PyTorch, so their graphs and gradients follow from the ops they use.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import result_type
from .._quiet import restore, silence
from ..autograd import grad_mode
from ..tensor import Tensor
from .activations import logsigmoid, tensor_log_softmax
from .binary import xlogy
from .creation import ones_like
from .distance import clamped_value
from .elementwise import (
    abs,
    add,
    broadcast_shape,
    clamp,
    div,
    exp,
    log,
    masked_fill,
    mul,
    neg,
    not_implemented_for,
    sigmoid,
    sign,
    sqrt,
    sub,
    where,
)
from .indexing import scatter_into_zeros
from .reduction import mean
from .reduction import sum as reduce_sum
from .shape import expand, reshape, unsqueeze
from .table import derivative, formulas_record

NAMESPACE = "glassgrad.nn.functional"


# -- reduction arguments ---------------------------------------------------------------------
def _reduction(reduction: str, size_average: bool | None = None, reduce: bool | None = None) -> str:
    """The reduction string, from the legacy size_average/reduce flags when given (with PyTorch's warning)."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
            UserWarning, stacklevel=3,
        )
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    return mean(loss) if reduction == "mean" else reduce_sum(loss) if reduction == "sum" else loss


def _per_element(grad: Tensor, reduction: str, count: int) -> Tensor:
    """The gradient reaching each element of an unreduced loss."""
    return grad / count if reduction == "mean" else grad


def _warn_on_size_mismatch(input: Tensor, target: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). This will "
            "likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning, stacklevel=3,
        )


def _not_differentiable(function: str, argument: str, t: Tensor | None) -> None:
    if t is not None and t.requires_grad and grad_mode.state.grad_enabled:
        raise RuntimeError(
            f"The function '{function}' is not differentiable with respect to argument '{argument}'. "
            "This input cannot have requires_grad True."
        )


def _broadcast(*tensors: Tensor) -> list[Tensor]:
    shape = broadcast_shape(*(t.shape for t in tensors))
    return [t if t.shape == shape else expand(t, shape) for t in tensors]


def _numpy_reduce(loss: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "none":
        return loss
    with np.errstate(all="ignore"):
        total = np.sum(loss)
        return np.asarray(total / loss.size if reduction == "mean" else total, dtype=loss.dtype)


# -- regression losses ------------------------------------------------------------------------
def _loss_entry(name: str, slope: Callable[[Tensor, Any], Tensor]) -> Any:
    """A loss of `input - target` whose derivative in the difference is `slope(diff, parameter)`."""

    def d_self(grad: Tensor, self: Tensor, target: Tensor, reduction: str, count: int, parameter: Any) -> Tensor:
        return slope(self - target, parameter) * _per_element(grad, reduction, count)

    def d_target(grad: Tensor, self: Tensor, target: Tensor, reduction: str, count: int, parameter: Any) -> Tensor:
        return neg(d_self(grad, self, target, reduction, count, parameter))

    return derivative(name, ("self", "target"), self=d_self, target=d_target)


MseLossBackward0 = _loss_entry("MseLossBackward0", lambda diff, _: diff * 2)
SmoothL1LossBackward0 = _loss_entry(
    "SmoothL1LossBackward0", lambda diff, beta: where(abs(diff) < beta, diff / beta, sign(diff))
)
HuberLossBackward0 = _loss_entry(
    "HuberLossBackward0", lambda diff, delta: where(abs(diff) < delta, diff, sign(diff) * delta)
)


def _regression(
    entry: Any, kernel: str, input: Tensor, target: Tensor, reduction: str, forward: Callable[[np.ndarray], np.ndarray],
    parameter: Any = None,
) -> Tensor:
    a, b = _broadcast(input, target)
    common = result_type(a, b)
    if not common.is_floating_point:
        raise not_implemented_for(kernel, common)
    a, b = a.to(common), b.to(common)
    with np.errstate(all="ignore"):
        out = _numpy_reduce(forward(a._data - b._data), reduction)
    return entry.record(out, (a, b), reduction=reduction, count=a.numel(), parameter=parameter)


def _weighted(loss: Tensor, weight: Tensor, input: Tensor, reduction: str, mean_by_weight: bool) -> Tensor:
    """PyTorch's weighted mse/l1/huber: weights of the input's size; 'mean' divides by their sum for mse and l1."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = mul(loss, weight)
    if reduction == "mean" and mean_by_weight:
        return div(reduce_sum(weighted), reduce_sum(weight))
    return _reduce(weighted, reduction)


def mse_loss(
    input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    _warn_on_size_mismatch(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if weight is not None:
        a, b = _broadcast(input, target)
        return _weighted(sub(a, b) ** 2, weight, input, reduction, mean_by_weight=True)
    return _regression(MseLossBackward0, "mse_cpu", input, target, reduction, lambda d: d * d)


def l1_loss(
    input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    _warn_on_size_mismatch(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    a, b = _broadcast(input, target)
    if weight is not None:
        return _weighted(abs(sub(a, b)), weight, input, reduction, mean_by_weight=True)
    return _reduce(abs(sub(a, b)), reduction)


def smooth_l1_loss(
    input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    _warn_on_size_mismatch(input, target)
    reduction = _reduction(reduction, size_average, reduce)
    if beta == 0.0:
        a, b = _broadcast(input, target)
        return _reduce(abs(sub(a, b)), reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _regression(
        SmoothL1LossBackward0, "smooth_l1_cpu", input, target, reduction,
        lambda d: np.where(np.abs(d) < beta, 0.5 * d * d / beta, np.abs(d) - 0.5 * beta), beta,
    )


def huber_loss(
    input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0, weight: Tensor | None = None
) -> Tensor:
    _warn_on_size_mismatch(input, target)
    reduction = _reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")

    def huber(how: str) -> Tensor:
        return _regression(
            HuberLossBackward0, "huber_cpu", input, target, how,
            lambda d: np.where(np.abs(d) < delta, 0.5 * d * d, delta * (np.abs(d) - 0.5 * delta)), delta,
        )

    if weight is not None:
        return _weighted(huber("none"), weight, input, reduction, mean_by_weight=False)
    return huber(reduction)


# -- classification losses ------------------------------------------------------------------------
def _nll_grad(
    grad: Tensor, self_shape: tuple[int, ...], classes_shape: tuple[int, ...], index: Tensor, coefficient: Tensor,
    ignored: Tensor | None, reduction: str, total_weight: float,
) -> Tensor:
    per_target = (
        grad / total_weight if reduction == "mean" else grad if reduction == "sum" else reshape(grad, coefficient.shape)
    )
    picked = coefficient * per_target
    if ignored is not None:
        picked = where(ignored, 0.0, picked)  # ignored targets get 0, never 0 * inf
    if formulas_record():
        return reshape(scatter_into_zeros(unsqueeze(picked, 1), classes_shape, 1, index), self_shape)
    # Nothing to record: the scatter is NumPy's alone, into the one array the gradient is (a target per row, so a put)
    out = np.zeros(classes_shape, dtype=picked._data.dtype)
    if out.ndim == 2:  # rows of classes: plain indexing, as np.put_along_axis costs four times more
        out[np.arange(len(out)), index._data[:, 0]] = picked._data
    else:
        np.put_along_axis(out, index._data, picked._data[:, None], axis=1)
    return Tensor._wrap(out.reshape(self_shape))


NllLossBackward0 = derivative("NllLossBackward0", self=_nll_grad)


_CLASS_INDEX_DTYPES = (np.dtype(np.int64), np.dtype(np.uint8))  # PyTorch's Long and Byte


def _check_nll_arguments(input: Tensor, target: Tensor, weight: Tensor | None) -> None:
    # NumPy's shapes (plain tuples): every loss call checks them, and a torch.Size is made per read
    shape, target_shape = input._data.shape, target._data.shape
    ndim, target_ndim = len(shape), len(target_shape)
    if ndim == 0:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    if ndim > 1 and (target_ndim == 0 or shape[0] != target_shape[0]):
        raise ValueError(
            f"Expected input batch_size ({shape[0]}) to match target batch_size ({target_shape[0] if target_ndim else 0})."
        )
    if ndim <= 2 and target_ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if ndim == 1 and target.numel() != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target_shape[0]}")
    if ndim > 2 and target_shape != (shape[0], *shape[2:]):
        raise RuntimeError(f"Expected target size {[shape[0], *shape[2:]]}, got {list(target_shape)}")
    if target._data.dtype not in _CLASS_INDEX_DTYPES:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.scalar_name}")
    classes = shape[0 if ndim == 1 else 1]
    if weight is not None:
        if weight.numel() != classes:
            raise RuntimeError(
                f"weight tensor should be defined either for all {classes} classes or no classes but got weight "
                f"tensor of shape: {list(weight.shape)}"
            )
        if weight.dtype is not input.dtype:
            raise RuntimeError(
                f"expected scalar type {input.dtype.scalar_name} but found {weight.dtype.scalar_name}"
            )
    _not_differentiable("nll_loss_forward", "weight", weight)


def nll_loss(
    input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None, ignore_index: int = -100,
    reduce: bool | None = None, reduction: str = "mean",
) -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    _check_nll_arguments(input, target, weight)
    # One layout for every case: classes on axis 1, a batch of one for a single (C,) input.
    x = input._data
    t = target._data.astype(np.int64, copy=False)
    if x.ndim == 1:
        x, t = x.reshape(1, -1), t.reshape(1)
    classes = x.shape[1]
    # Every target a class and none ignored: the usual batch, checked with one reduction (read as unsigned, a
    # negative target is above every class).
    if t.size and not 0 <= ignore_index < classes and t.view(np.uint64).max() < classes:
        valid = None
    else:
        valid = t != ignore_index
        out_of_range = valid & ((t < 0) | (t >= classes))
        if out_of_range.any():
            raise IndexError(f"Target {t[out_of_range][0]} is out of bounds.")
        if valid.all():
            valid = None
    safe = t if valid is None else np.where(valid, t, 0)
    if not classes:
        picked = np.zeros(t.shape, x.dtype)
    elif x.ndim == 2:  # rows of classes: plain indexing, as np.take_along_axis costs four times more
        picked = x[np.arange(len(safe)), safe]
    else:
        picked = np.take_along_axis(x, safe[:, None], axis=1)[:, 0]
    if weight is None and valid is None:  # every target counts once: the terms are the picked values negated
        coefficient = np.full(picked.shape, -1, picked.dtype)
        losses = -picked
        total_weight = float(t.size)
    else:
        if weight is None:
            w = valid.astype(x.dtype)
            total_weight = float(np.count_nonzero(valid))
        else:
            w = weight._data[safe] if valid is None else weight._data[safe] * valid
            total_weight = float(w.sum())
        coefficient = -w
        losses = coefficient * picked
    token = silence()
    try:
        out = (
            losses.reshape(target._data.shape) if reduction == "none"
            else losses.sum() if reduction == "sum" else losses.sum() / np.asarray(total_weight, x.dtype)
        )
    finally:
        restore(token)
    return NllLossBackward0.record(
        np.asarray(out, dtype=x.dtype), (input,), self_shape=input._data.shape, classes_shape=x.shape,
        index=Tensor._wrap(safe[:, None]), coefficient=Tensor._wrap(coefficient),
        ignored=None if valid is None else Tensor._wrap(~valid), reduction=reduction, total_weight=total_weight,
    )


def _class_view(t: Tensor, input: Tensor, class_dim: int) -> Tensor:
    """A (C,) weight shaped to broadcast along the class dim of `input`."""
    return reshape(t, tuple(-1 if i == class_dim else 1 for i in range(input.ndim)))


def _check_smoothing(label_smoothing: float) -> None:
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")


def _cross_entropy_probabilities(
    input: Tensor, target: Tensor, weight: Tensor | None, reduction: str, label_smoothing: float, class_dim: int
) -> Tensor:
    classes = input.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {classes} classes or no classes but got "
            f"weight tensor of shape: {list(weight.shape)}"
        )
    log_p = tensor_log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        _check_smoothing(label_smoothing)
        target = target * (1 - label_smoothing) + label_smoothing / classes
    terms = mul(log_p, target)
    if weight is not None:
        terms = mul(terms, _class_view(weight, input, class_dim))
    if reduction == "none":
        return neg(reduce_sum(terms, class_dim))
    total = neg(reduce_sum(terms))
    return div(total, input.numel() / classes if classes else 0.0) if reduction == "mean" else total


def _cross_entropy_smoothed(
    input: Tensor, target: Tensor, weight: Tensor | None, reduction: str, ignore_index: int, label_smoothing: float,
    class_dim: int,
) -> Tensor:
    """PyTorch's mix: (1 - s) * nll + s / C * (the loss against a uniform target), ignored targets left out."""
    log_p = tensor_log_softmax(input, class_dim)
    nll = nll_loss(log_p, target, weight, ignore_index=ignore_index, reduction=reduction)
    ignored = target == ignore_index
    terms = log_p if weight is None else mul(log_p, _class_view(weight, input, class_dim))
    smooth = masked_fill(neg(reduce_sum(terms, class_dim)), ignored, 0.0)
    if reduction == "mean":
        kept = target._data[~ignored._data]
        denominator = float(np.sum(weight._data[kept])) if weight is not None else float(kept.size)
        smooth = div(reduce_sum(smooth), denominator)
    elif reduction == "sum":
        smooth = reduce_sum(smooth)
    return add(mul(nll, 1 - label_smoothing), mul(smooth, label_smoothing / input.shape[class_dim]))


def cross_entropy(
    input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
    ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean", label_smoothing: float = 0.0,
) -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    class_dim = 0 if input.ndim == 1 else 1
    if input.shape == target.shape:  # same shape: the target holds class probabilities
        if not target.dtype.is_floating_point:
            raise RuntimeError(
                f"Expected floating point type for target with class probabilities, got {target.dtype.scalar_name}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing, class_dim)
    if label_smoothing > 0.0:
        _check_smoothing(label_smoothing)
        return _cross_entropy_smoothed(input, target, weight, reduction, ignore_index, label_smoothing, class_dim)
    return nll_loss(tensor_log_softmax(input, class_dim), target, weight, ignore_index=ignore_index, reduction=reduction)


# -- binary cross-entropy ------------------------------------------------------------------------
def _weighted_grad(grad: Tensor, weight: Tensor | None, reduction: str, count: int) -> Tensor:
    scaled = _per_element(grad, reduction, count)
    return scaled if weight is None else scaled * weight


BinaryCrossEntropyBackward0 = derivative(
    "BinaryCrossEntropyBackward0", ("self", "target"),
    self=lambda grad, self, target, weight, reduction, count: (
        _weighted_grad(grad, weight, reduction, count) * (self - target) / clamp((1 - self) * self, min=1e-12)
    ),
    target=lambda grad, self, weight, reduction, count: (
        _weighted_grad(grad, weight, reduction, count) * (log(1 - self) - log(self))
    ),
)


def _bce_with_logits_input_grad(grad: Tensor, self: Tensor, target: Tensor, weight: Tensor | None,
                                pos_weight: Tensor | None, reduction: str, count: int) -> Tensor:
    if pos_weight is None:
        slope = sigmoid(self) - target
    else:
        scaled_target = pos_weight * target
        slope = (scaled_target + 1 - target) * sigmoid(self) - scaled_target
    return _weighted_grad(grad, weight, reduction, count) * slope


def _bce_with_logits_target_grad(grad: Tensor, self: Tensor, weight: Tensor | None, pos_weight: Tensor | None,
                                 reduction: str, count: int) -> Tensor:
    slope = neg(self) if pos_weight is None else logsigmoid(neg(self)) - logsigmoid(self) * pos_weight
    return _weighted_grad(grad, weight, reduction, count) * slope


BinaryCrossEntropyWithLogitsBackward0 = derivative(
    "BinaryCrossEntropyWithLogitsBackward0", ("self", "target"),
    self=_bce_with_logits_input_grad, target=_bce_with_logits_target_grad,
)


def _expanded_weight(weight: Tensor | None, shape: tuple[int, ...], like: Tensor) -> Tensor | None:
    """A weight broadcast to the loss's shape, which it may not grow (PyTorch applies it in place)."""
    if weight is None:
        return None
    full = broadcast_shape(shape, weight.shape)
    if full != tuple(shape):
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, shape))}] doesn't match the broadcast shape "
            f"[{', '.join(map(str, full))}]"
        )
    return expand(weight, shape).to(like.dtype)


def binary_cross_entropy(
    input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
    reduce: bool | None = None, reduction: str = "mean",
) -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) is deprecated. "
            "Please ensure they have the same size."
        )
    if target.dtype is not input.dtype:
        raise RuntimeError(
            f"Found dtype {target.dtype.scalar_name} but expected {input.dtype.scalar_name}"
        )
    _not_differentiable("binary_cross_entropy", "weight", weight)
    w = _expanded_weight(weight, input.shape, input)
    x, t = input._data, target._data
    for name, values in (("input", x), ("target", t)):
        if np.any((values < 0) | (values > 1)):
            raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    with np.errstate(all="ignore"):
        loss = -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log1p(-x), -100))
    if w is not None:
        loss = loss * w._data
    return BinaryCrossEntropyBackward0.record(
        _numpy_reduce(loss, reduction), (input, target), weight=w, reduction=reduction, count=input.numel()
    )


def binary_cross_entropy_with_logits(
    input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
    reduce: bool | None = None, reduction: str = "mean", pos_weight: Tensor | None = None,
) -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    if not target.dtype.is_floating_point:
        raise RuntimeError(
            f"result type {result_type(input, target).scalar_name} can't be cast to the desired output type "
            f"{target.dtype.scalar_name}"
        )
    _not_differentiable("binary_cross_entropy_with_logits", "weight", weight)
    _not_differentiable("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    w, pw = (_expanded_weight(v, input.shape, input) for v in (weight, pos_weight))
    x, t = input._data, target._data
    with np.errstate(all="ignore"):
        log_sigmoid = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
        if pw is not None:
            log_sigmoid = log_sigmoid * ((pw._data - 1) * t + 1)
        loss = (1 - t) * x - log_sigmoid
    if w is not None:
        loss = loss * w._data
    # PyTorch accumulates the loss into a buffer of the target's dtype.
    out = _numpy_reduce(loss.astype(t.dtype), reduction)
    return BinaryCrossEntropyWithLogitsBackward0.record(
        out, (input, target), weight=w, pos_weight=pw, reduction=reduction, count=input.numel()
    )


SoftMarginLossBackward0 = derivative(
    "SoftMarginLossBackward0",
    # neg(target) first, as PyTorch's kernel: a bool target fails here in both.
    self=lambda grad, self, target, reduction, count: (
        sigmoid(neg(target) * self) * target * neg(_per_element(grad, reduction, count))
    ),
)


def soft_margin_loss(
    input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
) -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    _not_differentiable("soft_margin_loss", "target", target)
    shape = broadcast_shape(input.shape, target.shape)
    if shape != tuple(input.shape):  # PyTorch writes the loss into a tensor of the input's shape
        raise RuntimeError(
            f"output with shape {list(input.shape)} doesn't match the broadcast shape {list(shape)}"
        )
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {input.dtype.scalar_name}")
    with np.errstate(all="ignore"):
        loss = np.log1p(np.exp(-input._data * target._data)).astype(input._data.dtype)
    return SoftMarginLossBackward0.record(
        _numpy_reduce(loss, reduction), (input,), target=target, reduction=reduction, count=input.numel()
    )


# -- divergences and embeddings (compositions, as in PyTorch) --------------------------------------------
def kl_div(
    input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    if size_average is None and reduce is None and reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            UserWarning, stacklevel=2,
        )
    batchmean = reduction == "batchmean" and size_average is None and reduce is None
    how = "sum" if batchmean else _reduction(reduction, size_average, reduce)
    a, b = _broadcast(input, target)
    loss = mul(exp(b), sub(b, a)) if log_target else sub(xlogy(b, b), mul(b, a))
    reduced = _reduce(loss, how)
    return div(reduced, input.shape[0]) if batchmean and input.ndim else reduced


def margin_ranking_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average: bool | None = None,
    reduce: bool | None = None, reduction: str = "mean",
) -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: {input1.shape}, "
            f"input2: {input2.shape}, target: {target.shape} "
        )
    return _reduce(clamp(add(mul(neg(target), sub(input1, input2)), margin), min=0), reduction)


def hinge_embedding_loss(
    input: Tensor, target: Tensor, margin: float = 1.0, size_average: bool | None = None, reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    margin_part = where(target != 1, clamp(sub(margin, input), min=0), 0.0)
    self_part = where(target != -1, input, 0.0)
    return _reduce(add(margin_part, self_part), reduction)


def cosine_embedding_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average: bool | None = None,
    reduce: bool | None = None, reduction: str = "mean",
) -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    dim = target.ndim
    if dim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.ndim != dim + 1 or input2.ndim != dim + 1:
        raise RuntimeError(
            f"{dim}D target tensor expects {dim + 1}D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    epsilon = 1e-12
    product = reduce_sum(mul(input1, input2), dim)
    magnitudes = mul(add(reduce_sum(mul(input1, input1), dim), epsilon), add(reduce_sum(mul(input2, input2), dim), epsilon))
    cos = div(product, sqrt(magnitudes))
    positive = where(target == 1, sub(1, cos), 0.0)
    negative = where(target == -1, clamp(sub(cos, margin), min=0), 0.0)
    return _reduce(add(positive, negative), reduction)


def poisson_nll_loss(
    input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average: bool | None = None,
    eps: float = 1e-8, reduce: bool | None = None, reduction: str = "mean",
) -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    loss = sub(exp(input), mul(target, input)) if log_input else sub(input, mul(target, log(add(input, eps))))
    if full:
        stirling = add(sub(mul(target, log(target)), target), mul(log(mul(target, 2 * math.pi)), 0.5))
        loss = add(loss, masked_fill(stirling, target <= 1, 0))
    return _reduce(loss, reduction)


def gaussian_nll_loss(
    input: Tensor, target: Tensor, var: Tensor | float, full: bool = False, eps: float = 1e-6, reduction: str = "mean"
) -> Tensor:
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = mul(ones_like(input), var)
    elif not isinstance(var, Tensor):
        raise TypeError(f"any() received an invalid combination of arguments - got ({type(var).__name__})")
    elif bool(np.any(var._data < 0)):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        mismatched = input.ndim == var.ndim and sum(v for i, v in zip(input.shape, var.shape, strict=True) if i != v) == 1
        if input.shape[:-1] == var.shape:  # one variance per row: homoscedastic
            var = unsqueeze(var, -1)
        elif not mismatched:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    var = clamped_value(var, eps)
    loss = mul(add(log(var), div(sub(input, target) ** 2, var)), 0.5)
    if full:
        loss = add(loss, 0.5 * math.log(2 * math.pi))
    return _reduce(loss, reduction)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "mse_loss": mse_loss, "l1_loss": l1_loss, "smooth_l1_loss": smooth_l1_loss, "huber_loss": huber_loss,
    "cross_entropy": cross_entropy, "nll_loss": nll_loss, "binary_cross_entropy": binary_cross_entropy,
    "binary_cross_entropy_with_logits": binary_cross_entropy_with_logits, "kl_div": kl_div,
    "margin_ranking_loss": margin_ranking_loss, "hinge_embedding_loss": hinge_embedding_loss,
    "cosine_embedding_loss": cosine_embedding_loss,
    "poisson_nll_loss": poisson_nll_loss, "gaussian_nll_loss": gaussian_nll_loss, "soft_margin_loss": soft_margin_loss,
}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
