"""OpInfos of lifting and broadcasting several tensors (glassgrad/ops/stacking.py)."""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..opinfo import OpInfo, Shapes, broadcasting, fixed, unary
from .shape import _same

_vectors = st.lists(hnp.array_shapes(min_dims=0, max_dims=1, min_side=0, max_side=3), min_size=1, max_size=3).map(tuple)
_any_dims = unary(max_dims=4)  # 0-d to 4-d: every branch of atleast_3d
_several = st.lists(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=2), min_size=1, max_size=3).map(tuple)

_columns = st.lists(st.sampled_from([(), (2,), (2, 1), (2, 3)]), min_size=1, max_size=3).map(tuple)
# No empty vector: PyTorch 2.13 places it as a row but its BlockDiagBackward0 does not step past that row, so the
# later operands' gradients come from the wrong rows (its gradcheck fails); tests/ops/test_strided_extra.py
# checks glassgrad's against finite differences there.
_blocks = st.lists(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3).filter(lambda s: s != (0,)),
                   min_size=1, max_size=3).map(tuple)


def _split_shapes(min_dims: int, dim: int) -> st.SearchStrategy[Shapes]:
    """Shapes of min_dims to 3 dims whose split dim is even, so that it splits in two."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=1, max_side=3).map(
        lambda s: tuple(2 * x if i == dim else x for i, x in enumerate(s))).map(lambda s: (s,))


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
    OpInfo("glassgrad.column_stack", lambda m, *xs: m.column_stack(xs), shapes=_columns,
           errors=(lambda m: m.column_stack([]), lambda m: m.column_stack([m.zeros(2, 3, 4), m.zeros(2)]))),
    OpInfo("glassgrad.row_stack", lambda m, a, b: m.row_stack([a, b]), shapes=_same()),
    *(OpInfo(f"glassgrad.{name}", lambda m, x, name=name, sections=sections: getattr(m, name)(x, sections), shapes=shapes,
             also=(f"Tensor.{name}",), id=f"{name}_{'sections' if isinstance(sections, int) else 'indices'}", errors=errors)
      for name, shapes, errors in (
          ("hsplit", _split_shapes(2, 1), (lambda m: m.hsplit(m.zeros(()), 1), lambda m: m.hsplit(m.zeros(4, 6), 4))),
          ("vsplit", _split_shapes(2, 0), (lambda m: m.vsplit(m.zeros(6), 2),)),
          ("dsplit", _split_shapes(3, 2), (lambda m: m.dsplit(m.zeros(4, 6), 2), lambda m: m.dsplit(m.zeros(2, 2, 4), 0))))
      for sections in (2, [1, 3])),
    OpInfo("glassgrad.hsplit", lambda m, x: m.hsplit(x, 3), shapes=fixed((6,)), id="hsplit_vector"),
    OpInfo("glassgrad.block_diag", lambda m, *xs: m.block_diag(*xs), shapes=_blocks,
           errors=(lambda m: m.block_diag(m.zeros(2, 2, 2)),)),
    OpInfo("glassgrad.block_diag", lambda m, a: m.block_diag(m.ones(2, dtype=m.int64), a), shapes=unary(0, 2), id="block_diag_promoted"),
    OpInfo("glassgrad.cartesian_prod", lambda m, *xs: m.cartesian_prod(*xs), shapes=_vectors.map(lambda s: tuple(x or (1,) for x in s)),
           errors=(lambda m: m.cartesian_prod(m.zeros(2, 2)), lambda m: m.cartesian_prod(m.zeros(2), m.zeros(2, dtype=m.int64)))),
    *(OpInfo("glassgrad.combinations", lambda m, x, r=r, rep=rep: m.combinations(x, r, with_replacement=rep), shapes=unary(1, 1),
             id=f"combinations_{r}{'_with_replacement' if rep else ''}",
             errors=(lambda m: m.combinations(m.zeros(2, 2)), lambda m: m.combinations(m.zeros(3), -1)))
      for r in (1, 2, 3) for rep in (False, True)),
]
