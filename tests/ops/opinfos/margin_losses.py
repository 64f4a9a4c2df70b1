"""OpInfos of the multi-class and multi-label margin losses and the triplet loss with a distance function
(glassgrad/ops/margin_losses.py)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ..opinfo import Domain, OpInfo, Shapes, index
from .losses import CLASSES, WEIGHTS, _f

NN = "glassgrad.nn.functional."
LABELS = index(CLASSES - 1)
# multilabel targets list classes and end at the first -1; any draw from [-1, C - 1] is such a list.
LISTS = index(CLASSES - 1, low=-1)
# PyTorch's kernels have no double backward (it raises); glassgrad's compositions have one, so only first
# derivatives are compared.
FIRST = 1


@st.composite
def _rows(draw: Any, weight: bool = False, labels: str = "vector") -> Shapes:
    """(N, C) or (C,) scores with their targets: class indices (N,) or lists (N, C); a class weight when asked."""
    batch = draw(st.sampled_from([(), (1,), (3,)]))
    target = batch if labels == "vector" else (*batch, CLASSES)
    return ((*batch, CLASSES), target, (CLASSES,)) if weight else ((*batch, CLASSES), target)


def _multi_margin(**kw: Any) -> Any:
    def fn(m: Any, x: Any, y: Any, *w: Any) -> Any:
        return _f(m).multi_margin_loss(x, y, weight=w[0].to(x.dtype) if w else None, **kw)

    return fn


_ERRORS = (
    lambda m: _f(m).multi_margin_loss(m.zeros(3, 4), m.tensor([0, 1, 2]), p=3),
    lambda m: _f(m).multi_margin_loss(m.zeros(3, 4), m.tensor([0, 4, 1])),
    lambda m: _f(m).multi_margin_loss(m.zeros(3, 4), m.tensor([0, 1])),
    lambda m: _f(m).multi_margin_loss(m.zeros(3, 4), m.tensor([0, 1, 2]), weight=m.ones(3)),
    lambda m: _f(m).multi_margin_loss(m.zeros(1, 3, 4), m.tensor([0, 1, 2])),
    lambda m: _f(m).multi_margin_loss(m.zeros(3, 4), m.zeros(3)),
    lambda m: _f(m).multi_margin_loss(m.zeros(3, 4, dtype=m.int64), m.tensor([0, 1, 2])),
    lambda m: _f(m).multi_margin_loss(m.zeros(3, 4), m.tensor([0, 1, 2]), reduction="bad"),
    lambda m: _f(m).multilabel_margin_loss(m.zeros(2, 4), m.tensor([[0, 5, -1, 2]] * 2)),
    lambda m: _f(m).multilabel_margin_loss(m.zeros(2, 4), m.tensor([[0, 1]] * 2)),
    lambda m: _f(m).multilabel_margin_loss(m.zeros(2, 4), m.zeros(2, 4)),
    lambda m: _f(m).triplet_margin_with_distance_loss(m.zeros(2, 3), m.zeros(2, 3), m.zeros(3), margin=1.0),
    lambda m: _f(m).triplet_margin_with_distance_loss(m.zeros(2, 3), m.zeros(2, 3), m.zeros(2, 3), margin=0.0),
    lambda m: _f(m).triplet_margin_with_distance_loss(m.zeros(2, 3), m.zeros(2, 3), m.zeros(2, 3), reduction="avg"),
)

OPS = [
    OpInfo(NN + "multi_margin_loss", _multi_margin(), shapes=_rows(), domains=(Domain(), LABELS), order=FIRST,
           errors=_ERRORS[:8]),
    OpInfo(NN + "multi_margin_loss", _multi_margin(p=2, margin=0.5, reduction="none"), shapes=_rows(weight=True),
           domains=(Domain(), LABELS, WEIGHTS), order=FIRST, id="multi_margin_loss_p2_weight"),
    OpInfo(NN + "multi_margin_loss", _multi_margin(reduction="sum"), shapes=_rows(weight=True), domains=(Domain(), LABELS, WEIGHTS),
           order=FIRST, id="multi_margin_loss_sum"),
    OpInfo(NN + "multilabel_margin_loss", lambda m, x, y: _f(m).multilabel_margin_loss(x, y), shapes=_rows(labels="lists"),
           domains=(Domain(), LISTS), order=FIRST, errors=_ERRORS[8:11]),
    OpInfo(NN + "multilabel_margin_loss", lambda m, x, y: _f(m).multilabel_margin_loss(x, y, reduction="none"),
           shapes=_rows(labels="lists"), domains=(Domain(), LISTS), order=FIRST, id="multilabel_margin_loss_none"),
    OpInfo(NN + "multilabel_soft_margin_loss", lambda m, x, y: _f(m).multilabel_soft_margin_loss(x, y),
           shapes=_rows(labels="lists").map(lambda s: (s[0], s[0])), domains=(Domain(), Domain(0, 1))),
    OpInfo(NN + "multilabel_soft_margin_loss", lambda m, x, y, w: _f(m).multilabel_soft_margin_loss(x, y, w.to(x.dtype), reduction="none"),
           shapes=_rows(weight=True).map(lambda s: (s[0], s[0], s[2])), domains=(Domain(), Domain(0, 1), WEIGHTS),
           id="multilabel_soft_margin_loss_weight"),
    OpInfo(NN + "triplet_margin_with_distance_loss", lambda m, a, p, n: _f(m).triplet_margin_with_distance_loss(a, p, n),
           shapes=_rows().map(lambda s: (s[0],) * 3), errors=_ERRORS[11:]),
    OpInfo(NN + "triplet_margin_with_distance_loss", lambda m, a, p, n: _f(m).triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda u, v: (u - v).abs().sum(-1), margin=0.5, swap=True, reduction="none"),
        shapes=_rows().map(lambda s: (s[0],) * 3), id="triplet_margin_with_distance_loss_l1_swap"),
]
