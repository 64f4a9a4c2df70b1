"""Sparse COO tensors against PyTorch 2.13: construction, what they report, printing, coalescing, conversions,
the ops that keep them sparse and the errors where PyTorch refuses."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import glassgrad

pytestmark = pytest.mark.torch_oracle

LIBS = (torch, glassgrad)
INDICES = [[0, 1, 1, 0], [2, 0, 2, 2]]  # (0, 2) appears twice: uncoalesced
VALUES = [3.0, 4.0, 5.0, -1.0]


def coo(m: Any, indices: Any = INDICES, values: Any = VALUES, size: Any = (2, 3), **kwargs: Any) -> Any:
    # check_invariants=True: PyTorch warns when it is left out, and glassgrad always checks
    sized = () if size is None else (size,)
    return m.sparse_coo_tensor(m.tensor(indices), m.tensor(values, dtype=m.float64), *sized, check_invariants=True, **kwargs)


def facts(t: Any) -> tuple[Any, ...]:
    """What a sparse tensor is: its indices, values, size, coalesced flag and dims, as plain Python values."""
    return (
        t._indices().tolist(), t._values().tolist(), tuple(t.shape), t.is_coalesced(), t.sparse_dim(), t.dense_dim(),
        t._nnz(), str(t.dtype).split(".")[-1], t.layout.__repr__().split(".")[-1], t.is_sparse,
    )


def same(build: Any) -> None:
    mine, theirs = build(glassgrad), build(torch)
    if getattr(theirs, "is_sparse", False):
        assert facts(mine) == facts(theirs)
    else:
        np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)


def raises_alike(build: Any) -> None:
    with pytest.raises(Exception) as theirs:
        build(torch)
    with pytest.raises(type(theirs.value)) as mine:
        build(glassgrad)
    assert str(mine.value).split(". ")[0] == str(theirs.value).split(". ")[0]  # PyTorch's first sentence


@pytest.mark.parametrize(
    "build",
    [
        lambda m: coo(m),
        lambda m: coo(m, size=None),
        lambda m: coo(m, [[0], [1]], [2.0]),  # one entry: coalesced already
        lambda m: coo(m, [[1], [2]], 2.5),  # a 0-d value is one entry
        lambda m: coo(m, [[], []], []),
        lambda m: coo(m, [[0, 2], [1, 1]], [[1.0, 2.0], [3.0, 4.0]], (3, 2, 2)),  # hybrid: a dense dim
        lambda m: coo(m, [[0, 2]], [1.0, 2.0], (3,), is_coalesced=True),
        lambda m: m.sparse_coo_tensor([[0, 1]], [1, 2], check_invariants=True),  # lists; int64 values
        lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor([1.0, 2.0]), (2,), dtype=m.float64, check_invariants=True),
        lambda m: coo(m).coalesce(),
        lambda m: coo(m, [[0, 0, 0]], [1.0, 2.0, 3.0], (1,)).coalesce(),
        lambda m: m.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]]).to_sparse(),
        lambda m: m.tensor([[0.0, 0.0], [2.0, 0.0], [0.0, 0.0]]).to_sparse(1),
        lambda m: m.zeros(2, 2).to_sparse(),
    ],
)
def test_construction_matches_torch(build: Any) -> None:
    same(build)


@pytest.mark.parametrize(
    "build",
    [
        lambda m: coo(m),
        lambda m: coo(m, requires_grad=True),
        lambda m: coo(m) * 2,
        lambda m: coo(m, [[], []], [], (2, 2)),
        lambda m: m.tensor([[0.0, 1.5], [2.0, 0.0]]).to_sparse(),
        lambda m: coo(m, [[0, 2], [1, 1]], [[1.0, 2.0], [3.0, 4.0]], (3, 2, 2)),
        lambda m: m.tensor([[0, 7], [2, 0]]).to_sparse(),
    ],
)
def test_repr_matches_torch(build: Any) -> None:
    # glassgrad's names are longer than torch's, so the suffixes may wrap at another place
    mine = " ".join(repr(build(glassgrad)).replace("glassgrad.", "torch.").split())
    theirs = " ".join(repr(build(torch)).split())
    if "grad_fn" in theirs:  # glassgrad's values-level ops record other node names (docs/sparse.md)
        mine, theirs = mine.split("grad_fn")[0], theirs.split("grad_fn")[0]
    assert mine == theirs


@given(
    rows=st.lists(st.integers(0, 2), min_size=0, max_size=8),
    seed=st.integers(0, 2**16),
)
def test_coalesce_sums_duplicates_in_row_major_order(rows: list[int], seed: int) -> None:
    rng = np.random.default_rng(seed)
    indices = [rows, rng.integers(0, 3, len(rows)).tolist()]
    values = rng.standard_normal((len(rows), 2))
    build = lambda m: coo(m, indices, values, (3, 3, 2)).coalesce()  # noqa: E731
    mine, theirs = build(glassgrad), build(torch)
    assert mine._indices().tolist() == theirs._indices().tolist()
    np.testing.assert_allclose(mine._values().numpy(), theirs._values().numpy(), rtol=1e-12)
    np.testing.assert_allclose(mine.to_dense().numpy(), theirs.to_dense().numpy(), rtol=1e-12)


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")  # PyTorch's sparse @ sparse, inside
@pytest.mark.parametrize(
    "build",
    [
        lambda m: coo(m).to_dense(),
        lambda m: coo(m) + coo(m),
        lambda m: coo(m).coalesce() + coo(m).coalesce(),
        lambda m: coo(m) - coo(m, [[1], [1]], [7.0]),
        lambda m: coo(m).add(coo(m), alpha=2),
        lambda m: coo(m) * 2.5,
        lambda m: 3 * coo(m),
        lambda m: coo(m) / 4,
        lambda m: -coo(m),
        lambda m: coo(m) * m.arange(6.0, dtype=m.float64).reshape(2, 3),
        lambda m: m.ones(2, 3, dtype=m.float64) + coo(m),
        lambda m: m.ones(2, 3, dtype=m.float64) - coo(m),
        lambda m: m.ones(2, 3, dtype=m.float64).add_(coo(m)),
        lambda m: coo(m).abs(),
        lambda m: coo(m).sin(),
        lambda m: coo(m).float(),
        lambda m: coo(m).clone(),
        lambda m: coo(m).detach(),
        lambda m: coo(m).t(),
        lambda m: coo(m).transpose(0, 1),
        lambda m: coo(m)[0],
        lambda m: coo(m)[-1],
        lambda m: coo(m, [[0, 2], [1, 1]], [[1.0, 2.0], [3.0, 4.0]], (3, 2, 2))[2],
        lambda m: coo(m, [[0, 2]], [[1.0, 2.0], [3.0, 4.0]], (3, 2))[2],
        lambda m: coo(m, [[0, 2]], [[1.0, 2.0], [3.0, 4.0]], (3, 2))[1],
        lambda m: coo(m).sum(),
        lambda m: m.sparse.sum(coo(m)),
        lambda m: m.sparse.sum(coo(m), 1),
        lambda m: m.sparse.sum(coo(m), (0, 1)),
        lambda m: m.sparse.sum(coo(m, [[0, 2], [1, 1]], [[1.0, 2.0], [3.0, 4.0]], (3, 2, 2)), 2),
        lambda m: m.sparse.mm(coo(m), m.arange(6.0, dtype=m.float64).reshape(3, 2)),
        lambda m: m.sparse.mm(coo(m), coo(m).t()),
        lambda m: coo(m).mm(m.ones(3, 2, dtype=m.float64)),
        lambda m: m.mm(coo(m), m.arange(6.0, dtype=m.float64).reshape(3, 2)),
        lambda m: m.mm(m.arange(4.0, dtype=m.float64).reshape(2, 2), coo(m)),
        lambda m: m.sum(coo(m)),
        lambda m: coo(m) @ m.ones(3, 2, dtype=m.float64),
        lambda m: m.smm(coo(m), m.arange(6.0, dtype=m.float64).reshape(3, 2)),
        lambda m: m.sparse.addmm(m.ones(2, 2, dtype=m.float64), coo(m), m.ones(3, 2, dtype=m.float64), beta=0.5, alpha=2),
        lambda m: m.sparse.softmax(coo(m), 1),
        lambda m: m.sparse.log_softmax(coo(m), 0),
        lambda m: m.sparse.softmax(coo(m, [[0, 2], [1, 1]], [[1.0, 2.0], [3.0, 4.0]], (3, 2, 2)), 2),
        lambda m: m.arange(6.0, dtype=m.float64).reshape(2, 3).sparse_mask(coo(m).coalesce()),
    ],
)
def test_ops_match_torch(build: Any) -> None:
    mine, theirs = build(glassgrad), build(torch)
    assert mine.is_sparse == theirs.is_sparse
    np.testing.assert_allclose(
        (mine.to_dense() if mine.is_sparse else mine).detach().numpy(),
        (theirs.to_dense() if theirs.is_sparse else theirs).detach().numpy(), rtol=1e-12,
    )
    if theirs.is_sparse and theirs.is_coalesced():
        assert facts(mine)[:1] + facts(mine)[2:] == facts(theirs)[:1] + facts(theirs)[2:]
        np.testing.assert_allclose(mine._values().detach().numpy(), theirs._values().detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "build",
    [
        lambda m: coo(m).values(),
        lambda m: coo(m).indices(),
        lambda m: coo(m) + m.ones(2, 3, dtype=m.float64),
        lambda m: coo(m) + coo(m, size=(3, 3)),
        lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor([1.0]), (2,), check_invariants=True),
        lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor(1.0), (2,), check_invariants=True),
        lambda m: m.sparse_coo_tensor(m.tensor([0, 1]), m.tensor([1.0, 2.0]), (2,), check_invariants=True),
        lambda m: m.sparse_coo_tensor(m.tensor([[0, 5]]), m.tensor([1.0, 2.0]), (2,), check_invariants=True),
        lambda m: m.sparse_coo_tensor(m.tensor([[0, -1]]), m.tensor([1.0, 2.0]), (2,), check_invariants=True),
        lambda m: m.sparse_coo_tensor(m.tensor([[0, 1]]), m.tensor([1.0, 2.0]), (2, 2), check_invariants=True),
        lambda m: coo(m, [[1, 0]], [1.0, 2.0], (3,), is_coalesced=True),
        lambda m: coo(m).numpy(),
        lambda m: coo(m)[5],
        lambda m: m.exp(coo(m)),
        lambda m: coo(m).div(m.ones(2, 3)),
        lambda m: m.optim.SparseAdam([coo(m).requires_grad_()]),
        lambda m: setattr(m.ones(2, 3), "data", coo(m)),
    ],
)
def test_errors_match_torch(build: Any) -> None:
    raises_alike(build)


def test_what_glassgrad_does_not_have_says_so() -> None:
    s = coo(glassgrad)
    with pytest.raises(NotImplementedError, match="SparseCPU"):
        s.view(6)
    with pytest.raises(NotImplementedError, match="SparseCPU"):
        s[0, 1]
    with pytest.raises(NotImplementedError, match="compressed sparse matrices only"):
        glassgrad.ones(2, 2, 2).to_sparse(layout=glassgrad.sparse_csr)


def test_zero_empties_and_pickling_keeps_the_elements() -> None:
    import pickle

    for m in LIBS:
        s = coo(m)
        assert facts(pickle.loads(pickle.dumps(s)))[:3] == facts(s)[:3]
        assert s.zero_()._nnz() == 0 and tuple(s.shape) == (2, 3)
