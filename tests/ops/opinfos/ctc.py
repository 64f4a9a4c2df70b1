"""OpInfos of ctc_loss (glassgrad/ops/ctc.py): padded and concatenated targets, every reduction, blank, zero_infinity,
unbatched input. Inputs go through log_softmax: PyTorch's gradient is the one for the logits underneath (for raw
log_probs it differs from the derivative by exp(log_probs), which log_softmax's backward removes)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ..opinfo import OpInfo

NN = "glassgrad.nn.functional."
CLASSES = 4
# One target per sample (batches of up to 3); the second repeats a label, so that the blank between matters.
_TARGETS = np.array([[1, 2], [2, 2], [3, 0]])
_TARGET_LENGTHS = np.array([2, 2, 1])


def _ctc(**kw: Any) -> Any:
    def fn(m: Any, x: Any) -> Any:
        steps, batch = x.shape[:2]
        inputs = m.tensor(np.minimum([steps, steps - 1, steps], steps)[:batch])
        lp = m.nn.functional.log_softmax(x, 2)
        return m.nn.functional.ctc_loss(lp, m.tensor(_TARGETS[:batch]), inputs, m.tensor(_TARGET_LENGTHS[:batch]), **kw)

    return fn


def _concatenated(m: Any, x: Any) -> Any:
    batch = x.shape[1]
    flat = np.concatenate([t[:n] for t, n in zip(_TARGETS[:batch], _TARGET_LENGTHS[:batch], strict=True)])
    return m.nn.functional.ctc_loss(m.nn.functional.log_softmax(x, 2), m.tensor(flat), [x.shape[0]] * batch,
                                    list(_TARGET_LENGTHS[:batch]), reduction="sum")


def _second_derivative(m: Any) -> Any:
    x = m.zeros(4, 1, CLASSES, dtype=m.float64, requires_grad=True)
    loss = m.nn.functional.ctc_loss(x.log_softmax(2), m.tensor([[1, 2]]), [4], [2])
    (g,) = m.autograd.grad(loss, x, create_graph=True)
    return m.autograd.grad(g.sum(), x)


_SHAPES = st.sampled_from([((3, 1, CLASSES),), ((5, 2, CLASSES),), ((6, 3, CLASSES),)])
_ERRORS = (
    lambda m: m.nn.functional.ctc_loss(m.zeros(6, 2, 4), m.tensor([[1, 2]] * 2), [7, 5], [2, 2]),
    lambda m: m.nn.functional.ctc_loss(m.zeros(6, 2, 4), m.tensor([[1, 2]] * 2), [6, 5], [3, 2]),
    lambda m: m.nn.functional.ctc_loss(m.zeros(6, 2, 4), m.tensor([[1, 2]] * 2), [6, 5], [2, 2], blank=4),
    lambda m: m.nn.functional.ctc_loss(m.zeros(6, 2, 4), m.tensor([[1, 2]] * 2), [6], [2, 2]),
    lambda m: m.nn.functional.ctc_loss(m.zeros(6, 2, 4), m.tensor([[1, 2]] * 2), m.tensor([6.0, 5.0]), m.tensor([2, 2])),
    lambda m: m.nn.functional.ctc_loss(m.zeros(6, 2, 4), m.tensor([1, 2, 3]), [6, 5], [2, 2]),
    lambda m: m.nn.functional.ctc_loss(m.zeros(6, 2, 4), m.tensor([[1, 2]] * 2), [6, 5], [2, 2], reduction="avg"),
    _second_derivative,
)

OPS = [
    OpInfo(NN + "ctc_loss", _ctc(), shapes=_SHAPES, order=1, errors=_ERRORS),
    OpInfo(NN + "ctc_loss", _ctc(reduction="none", blank=3), shapes=_SHAPES, order=1, id="ctc_loss_none_blank"),
    OpInfo(NN + "ctc_loss", _concatenated, shapes=_SHAPES, order=1, id="ctc_loss_concatenated"),
    # A 2-step input cannot hold the target 2, 2 (it needs a blank between): an infinite loss, zeroed.
    OpInfo(NN + "ctc_loss", lambda m, x: m.nn.functional.ctc_loss(
        m.nn.functional.log_softmax(x, 2), m.tensor([[2, 2], [1, 3]][: x.shape[1]]), [2, 3][: x.shape[1]], [2, 2][: x.shape[1]],
        zero_infinity=True, reduction="none"), shapes=st.sampled_from([((3, 1, CLASSES),), ((3, 2, CLASSES),)]), order=1,
        id="ctc_loss_zero_infinity"),
    OpInfo(NN + "ctc_loss", lambda m, x: m.nn.functional.ctc_loss(m.nn.functional.log_softmax(x, 1), m.tensor([1, 3]),
                                                                   m.tensor(x.shape[0]), m.tensor(2)),
           shapes=st.sampled_from([((4, CLASSES),), ((3, CLASSES),)]), order=1, id="ctc_loss_unbatched"),
]
