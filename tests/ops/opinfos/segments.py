"""OpInfos of segment_reduce (glassgrad/ops/segments.py): first derivatives only, as PyTorch has no second
(tests/ops/test_segment_reduce.py checks the refusal, ties and offsets)."""

from __future__ import annotations

from typing import Any

from ..opinfo import OpInfo, unary


def _segmented(reduce: str, empty: bool = True, **kw: Any) -> Any:
    """Segments along dim 0, the middle one empty unless `empty` is False (an empty segment's mean, max or min is
    NaN or infinite without `initial`, which finite differences cannot handle)."""

    def fn(m: Any, x: Any) -> Any:
        n = x.shape[0]
        lengths = [n // 2, 0, n - n // 2] if empty else [n // 2, n - n // 2]
        return m.segment_reduce(x, reduce, lengths=m.tensor(lengths), **kw)

    return fn


_ERRORS = (
    lambda m: m.segment_reduce(m.ones(3), "sum"),
    lambda m: m.segment_reduce(m.ones(3), "median", lengths=m.tensor([3])),
    lambda m: m.segment_reduce(m.ones(3), "sum", lengths=m.tensor([1, 1])),
    lambda m: m.segment_reduce(m.ones(3), "sum", lengths=m.tensor([4, -1])),
    lambda m: m.segment_reduce(m.ones(3), "sum", lengths=m.tensor([1.0, 2.0])),
    lambda m: m.segment_reduce(m.ones(3), "sum", indices=m.tensor([0, 0, 1])),
    lambda m: m.segment_reduce(m.ones(2, 3), "sum", lengths=m.tensor([1, 2]), axis=1),
    lambda m: m.segment_reduce(m.ones(3, dtype=m.int64), "sum", lengths=m.tensor([3])),
)
OPS = [
    OpInfo("glassgrad.segment_reduce", _segmented("sum"), shapes=unary(min_dims=1), order=1, errors=_ERRORS),
    OpInfo("glassgrad.segment_reduce", _segmented("prod"), shapes=unary(min_dims=1), order=1, id="segment_prod"),
    *(OpInfo("glassgrad.segment_reduce", _segmented(reduce, empty=False), shapes=unary(min_dims=2, min_side=2), order=1,
             id=f"segment_{reduce}") for reduce in ("mean", "max", "min", "amin")),
    *(OpInfo("glassgrad.segment_reduce", _segmented(reduce, initial=0.5), shapes=unary(min_dims=1), order=1,
             id=f"segment_{reduce}_initial") for reduce in ("sum", "mean", "max", "min", "prod")),
    OpInfo("glassgrad.segment_reduce", lambda m, x: m.segment_reduce(x, "max", offsets=m.tensor([0, x.shape[0] // 2,
           x.shape[0]]), unsafe=True), shapes=unary(min_dims=2, min_side=2), order=1, id="segment_offsets"),
]
