"""OpInfos of cdist (glassgrad/ops/distance.py), on both of PyTorch's paths.

The direct path's gradient (_cdist_backward) has no derivative in PyTorch, so those OpInfos stop at order 1 and
check instead that a second derivative raises what PyTorch raises. The matrix-product path (p = 2, more than 25
rows or compute_mode="use_mm_for_euclid_dist") differentiates twice; its inputs are kept apart (x2 shifted by 10)
because near a zero distance the expanded |a|^2 - 2ab + |b|^2 is rounding noise that no two BLAS agree on.
"""

from __future__ import annotations

from typing import Any

from hypothesis.extra import numpy as hnp

from ..opinfo import OpInfo, fixed

INF = float("inf")
PAIRS = hnp.mutually_broadcastable_shapes(signature="(m,d),(n,d)->(m,n)", max_dims=2, min_side=0, max_side=4).map(
    lambda r: r.input_shapes
)


def _second_derivative(m: Any, p: float) -> Any:
    x = m.ones(2, 3, dtype=m.float64, requires_grad=True)
    (g,) = m.autograd.grad(m.cdist(x, x * 2, p).sum(), x, create_graph=True)
    return m.autograd.grad(g.sum(), x)


def _pdist_second_derivative(m: Any) -> Any:
    x = m.tensor([[0.0, 1.0], [2.0, -1.0], [1.0, 1.0]], dtype=m.float64, requires_grad=True)
    (g,) = m.autograd.grad(m.pdist(x).sum(), x, create_graph=True)
    return m.autograd.grad(g.sum(), x)


_ERRORS = (
    lambda m: m.cdist(m.ones(2, 3), m.ones(2, 3), compute_mode="sometimes"), lambda m: m.cdist(m.ones(2, 3), m.ones(2, 3), -1.0),
    lambda m: m.cdist(m.ones(3), m.ones(2, 3)), lambda m: m.cdist(m.ones(2, 3), m.ones(2, 4)),
    lambda m: m.cdist(m.ones(2, 3, dtype=m.int64), m.ones(2, 3)), lambda m: m.cdist(m.ones(2, 3), m.ones(2, 3, dtype=m.float64)),
    lambda m: m.cdist(m.ones(2, 2, 3), m.ones(3, 2, 3)),
    *(lambda m, p=p: _second_derivative(m, p) for p in (0.0, 1.0, 2.0, 0.5, 3.0, INF)),
)

# At least one row: PyTorch's pdist backward crashes the process (a segmentation fault) on an input without rows.
_ROWS = hnp.array_shapes(min_dims=2, max_dims=2, min_side=0, max_side=4).filter(lambda s: s[0] > 0).map(lambda s: (s,))
_PDIST_ERRORS = (
    lambda m: m.pdist(m.ones(2, 2, 3)),
    lambda m: m.pdist(m.ones(2, 3, dtype=m.int64)),
    lambda m: m.pdist(m.ones(2, 3), -1.0),
    _pdist_second_derivative,
)

OPS = [
    OpInfo("glassgrad.cdist", lambda m, a, b: m.cdist(a, b), shapes=PAIRS, order=1, errors=_ERRORS),
    *(OpInfo("glassgrad.cdist", lambda m, a, b, p=p: m.cdist(a, b, p), shapes=PAIRS, order=1, id=f"cdist_p{p}")
      for p in (0.0, 1.0, 3.0, 1.5, 0.5, INF)),
    OpInfo("glassgrad.cdist", lambda m, a, b: m.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"), shapes=PAIRS,
           order=1, id="cdist_no_mm"),
    OpInfo("glassgrad.cdist", lambda m, a, b: m.cdist(a, b + 10, compute_mode="use_mm_for_euclid_dist"), shapes=PAIRS,
           id="cdist_mm"),
    # more than 25 rows take the matrix-product path unasked (more elements than the float32 and gradcheck tests draw)
    OpInfo("glassgrad.cdist", lambda m, a, b: m.cdist(a.repeat(9, 1), b + 10), shapes=fixed((3, 2), (2, 2)), id="cdist_mm_rows"),
    # PyTorch's pdist gradient (_pdist_backward) has no derivative, nor has glassgrad's: order 1, and the refusal is an error case.
    OpInfo("glassgrad.pdist", lambda m, x: m.pdist(x), shapes=_ROWS, order=1, errors=_PDIST_ERRORS),
    *(OpInfo("glassgrad.nn.functional.pdist", lambda m, x, p=p: m.nn.functional.pdist(x, p), shapes=_ROWS, order=1,
             id=f"pdist_p{p}") for p in (0.0, 1.0, 0.5, 3.0, INF)),
]
