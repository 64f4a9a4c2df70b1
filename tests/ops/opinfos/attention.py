"""OpInfos of scaled_dot_product_attention (glassgrad/ops/attention.py).

PyTorch runs 4-d inputs without dropout through a fused CPU kernel that has no second derivative
(it raises), so those OpInfos compare first derivatives only; glassgrad's second derivatives there
are checked by gradgradcheck in test_attention.py. Other ranks, a mask that requires grad and
dropout take PyTorch's math path, whose second derivatives are compared here.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ..opinfo import ANY, Domain, OpInfo, Shapes, seeded

NAME = "glassgrad.nn.functional.scaled_dot_product_attention"
BOOL = Domain(dtype="bool")
WHOLE = Domain(-2, 2, dtype="int64")  # a float mask that needs no gradient: integers, cast in the call


def _sdpa(m: Any) -> Any:
    return m.nn.functional.scaled_dot_product_attention


@st.composite
def attention_shapes(draw: Any, lead: int = 2, mask: str = "", kv_heads: int = 0, min_len: int = 1) -> Shapes:
    """query (*lead, L, E), key (*lead, S, E), value (*lead, S, Ev), then a mask: "2d" (L, S), "3d" (1, L, S) or
    "4d" (B, 1, L, S). Ev differs from E only off the fused kernel's 4-d inputs (lead 2), which need them equal.

    kv_heads > 0 gives key and value that many heads (dim -3) where the query has twice as many.
    """
    batch = tuple(draw(st.integers(1, 2)) for _ in range(lead))
    q_len, kv_len, e = draw(st.integers(min_len, 3)), draw(st.integers(min_len, 3)), draw(st.integers(1, 3))
    ev = draw(st.sampled_from([e, e + 1])) if lead != 2 else e
    kv_batch = batch
    if kv_heads:
        batch = (*batch[:-1], 2 * kv_heads)
        kv_batch = (*batch[:-1], kv_heads)
    shapes = ((*batch, q_len, e), (*kv_batch, kv_len, e), (*kv_batch, kv_len, ev))
    if not mask:
        return shapes
    return (*shapes, {"2d": (q_len, kv_len), "3d": (1, q_len, kv_len), "4d": (*batch[:1], 1, q_len, kv_len)}[mask])


_ERRORS = (
    lambda m: _sdpa(m)(m.ones(1, 2, 3), m.ones(1, 2, 3, dtype=m.float64), m.ones(1, 2, 3)),
    lambda m: _sdpa(m)(m.ones(3), m.ones(3), m.ones(3)),
    lambda m: _sdpa(m)(m.ones(1, 2, 3, dtype=m.int64), m.ones(1, 2, 3, dtype=m.int64), m.ones(1, 2, 3, dtype=m.int64)),
    lambda m: _sdpa(m)(m.ones(1, 2, 3), m.ones(1, 2, 3), m.ones(1, 2, 3), attn_mask=m.ones(2, 2, dtype=m.int64)),
    lambda m: _sdpa(m)(m.ones(1, 2, 3), m.ones(1, 2, 3), m.ones(1, 2, 3), attn_mask=m.ones(2, 2, dtype=m.float64)),
    lambda m: _sdpa(m)(m.ones(1, 2, 3), m.ones(1, 2, 3), m.ones(1, 2, 3), attn_mask=m.ones(3, 2, 2)),
    lambda m: _sdpa(m)(m.ones(1, 2, 3), m.ones(1, 2, 3), m.ones(1, 2, 3), is_causal=True, attn_mask=m.ones(2, 2)),
    lambda m: _sdpa(m)(m.ones(1, 2, 3), m.ones(1, 2, 3), m.ones(1, 2, 3), dropout_p=1.5),
    lambda m: _sdpa(m)(m.ones(1, 1, 2, 3), m.ones(1, 1, 2, 3), m.ones(1, 1, 2, 3), dropout_p=-0.5),
    lambda m: _sdpa(m)(m.ones(1, 3, 2, 2), m.ones(1, 2, 2, 2), m.ones(1, 2, 2, 2), enable_gqa=True),
    lambda m: _sdpa(m)(m.ones(2, 2, 2), m.ones(2, 2), m.ones(2, 2), enable_gqa=True),  # no heads dim to group
    lambda m: _sdpa(m)(m.ones(1, 3, 2, 2), m.ones(1, 2, 2, 2), m.ones(1, 2, 2, 2)),  # heads neither match nor broadcast
    lambda m: _sdpa(m)(m.ones(2, 2), m.ones(2, 3), m.ones(2, 3)),  # query and key of different sizes
    lambda m: _sdpa(m)([1.0], m.ones(2, 3), m.ones(2, 3)),
    lambda m: _sdpa(m)(m.ones(2, 3), m.ones(2, 3), m.ones(2, 3), attn_mask=1.0),
)

OPS = [
    # PyTorch's fused kernel: first derivatives only (its second raises).
    OpInfo(NAME, lambda m, q, k, v: _sdpa(m)(q, k, v), shapes=attention_shapes(), order=1, id="sdpa_fused", errors=_ERRORS),
    OpInfo(NAME, lambda m, q, k, v, a: _sdpa(m)(q, k, v, attn_mask=a), shapes=attention_shapes(mask="2d"),
           domains=(ANY, ANY, ANY, BOOL), order=1, id="sdpa_fused_bool_mask"),
    OpInfo(NAME, lambda m, q, k, v, a: _sdpa(m)(q, k, v, attn_mask=a.to(q.dtype) / 2, is_causal=True),
           shapes=attention_shapes(mask="4d"), domains=(ANY, ANY, ANY, WHOLE), order=1, id="sdpa_fused_causal_float_mask"),
    OpInfo(NAME, lambda m, q, k, v: _sdpa(m)(q, k, v, scale=0.3, enable_gqa=True), shapes=attention_shapes(kv_heads=1),
           order=1, id="sdpa_fused_gqa_scale"),
    # PyTorch's math path: second derivatives too.
    OpInfo(NAME, lambda m, q, k, v: _sdpa(m)(q, k, v, is_causal=True), shapes=attention_shapes(lead=1, min_len=0),
           id="sdpa_3d_causal"),
    OpInfo(NAME, lambda m, q, k, v, a: _sdpa(m)(q, k, v, attn_mask=a), shapes=attention_shapes(lead=3, mask="2d"),
           domains=(ANY, ANY, ANY, BOOL), id="sdpa_5d_bool_mask"),
    OpInfo(NAME, lambda m, q, k, v, a: _sdpa(m)(q, k, v, attn_mask=a, scale=-0.5), shapes=attention_shapes(mask="4d"),
           id="sdpa_differentiable_mask"),
    OpInfo(NAME, lambda m, q, k, v, a: _sdpa(m)(q, k, v, attn_mask=a), shapes=attention_shapes(mask="3d"),
           domains=(ANY, ANY, ANY, BOOL), id="sdpa_4d_3d_mask"),
    OpInfo(NAME, lambda m, q, k, v, a: _sdpa(m)(q, k, v, attn_mask=a.to(m.float32)), shapes=attention_shapes(lead=0, mask="2d"),
           domains=(ANY, ANY, ANY, WHOLE), id="sdpa_2d_float32_mask"),
    OpInfo(NAME, lambda m, q, k, v: _sdpa(m)(q, k, v, enable_gqa=True), shapes=attention_shapes(lead=1, kv_heads=2),
           id="sdpa_3d_gqa"),
    # Dropout draws from each library's own generator: shapes and dtypes compared, gradients gradchecked under one
    # seed; test_attention.py checks the draws.
    OpInfo(NAME, seeded(lambda m, q, k, v: _sdpa(m)(q, k, v, dropout_p=0.4)), shapes=attention_shapes(), values=False,
           id="sdpa_dropout"),
]
