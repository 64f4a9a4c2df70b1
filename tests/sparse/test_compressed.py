"""Compressed sparse matrices (CSR, CSC, BSR, BSC) against PyTorch 2.13: conversions every way and their
gradients, what they report, printing, and PyTorch's refusals."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

# PyTorch warns once per process that its CSR support is in beta; glassgrad does not
pytestmark = [pytest.mark.torch_oracle, pytest.mark.filterwarnings("ignore:Sparse (CSR|CSC|BSR|BSC) tensor support is in beta state")]

MATRIX = [[1.0, 0.0, 2.0, 0.0], [0.0, 0.0, 3.0, 4.0], [5.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 7.0]]
# (method, arguments): each way to a layout PyTorch's to_sparse_* methods have, and to_dense
CONVERSIONS = {
    "strided": ("to_dense", ()), "coo": ("to_sparse", ()), "csr": ("to_sparse_csr", ()), "csc": ("to_sparse_csc", ()),
    "bsr": ("to_sparse_bsr", ((2, 2),)), "bsc": ("to_sparse_bsc", ((2, 2),)),
}


def convert(t: Any, layout: str) -> Any:
    method, args = CONVERSIONS[layout]
    return getattr(t, method)(*args)


def facts(t: Any) -> tuple[Any, ...]:
    """A tensor's layout and arrays as plain Python values."""
    layout = repr(t.layout).rpartition(".")[2]
    if layout == "strided":
        arrays = [t.tolist()]
    elif layout == "sparse_coo":
        arrays = [t._indices().tolist(), t._values().tolist()]
    elif layout in ("sparse_csr", "sparse_bsr"):
        arrays = [t.crow_indices().tolist(), t.col_indices().tolist(), t.values().tolist()]
    else:
        arrays = [t.ccol_indices().tolist(), t.row_indices().tolist(), t.values().tolist()]
    return (layout, tuple(t.shape), *arrays)


def outcome(build: Any) -> Any:
    try:
        return build()
    except RuntimeError as error:
        return ("RuntimeError", str(error).split("\n")[0])


def conversion_and_gradient(m: Any, source: str, target: str) -> Any:
    """The conversion's result, and the gradient it gives its input for a gradient in the target layout."""
    dense = m.tensor(MATRIX, dtype=m.float64)
    start = convert(dense, source).requires_grad_()
    converted = outcome(lambda: convert(start, target))
    if isinstance(converted, tuple):
        return converted
    upstream = convert(m.arange(1.0, 17.0, dtype=m.float64).reshape(4, 4), target)
    grad = outcome(lambda: m.autograd.grad(converted, start, upstream)[0])
    if isinstance(grad, tuple):
        return facts(converted), grad
    node = converted.grad_fn.name() if converted.grad_fn is not None else None  # COO to COO is the tensor itself
    return facts(converted), node, facts(grad)


@pytest.mark.parametrize(("source", "target"), list(itertools.product(CONVERSIONS, list(CONVERSIONS)[1:])))
def test_conversions_and_their_gradients_match_torch(source: str, target: str) -> None:
    """Each conversion keeps what its input specifies (a dense input its nonzeros); its gradient comes back in the
    input's layout, and the conversions PyTorch refuses (a block layout to CSR or CSC) raise as there."""
    assert conversion_and_gradient(glassgrad, source, target) == conversion_and_gradient(torch, source, target)


@pytest.mark.parametrize("layout", ["csr", "csc", "bsr", "bsc"])
def test_printing_and_what_a_compressed_tensor_reports_match_torch(layout: str) -> None:
    def report(m: Any) -> Any:
        t = convert(m.tensor(MATRIX, dtype=m.float64), layout).requires_grad_()
        getters = [outcome(lambda name=name: getattr(t, name)().tolist())
                   for name in ("crow_indices", "col_indices", "ccol_indices", "row_indices", "indices")]
        shown = " ".join(repr(t).replace("torch.", "glassgrad.").split())  # the longer name wraps lines elsewhere
        return shown, getters, t._nnz(), t.sparse_dim(), t.dense_dim(), t.is_sparse, t.is_sparse_csr, facts(t.detach())

    assert report(glassgrad) == report(torch)


def sum_to_dense_and_values_gradients(m: Any, layout: str) -> Any:
    t = convert(m.tensor(MATRIX, dtype=m.float64), layout).requires_grad_()
    weights = m.arange(16.0, dtype=m.float64).reshape(4, 4)
    m.sum(t).backward()  # a dense .grad for the sparse leaf
    (masked,) = m.autograd.grad((t.to_dense() * weights).sum(), t)  # masked with t's elements
    (through_values,) = m.autograd.grad((t.values() ** 2).sum(), t)
    return facts(t.grad), facts(masked), facts(through_values)


@pytest.mark.parametrize("layout", ["csr", "csc", "bsr", "bsc"])
def test_sum_to_dense_and_values_differentiate_as_in_torch(layout: str) -> None:
    assert sum_to_dense_and_values_gradients(glassgrad, layout) == sum_to_dense_and_values_gradients(torch, layout)


@pytest.mark.parametrize(
    "code",
    ["d.to_sparse_bsr((3, 3))", "d.to_sparse(layout=m.sparse_bsr)", "d.to_sparse_bsr((2, 2)).to_sparse_bsc((1, 1))",
     "d.to_sparse_csr().to_sparse(layout=m.sparse_csr, blocksize=(2, 2))", "d.to_sparse_csr().indices()",
     "d.to_sparse_csc().crow_indices()", "d.to_sparse_bsc((2, 2)).to_sparse_csc()"],
)
def test_refusals_match_torch(code: str) -> None:
    def run(m: Any) -> Any:
        return outcome(lambda: eval(code, {"d": m.tensor(MATRIX), "m": m}))

    expected = run(torch)
    assert isinstance(expected, tuple)
    assert run(glassgrad) == expected


@pytest.mark.parametrize("layout", ["csr", "bsc"])
def test_gradcheck_perturbs_the_values_of_a_compressed_input(layout: str) -> None:
    weights = glassgrad.arange(16.0, dtype=glassgrad.float64).reshape(4, 4)
    t = convert(glassgrad.tensor(MATRIX, dtype=glassgrad.float64), layout).requires_grad_()
    assert glassgrad.autograd.gradcheck(lambda s: (s.to_dense() * weights).sin(), t, masked=True)

    class Wrong(glassgrad.autograd.Function):  # doubles the true gradient: gradcheck must notice
        @staticmethod
        def forward(ctx: Any, s: Any) -> Any:
            return s.to_dense() * 1.0

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return 2 * grad

    assert not glassgrad.autograd.gradcheck(Wrong.apply, t, masked=True, raise_exception=False)


def test_a_compressed_matrix_has_no_batch_or_dense_dims_here() -> None:
    with pytest.raises(NotImplementedError, match="compressed sparse matrices only"):
        glassgrad.zeros(2, 3, 4).to_sparse_csr()
    np.testing.assert_array_equal(glassgrad.tensor(MATRIX).to_sparse_csr().to_dense().numpy(), MATRIX)
