"""The connectionist temporal classification loss of glassgrad.nn.functional (ctc_loss), with PyTorch's CPU algorithm.

The forward is the alpha recursion over the extended target (blanks between and around the labels) in log space,
vectorized over the batch and the target positions, one time step after another; the negative log-likelihood per
sample is a node (CtcLossBackward0) and the reduction composes glassgrad ops on it, as at::ctc_loss does. The
backward runs the beta recursion and returns PyTorch's gradient, exp(log_probs) - exp(log(alpha beta) + nll -
log_probs): the derivative for logits fed through log_softmax, which differs from the derivative for log_probs
by a term that log_softmax's backward removes. Like PyTorch's, that gradient has no derivative of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..tensor import Tensor
from .elementwise import clamp, where
from .losses import _reduction
from .reduction import mean
from .reduction import sum as reduce_sum
from .shape import squeeze
from .table import NoForwardAD, derivative

NAMESPACE = "glassgrad.nn.functional"
Lengths = Tensor | Sequence[int]


def _refuse(grad: Tensor) -> Tensor:
    raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


CtcLossBackwardBackward0 = derivative("CtcLossBackwardBackward0", ("grad", "log_probs"), grad=_refuse, log_probs=_refuse)


def _logsumexp3(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """log(e^a + e^b + e^c) shifted by the largest term (0 when all are -inf), summed in PyTorch's order."""
    top = np.maximum(np.maximum(a, b), c)
    top = np.where(top == -np.inf, 0, top)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.log(np.exp(a - top) + np.exp(b - top) + np.exp(c - top)) + top


def _shifted(values: np.ndarray, by: int, allowed: np.ndarray | None = None) -> np.ndarray:
    """values[..., s - by] along the last axis (by < 0: s + |by|), -inf where that position does not exist or is not allowed."""
    out = np.full_like(values, -np.inf)
    if by > 0:
        out[..., by:] = values[..., :-by]
    else:
        out[..., :by] = values[..., -by:]
    return out if allowed is None else np.where(allowed, out, -np.inf)


class _Extended:
    """The extended targets (blank, l1, blank, l2, ..., blank) of a batch, padded to the longest."""

    def __init__(self, targets: np.ndarray, target_lengths: np.ndarray, blank: int) -> None:
        batch, longest = len(target_lengths), int(target_lengths.max(initial=0))
        labels = np.full((batch, 2 * longest + 1), blank, dtype=np.int64)
        labels[:, 1::2] = targets[:, :longest]
        self.labels = labels
        self.valid = np.arange(labels.shape[1]) <= 2 * target_lengths[:, None]
        # A skip over a blank (s - 2 -> s) is allowed between different labels only.
        self.skip = np.zeros(labels.shape, dtype=bool)
        self.skip[:, 2:] = labels[:, 2:] != labels[:, :-2]
        self.lengths = target_lengths

    def log_probs_at(self, lp_t: np.ndarray) -> np.ndarray:
        """lp_t (N, C) at each sample's extended labels: (N, S')."""
        return np.take_along_axis(lp_t, self.labels, axis=1)


def _alphas(lp: np.ndarray, ext: _Extended, input_lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log_alpha (T, N, S') and each sample's negative log-likelihood."""
    steps, batch = lp.shape[:2]
    alpha = np.full((steps, batch, ext.labels.shape[1]), -np.inf, dtype=lp.dtype)
    first = ext.log_probs_at(lp[0])
    alpha[0, :, 0] = first[:, 0]
    alpha[0, :, 1:2] = np.where(ext.lengths[:, None] > 0, first[:, 1:2], -np.inf)
    for t in range(1, steps):
        prev = alpha[t - 1]
        step = _logsumexp3(prev, _shifted(prev, 1), _shifted(prev, 2, ext.skip)) + ext.log_probs_at(lp[t])
        alpha[t] = np.where(ext.valid, step, -np.inf)
    last = alpha[np.maximum(input_lengths - 1, 0), np.arange(batch)]  # (N, S'): each sample's last step
    ends = 2 * ext.lengths
    end_blank = np.take_along_axis(last, ends[:, None], 1)[:, 0]
    end_label = np.where(ext.lengths > 0, np.take_along_axis(last, np.maximum(ends - 1, 0)[:, None], 1)[:, 0], -np.inf)
    nll = -_logsumexp3(end_blank, end_label, np.full_like(end_blank, -np.inf))
    # No input steps: only an empty target has probability 1.
    nll = np.where(input_lengths == 0, np.where(ext.lengths == 0, 0, np.inf), nll)
    return alpha, nll.astype(lp.dtype)


def _ctc_grad(grad: Tensor, log_probs: Tensor, ext: _Extended, input_lengths: np.ndarray, alpha: np.ndarray,
              nll: np.ndarray, zero_infinity: bool) -> Tensor:
    """PyTorch's ctc_loss_backward_cpu_template, vectorized: beta from the last valid step, then per class the
    log of the summed alpha * beta, and the gradient for logits through log_softmax."""
    lp = log_probs._data
    steps, batch, classes = lp.shape
    beta = np.full_like(alpha, -np.inf)
    ends = 2 * ext.lengths
    positions = np.arange(ext.labels.shape[1])
    skip_back = np.zeros_like(ext.skip)  # the move s + 2 -> s, allowed where s -> s + 2 is
    skip_back[:, :-2] = ext.skip[:, 2:]
    for t in range(steps - 1, -1, -1):
        at_t = ext.log_probs_at(lp[t])
        is_last = (input_lengths - 1 == t)[:, None]
        start = np.where((positions == ends[:, None]) | ((positions == ends[:, None] - 1) & (ext.lengths[:, None] > 0)), at_t, -np.inf)
        if t < steps - 1:
            following = beta[t + 1]
            later = _logsumexp3(following, _shifted(following, -1), _shifted(following, -2, skip_back)) + at_t
        else:
            later = np.full_like(at_t, -np.inf)
        beta[t] = np.where(ext.valid, np.where(is_last, start, np.where((t < input_lengths - 1)[:, None], later, -np.inf)), -np.inf)
    # PyTorch assigns (not adds) the last step's term of the last label after the final blank's: when a target
    # ends in the blank label itself (an invalid target), only that term counts there.
    last_label = np.take_along_axis(ext.labels, np.maximum(ends - 1, 0)[:, None], 1)[:, 0]
    overwritten = (ext.lengths > 0) & (last_label == ext.labels[:, 0])
    beta[np.maximum(input_lengths - 1, 0)[overwritten], np.flatnonzero(overwritten), ends[overwritten]] = -np.inf
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        both = alpha + beta  # (T, N, S')
        top = both.max(axis=2, initial=-np.inf, keepdims=True)
        top = np.where(np.isfinite(top), top, 0)
        sums = np.zeros((steps, batch, classes), dtype=np.result_type(lp.dtype, np.float64))
        np.add.at(sums, (slice(None), np.arange(batch)[:, None], ext.labels), np.where(ext.valid, np.exp(both - top), 0))
        log_sums = np.log(sums) + top  # -inf for the classes no valid position carries
        out = (np.exp(lp) - np.exp(log_sums + nll[None, :, None] - lp)) * grad._data[None, :, None]
    out = np.where((np.arange(steps)[:, None] < input_lengths[None, :])[..., None], out, 0)
    if zero_infinity:
        out = np.where(np.isinf(nll)[None, :, None], 0, out)
    return CtcLossBackwardBackward0.record(out.astype(lp.dtype), (grad, log_probs))


CtcLossBackward0 = derivative(
    "CtcLossBackward0", ("log_probs",), jvp=NoForwardAD("_ctc_loss"),
    log_probs=lambda grad, log_probs, ext, input_lengths, alpha, nll, zero_infinity: _ctc_grad(
        grad, log_probs, ext, input_lengths, alpha, nll, zero_infinity),
)


def _lengths(name: str, lengths: Lengths, batch: int) -> np.ndarray:
    if isinstance(lengths, Tensor):
        if lengths.dtype.is_floating_point or lengths.dtype.is_complex:
            raise RuntimeError(f"{name} must be integral")
        values = lengths._data.reshape(-1).astype(np.int64)
    elif isinstance(lengths, (list, tuple)):
        values = np.asarray(lengths, dtype=np.int64).reshape(-1)
    else:
        raise TypeError(
            f"ctc_loss(): argument '{name}' must be a tuple of ints or a Tensor, not {type(lengths).__name__}"
        )
    if len(values) != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    return values


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Lengths, target_lengths: Lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The negative log-likelihood of the targets under all alignments of log_probs (T, N, C) or (T, C)."""
    reduction = _reduction(reduction)
    batched = log_probs.ndim == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    steps, batch, classes = lp.shape
    inputs, lengths = _lengths("input_lengths", input_lengths, batch), _lengths("target_lengths", target_lengths, batch)
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    labels = targets._data.astype(np.int64)
    if labels.ndim == 1:  # concatenated targets (an unbatched target too): each sample's slice, padded
        if len(labels) != lengths.sum():
            raise RuntimeError(
                f"Expected tensor to have size {lengths.sum()} at dimension 0, but got size {len(labels)} for argument #2 "
                "'targets' (while checking arguments for ctc_loss_allocate_outputs)"
            )
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        padded = np.full((batch, int(lengths.max(initial=0))), blank, dtype=np.int64)
        for b in range(batch):
            padded[b, : lengths[b]] = labels[offsets[b] : offsets[b + 1]]
        labels = padded
    else:
        labels = labels.reshape(batch, -1)
        for b in range(batch):
            if lengths[b] > labels.shape[1]:
                raise RuntimeError(
                    f"Expected tensor to have size at least {lengths[b]} at dimension 1, but got size {labels.shape[1]} for "
                    "argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)"
                )
    for b in range(batch):
        if inputs[b] > steps:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {steps}, but got value {inputs[b]} (while checking arguments "
                "for ctc_loss_allocate_outputs)"
            )
    ext = _Extended(labels, lengths, blank)
    alpha, nll = _alphas(lp._data, ext, inputs)
    attrs = {"ext": ext, "input_lengths": inputs, "alpha": alpha, "nll": nll, "zero_infinity": zero_infinity}
    loss = CtcLossBackward0.record(nll, (lp,), **attrs)
    if zero_infinity:
        loss = where(Tensor._wrap(np.isinf(nll)), Tensor._wrap(np.zeros((), dtype=nll.dtype)), loss)
    if reduction == "mean":
        return mean(loss / clamp(Tensor._wrap(lengths.astype(nll.dtype)), min=1))
    if reduction == "sum":
        return reduce_sum(loss)
    return loss if batched else squeeze(loss, 0)


FUNCTIONS: dict[str, Callable[..., Any]] = {"ctc_loss": ctc_loss}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
