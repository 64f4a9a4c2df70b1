"""OpInfos of linear_cross_entropy (glassgrad/ops/linear_cross_entropy.py): input, linear weight and bias are
differentiable; the targets are drawn as class indices."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ..opinfo import ANY, OpInfo, Shapes, index

NAME = "glassgrad.nn.functional.linear_cross_entropy"
CLASSES = 3


@st.composite
def projections(draw: Any, batched: bool = True, out_features: tuple[int, ...] = ()) -> Shapes:
    """input (N, in) or (in,), linear weight (C, *out, in), targets (N, *out) or (), bias (C, *out)."""
    batch = (draw(st.integers(1, 3)),) if batched else ()
    features = draw(st.integers(1, 3))
    return (*batch, features), (CLASSES, *out_features, features), (*batch, *out_features), (CLASSES, *out_features)


def _lce(**kwargs: Any) -> Any:
    return lambda m, x, w, t, b: m.nn.functional.linear_cross_entropy(x, w, t, linear_bias=b, **kwargs)


_ERRORS = (
    lambda m: m.nn.functional.linear_cross_entropy(m.ones(2, 2, 4), m.ones(3, 4), m.tensor([0, 1])),
    lambda m: m.nn.functional.linear_cross_entropy(m.ones(2, 4), m.ones(3, 5), m.tensor([0, 1])),
    lambda m: m.nn.functional.linear_cross_entropy(m.ones(2, 4), m.ones(3, 4), m.tensor([0, 1]), linear_bias=m.ones(4)),
)
_DOMAINS = (ANY, ANY, index(CLASSES - 1), ANY)
OPS = [
    OpInfo(NAME, _lce(), shapes=projections(), domains=_DOMAINS, errors=_ERRORS),
    OpInfo(NAME, _lce(reduction="none", label_smoothing=0.2), shapes=projections(), domains=_DOMAINS, id="lce_none_smoothed"),
    OpInfo(NAME, _lce(reduction="sum", ignore_index=1), shapes=projections(), domains=_DOMAINS, id="lce_sum_ignore"),
    OpInfo(NAME, _lce(), shapes=projections(batched=False), domains=_DOMAINS, id="lce_unbatched"),
    OpInfo(NAME, _lce(), shapes=projections(out_features=(2,)), domains=_DOMAINS, id="lce_k_dimensional"),
]
