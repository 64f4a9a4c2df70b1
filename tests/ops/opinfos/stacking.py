"""OpInfos of lifting and broadcasting several tensors (glassgrad/ops/stacking.py)."""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..opinfo import OpInfo, broadcasting, unary
from .shape import _same

_vectors = st.lists(hnp.array_shapes(min_dims=0, max_dims=1, min_side=0, max_side=3), min_size=1, max_size=3).map(tuple)
_any_dims = unary(max_dims=4)  # 0-d to 4-d: every branch of atleast_3d
_several = st.lists(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=2), min_size=1, max_size=3).map(tuple)

OPS = [
    *(op for name in ("atleast_1d", "atleast_2d", "atleast_3d") for op in (
        OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x), shapes=_any_dims,
               errors=(lambda m, name=name: getattr(m, name)(3), lambda m, name=name: getattr(m, name)(m.ones(2), 3))),
        OpInfo(f"glassgrad.{name}", lambda m, *xs, name=name: getattr(m, name)(*xs), shapes=_several, id=f"{name}_several"),
        OpInfo(f"glassgrad.{name}", lambda m, *xs, name=name: getattr(m, name)(list(xs)), shapes=_several, id=f"{name}_list"),
    )),
    OpInfo("glassgrad.broadcast_tensors", lambda m, *xs: m.broadcast_tensors(*xs), shapes=broadcasting(3, max_side=3),
           errors=(lambda m: m.broadcast_tensors(m.ones(2), m.ones(3)), lambda m: m.broadcast_tensors(m.ones(2), 3),
                   lambda m: m.broadcast_tensors([m.ones(2)]))),
    # broadcast_shapes takes no tensors: the drawn tensors give it their shapes (as a Size, a list and an int), and a
    # tensor of the answer's shape carries it back to the comparison.
    OpInfo("glassgrad.broadcast_shapes",
           lambda m, a, b, c: m.zeros(m.broadcast_shapes(a.shape, list(b.shape), c.shape[-1] if c.ndim else 1)),
           shapes=broadcasting(3, max_side=3), order=0,
           errors=(lambda m: m.broadcast_shapes((2,), (3,)), lambda m: m.broadcast_shapes((2, 3), [3, 1]),
                   lambda m: m.broadcast_shapes((-1,)), lambda m: m.broadcast_shapes(1.5))),
    OpInfo("glassgrad.hstack", lambda m, a, b: m.hstack([a, b]), shapes=_same(), errors=(lambda m: m.hstack([]),)),
    OpInfo("glassgrad.vstack", lambda m, a, b: m.vstack((a, b)), shapes=_same()),
    OpInfo("glassgrad.dstack", lambda m, a, b: m.dstack([a, b]), shapes=_same()),
    OpInfo("glassgrad.meshgrid", lambda m, *xs: m.meshgrid(*xs, indexing="ij"), shapes=_vectors,
           errors=(lambda m: m.meshgrid(m.zeros(2, 2), indexing="ij"), lambda m: m.meshgrid(m.zeros(2), indexing="yx"),
                   lambda m: m.meshgrid(m.zeros(2), m.zeros(2, dtype=m.int64), indexing="ij"))),
    OpInfo("glassgrad.meshgrid", lambda m, *xs: m.meshgrid(list(xs), indexing="xy"), shapes=_vectors, id="meshgrid_xy"),
]
