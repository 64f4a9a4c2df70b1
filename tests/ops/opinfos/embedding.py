"""OpInfos of embedding and embedding_bag (glassgrad/ops/embedding.py)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ..opinfo import Domain, OpInfo, Shapes, index

NN = "glassgrad.nn.functional."


def F(m: Any) -> Any:
    return m.nn.functional


@st.composite
def embedding_shapes(draw: Any) -> Shapes:
    return (tuple(draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2)))), (4, draw(st.integers(1, 3))))


_EMBED_ERRORS = (
    lambda m: F(m).embedding(m.tensor([4]), m.zeros(4, 2)),
    lambda m: F(m).embedding(m.tensor([1.0]), m.zeros(4, 2)),
)
_EMBEDDING = [
    OpInfo(NN + "embedding", lambda m, i, w: F(m).embedding(i, w), shapes=embedding_shapes(), domains=(index(3), Domain()),
           errors=_EMBED_ERRORS),
    OpInfo(NN + "embedding", lambda m, i, w: F(m).embedding(i, w, padding_idx=-3, scale_grad_by_freq=True),
           shapes=embedding_shapes(), domains=(index(3), Domain()), id="embedding_padding_freq"),
    # max_norm rescales weight rows in place before the lookup, so finite differences cannot see through it.
    OpInfo(NN + "embedding", lambda m, i, w: (F(m).embedding(i, w, max_norm=1.0), w.detach()), shapes=embedding_shapes(),
           domains=(index(3), Domain()), order=0, id="embedding_max_norm"),
    # torch.embedding is ATen's: weight first, and a padding_idx that is negative or past the end names no row.
    OpInfo("glassgrad.embedding", lambda m, i, w: m.embedding(w, i), shapes=embedding_shapes(), domains=(index(3), Domain()),
           id="torch_embedding", errors=(lambda m: m.embedding(m.zeros(4, 2), m.tensor([4])),
                                         lambda m: m.embedding(m.zeros(4, 2), m.tensor([1.0])),
                                         lambda m: m.embedding(m.zeros(4), m.tensor([1])))),
    OpInfo("glassgrad.embedding", lambda m, i, w: m.embedding(w, i, 2, True), shapes=embedding_shapes(),
           domains=(index(3), Domain()), id="torch_embedding_padding_freq",
           xfail={"gradcheck": "the padding row gets no gradient by definition, as in PyTorch; finite differences see one"}),
    OpInfo("glassgrad.embedding", lambda m, i, w: m.embedding(w, i, padding_idx=-2) + m.embedding(w, i, 7),
           shapes=embedding_shapes(), domains=(index(3), Domain()), id="torch_embedding_no_padding_row"),
]


@st.composite
def bag_shapes(draw: Any, two_d: bool = False, per_sample_weights: bool = False) -> Shapes:
    """Indices (a 1-D list cut into bags by offsets, or a 2-D batch of equal bags), a 4-row weight, and maybe
    one weight per index."""
    indices = (draw(st.integers(0, 3)), draw(st.integers(1, 3))) if two_d else (draw(st.integers(0, 6)),)
    shapes = (indices, (4, draw(st.integers(1, 3))))
    return (*shapes, indices) if per_sample_weights else shapes


def _offsets(m: Any, i: Any, include_last: bool = False) -> Any:
    """Three bags, the middle one empty, and with include_last_offset the end of the input."""
    n = i.shape[0]
    return m.tensor([0, n // 2, n // 2, *([n] if include_last else [])])


_BAG_ERRORS = (
    lambda m: F(m).embedding_bag(m.tensor([1, 2]), m.zeros(4, 2), m.tensor([1])),  # offsets[0] != 0
    lambda m: F(m).embedding_bag(m.tensor([1, 2]), m.zeros(4, 2), m.tensor([0, 3])),  # offsets past the end
    lambda m: F(m).embedding_bag(m.tensor([1, 4]), m.zeros(4, 2), m.tensor([0])),  # index out of range
    lambda m: F(m).embedding_bag(m.tensor([1.0]), m.zeros(4, 2), m.tensor([0])),  # float indices
    lambda m: F(m).embedding_bag(m.tensor([1]), m.zeros(4, 2), m.tensor([0.0])),  # float offsets
    lambda m: F(m).embedding_bag(m.tensor([[1]]), m.zeros(4, 2), m.tensor([0])),  # 2-D input with offsets
    lambda m: F(m).embedding_bag(m.tensor([1]), m.zeros(4, 2)),  # 1-D input without offsets
    lambda m: F(m).embedding_bag(m.tensor([[[1]]]), m.zeros(4, 2)),  # 3-D input
    lambda m: F(m).embedding_bag(m.tensor([1]), m.zeros(4), m.tensor([0])),  # 1-D weight
    lambda m: F(m).embedding_bag(m.tensor([1]), m.zeros(4, 2), m.tensor([0]), mode="min"),
    lambda m: F(m).embedding_bag(m.tensor([1]), m.zeros(4, 2), m.tensor([0]), mode="max", scale_grad_by_freq=True),
    lambda m: F(m).embedding_bag(m.tensor([1]), m.zeros(4, 2), m.tensor([0]), per_sample_weights=m.ones(1)),  # mean
    lambda m: F(m).embedding_bag(m.tensor([1]), m.zeros(4, 2), m.tensor([0]), mode="sum", per_sample_weights=m.ones(2)),
    lambda m: F(m).embedding_bag(m.tensor([1]), m.zeros(4, 2), m.tensor([0]), mode="sum",
                                 per_sample_weights=m.ones(1, dtype=m.float64)),  # dtypes
    lambda m: F(m).embedding_bag(m.tensor([1]), m.zeros(4, 2), m.tensor([0]), padding_idx=4),
    lambda m: F(m).embedding_bag(m.tensor([1]), m.zeros(4, 2), m.tensor([], dtype=m.int64), include_last_offset=True),
    lambda m: F(m).embedding_bag(m.zeros(2, 0, dtype=m.int64), m.zeros(4, 2)),  # bags of length 0
)
_BAGS = [
    # PyTorch has no second derivatives of embedding_bag (test_embedding_bag.py checks that both raise).
    OpInfo(NN + "embedding_bag", lambda m, i, w: F(m).embedding_bag(i, w), shapes=bag_shapes(two_d=True),
           domains=(index(3), Domain()), order=1, errors=_BAG_ERRORS),
    OpInfo(NN + "embedding_bag", lambda m, i, w, p: F(m).embedding_bag(i, w, _offsets(m, i), mode="sum", per_sample_weights=p,
                                                                        padding_idx=-2),
           shapes=bag_shapes(per_sample_weights=True), domains=(index(3), Domain(), Domain()), order=1, id="embedding_bag_sum"),
    OpInfo(NN + "embedding_bag", lambda m, i, w: F(m).embedding_bag(i, w, _offsets(m, i, True), mode="max", include_last_offset=True,
                                                                     padding_idx=0),
           shapes=bag_shapes(), domains=(index(3), Domain()), order=1, id="embedding_bag_max"),
    OpInfo(NN + "embedding_bag", lambda m, i, w: F(m).embedding_bag(i, w, padding_idx=1, scale_grad_by_freq=True),
           shapes=bag_shapes(two_d=True), domains=(index(3), Domain()), order=1, id="embedding_bag_mean_freq"),
    # max_norm rescales weight rows in place before the lookup, so finite differences cannot see through it.
    OpInfo(NN + "embedding_bag", lambda m, i, w: (F(m).embedding_bag(i, w, _offsets(m, i), max_norm=1.0, mode="sum"), w.detach()),
           shapes=bag_shapes(), domains=(index(3), Domain()), order=0, id="embedding_bag_max_norm"),
]

OPS = [*_EMBEDDING, *_BAGS]
