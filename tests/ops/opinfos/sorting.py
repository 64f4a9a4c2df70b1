"""OpInfos of sorting and selection (glassgrad/ops/sorting.py).

TIES draws small integers, so most slices hold equal values: the indices compared with PyTorch's
then show that glassgrad picks the same one of several equal elements.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..opinfo import Domain, OpInfo, Shapes, index, unary

TIES = Domain(-2, 2, integral=True)
NAN_TIES = Domain(-1, 1, integral=True, kinks=())
LONG_ROWS = unary(min_dims=1, max_dims=2, min_side=5, max_side=20)  # past PyTorch's small-size special cases
MATRIX = unary(min_dims=2)


# Unstable sorts of more than 16 elements run x86-simd-sort in PyTorch (on AVX2/AVX-512 machines),
# whose order of equal elements glassgrad does not replay: its sort is always stable.
SIMD_SORT = {"torch": "PyTorch's unstable sort of >16 elements orders ties as x86-simd-sort does; glassgrad's is stable"}


def _variants(name: str, calls: dict[str, Any], unstable: tuple[str, ...] = (), **kwargs: Any) -> list[OpInfo]:
    """One differentiable OpInfo per call, and the same calls on ties (indices only) and on long rows."""
    ops = []
    for label, call in calls.items():
        ops.append(OpInfo(f"glassgrad.{name}", call, id=f"{name}_{label}", **kwargs))
        ops.append(OpInfo(f"glassgrad.{name}", call, domains=TIES, order=0, id=f"{name}_{label}_ties", **kwargs))
        ops.append(OpInfo(f"glassgrad.{name}", call, domains=TIES, shapes=LONG_ROWS, order=0,
                          id=f"{name}_{label}_long_ties", xfail=SIMD_SORT if label in unstable else {}))
    return ops


def _with_nan(m: Any, x: Any) -> Any:
    """x with NaN wherever it was 1."""
    return m.where(x == 1, float("nan"), x)


def _rows_and_values() -> st.SearchStrategy[Shapes]:
    """Boundaries (..., n) and values (..., k) with the same leading dims: searchsorted's N-D case."""
    return st.tuples(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3), st.integers(0, 5), st.integers(0, 4)).map(
        lambda r: ((*r[0], r[1]), (*r[0], r[2]))
    )


SEARCHED = st.tuples(unary(min_dims=1, max_dims=1, max_side=6).map(lambda s: s[0]), unary(max_side=3).map(lambda s: s[0]))


def _sorted(m: Any, b: Any) -> Any:
    return m.sort(b).values


def _searched(call: Any, **kwargs: Any) -> OpInfo:
    """searchsorted(sorted boundaries, values) on ties (boundaries drawn, then sorted in fn): indices only."""
    return OpInfo("glassgrad.searchsorted", call, shapes=kwargs.pop("shapes", SEARCHED), domains=kwargs.pop("domains", TIES),
                  order=0, **kwargs)


_SEARCH_ERRORS = (
    lambda m: m.searchsorted(m.ones(3), m.ones(2), right=True, side="left"),
    lambda m: m.searchsorted(m.ones(3), m.ones(2), side="middle"),
    lambda m: m.searchsorted(m.ones(2, 5), m.ones(1)), lambda m: m.searchsorted(m.ones(2, 5), 5),
    lambda m: m.searchsorted(m.tensor(1.0), m.ones(1)),
    lambda m: m.searchsorted(m.ones(3), m.ones(1), sorter=m.tensor([0, 1, 2], dtype=m.int32)),
    lambda m: m.searchsorted(m.ones(3), m.ones(1), sorter=m.tensor([0, 1])),
    lambda m: m.searchsorted(m.ones(3), m.ones(1), sorter=m.tensor([0, 1, 3])),
    lambda m: m.searchsorted(m.ones(2, dtype=m.bool), m.ones(1, dtype=m.bool)),
)


OPS = [
    *_variants("sort", {
        "default": lambda m, x: m.sort(x), "descending": lambda m, x: m.sort(x, 0, True),
        "stable": lambda m, x: m.sort(x, stable=True, dim=-1, descending=True),
    }, unstable=("default", "descending"), errors=(lambda m: m.sort(m.ones(2, 3), 2),)),
    *_variants("argsort", {
        "default": lambda m, x: m.argsort(x), "descending": lambda m, x: x.argsort(dim=0, descending=True),
    }, unstable=("default", "descending")),
    *_variants("topk", {
        "k1": lambda m, x: m.topk(x, 1, dim=-1) if x.ndim == 0 or x.shape[-1] else m.topk(x, 0),
        "smallest": lambda m, x: x.topk(min(2, x.shape[0]) if x.ndim else 1, 0, largest=False),
        "unsorted": lambda m, x: m.topk(x, x.shape[-1] if x.ndim else 1, sorted=False),
    }, errors=(lambda m: m.topk(m.ones(2), 3), lambda m: m.topk(m.ones(2, dtype=m.bool), 1))),
    *_variants("kthvalue", {
        "first": lambda m, x: m.kthvalue(x, 1), "last_keepdim": lambda m, x: x.kthvalue(x.shape[0] if x.ndim else 1, 0, True),
        "middle": lambda m, x: m.kthvalue(x, (x.shape[-1] + 1) // 2 if x.ndim else 1),
    }, errors=(lambda m: m.kthvalue(m.ones(2), 0), lambda m: m.kthvalue(m.ones(2, dtype=m.bool), 1))),
    *_variants("median", {
        "all": lambda m, x: m.median(x), "dim": lambda m, x: m.median(x, -1), "keepdim": lambda m, x: x.median(0, True),
    }, errors=(lambda m: m.median(m.ones(2, dtype=m.bool)), lambda m: m.median(m.ones(2, 0), 1))),
    *_variants("mode", {"default": lambda m, x: m.mode(x), "dim0_keepdim": lambda m, x: x.mode(0, True)},
               errors=(lambda m: m.mode(m.empty(0)),)),
    *(OpInfo(f"glassgrad.{name}", lambda m, x, call=call: call(m, _with_nan(m, x)), domains=NAN_TIES, order=0,
             id=f"{name}_nan") for name, call in {
        "sort": lambda m, x: m.sort(x, descending=True), "topk": lambda m, x: m.topk(x, 1) if x.ndim == 0 or x.shape[-1] else x,
        "kthvalue": lambda m, x: m.kthvalue(x, 1) if x.ndim == 0 or x.shape[-1] else x,
        "median": lambda m, x: m.median(x, -1) if x.ndim == 0 or x.shape[-1] else x,
        "mode": lambda m, x: m.mode(x) if x.ndim == 0 or x.shape[-1] else x,
    }.items()),
    OpInfo("glassgrad.median", lambda m, x: m.median(_with_nan(m, x)), domains=NAN_TIES, id="median_nan_all"),
    OpInfo("glassgrad.unique", lambda m, x: m.unique(x), domains=TIES, order=0),
    OpInfo("glassgrad.unique", lambda m, x: x.unique(return_inverse=True, return_counts=True), domains=TIES, order=0,
           id="unique_inverse_counts"),
    OpInfo("glassgrad.unique", lambda m, x: m.unique(x, sorted=False, return_counts=True), domains=TIES, order=0,
           id="unique_unsorted"),
    OpInfo("glassgrad.unique", lambda m, x: m.unique(x, dim=0, return_inverse=True), shapes=MATRIX, domains=TIES,
           order=0, id="unique_dim"),
    OpInfo("glassgrad.unique", lambda m, x: m.unique(_with_nan(m, x), return_counts=True), domains=NAN_TIES, order=0,
           id="unique_nan"),
    # unique_consecutive: runs of ties; NaN equals nothing; its backward raises NotImplementedError, as PyTorch's
    OpInfo("glassgrad.unique_consecutive", lambda m, x: m.unique_consecutive(x), domains=TIES, order=0,
           errors=(lambda m: m.unique_consecutive(m.ones(2, 2), dim=2), lambda m: m.unique_consecutive(m.tensor(1.0), dim=0),
                   lambda m: m.unique_consecutive(m.ones(2, 0), dim=0), lambda m: m.unique_consecutive(m.ones(0, 0), dim=0))),
    OpInfo("glassgrad.unique_consecutive", lambda m, x: x.unique_consecutive(return_inverse=True, return_counts=True),
           domains=TIES, order=0, id="unique_consecutive_inverse_counts"),
    OpInfo("glassgrad.unique_consecutive", lambda m, x: m.unique_consecutive(_with_nan(m, x), return_counts=True), domains=NAN_TIES,
           order=0, id="unique_consecutive_nan"),
    *[OpInfo("glassgrad.unique_consecutive", lambda m, x, dim=dim: m.unique_consecutive(x, True, True, dim=dim), shapes=MATRIX,
             domains=Domain(0, 1, integral=True), order=0, id=f"unique_consecutive_dim{dim}") for dim in (0, -1)],
    OpInfo("glassgrad.unique_consecutive", lambda m, x: m.unique_consecutive(x * 2), order=1, id="unique_consecutive_backward",
           xfail={"gradcheck": "PyTorch has no derivative for unique_consecutive, nor has glassgrad"}),
    OpInfo("glassgrad.msort", lambda m, x: m.msort(x), also=("Tensor.msort",), errors=(lambda m: m.msort(2),)),
    OpInfo("glassgrad.msort", lambda m, x: x.msort(), domains=TIES, order=0, id="msort_ties"),
    # isin: after type promotion, numbers on either side, NaN in nothing
    OpInfo("glassgrad.isin", lambda m, x, y: m.isin(x, y), shapes=st.tuples(unary(), unary()).map(lambda s: (s[0][0], s[1][0])),
           domains=TIES, order=0, errors=(lambda m: m.isin(2, 2), lambda m: m.isin(m.tensor([True]), m.tensor([1])),
                                          lambda m: m.isin(m.tensor([1]), m.tensor([True])))),
    OpInfo("glassgrad.isin", lambda m, x, y: m.isin(_with_nan(m, x), y.long(), invert=True, assume_unique=True),
           shapes=st.tuples(unary(), unary()).map(lambda s: (s[0][0], s[1][0])), domains=NAN_TIES, order=0, id="isin_mixed"),
    OpInfo("glassgrad.isin", lambda m, x: m.isin(x, 1) + m.isin(1.0, x), domains=TIES, order=0, id="isin_numbers"),
    # argwhere, nonzero_static: nonzero's positions, cut or padded to `size` rows
    OpInfo("glassgrad.argwhere", lambda m, x: m.argwhere(x), domains=Domain(-1, 1, integral=True), order=0, also=("Tensor.argwhere",)),
    *[OpInfo("glassgrad.nonzero_static", lambda m, x, size=size: x.nonzero_static(size=size, fill_value=-7) if size else
             m.nonzero_static(x, size=size), domains=Domain(-1, 1, integral=True), order=0, id=f"nonzero_static_{size}",
             errors=(lambda m: m.nonzero_static(m.ones(2), size=-1), lambda m: m.nonzero_static(m.ones(2), size=2, fill_value=0.5)))
      for size in (0, 3, 70)],
    # searchsorted, bucketize: ties on both sides of the search, NaNs where PyTorch's bisection meets them
    _searched(lambda m, b, v: m.searchsorted(_sorted(m, b), v), errors=_SEARCH_ERRORS),
    _searched(lambda m, b, v: m.searchsorted(_sorted(m, b), v, right=True), id="searchsorted_right"),
    _searched(lambda m, b, v: m.searchsorted(_sorted(m, b), v, side="right", right=False, out_int32=True), id="searchsorted_side"),
    _searched(lambda m, b, v: m.searchsorted(b, v, sorter=m.argsort(b, stable=True)), id="searchsorted_sorter"),
    _searched(lambda m, b, v: m.searchsorted(_sorted(m, b), v, side="right"), shapes=_rows_and_values(), id="searchsorted_rows"),
    _searched(lambda m, b, v: m.searchsorted(b, v, sorter=m.argsort(b, stable=True)), shapes=_rows_and_values(),
              id="searchsorted_rows_sorter"),
    _searched(lambda m, b, v: m.searchsorted(_with_nan(m, b), _with_nan(m, v)), domains=NAN_TIES, id="searchsorted_nan"),
    _searched(lambda m, b, v: m.searchsorted(_sorted(m, b), v), domains=(index(2, -2), Domain(-2.5, 2.5)), id="searchsorted_mixed"),
    _searched(lambda m, b: m.searchsorted(_sorted(m, b), 0.5), shapes=unary(min_dims=1, max_dims=1), id="searchsorted_number"),
    OpInfo("glassgrad.bucketize", lambda m, v, b: m.bucketize(v, _sorted(m, b)), shapes=SEARCHED.map(lambda s: s[::-1]),
           domains=TIES, order=0, errors=(lambda m: m.bucketize(m.ones(2), m.ones(2, 3)),)),
    OpInfo("glassgrad.bucketize", lambda m, v, b: m.bucketize(v, _sorted(m, b), right=True, out_int32=True),
           shapes=SEARCHED.map(lambda s: s[::-1]), domains=TIES, order=0, id="bucketize_right"),
    OpInfo("glassgrad.bucketize", lambda m, b: m.bucketize(1, _sorted(m, b)), shapes=unary(min_dims=1, max_dims=1), domains=TIES,
           order=0, id="bucketize_number"),
    # bincount: PyTorch records weighted counts with a node whose backward raises, and so does glassgrad
    OpInfo("glassgrad.bincount", lambda m, x: m.bincount(x), shapes=unary(min_dims=1, max_dims=1), domains=index(5),
           also=("Tensor.bincount",), order=0, errors=(
               lambda m: m.bincount(m.tensor([-1, 2])), lambda m: m.bincount(m.tensor([[1, 2]])), lambda m: m.bincount(m.ones(2)),
               lambda m: m.bincount(m.tensor([0, 1]), m.ones(3)), lambda m: m.bincount(m.tensor([0, 1]), None, -1),
               lambda m: m.bincount(m.ones(2, dtype=m.bool)),
           )),
    OpInfo("glassgrad.bincount", lambda m, x, w: m.bincount(x, w, minlength=7), shapes=unary(min_dims=1, max_dims=1).map(lambda s: s * 2),
           domains=(index(5), Domain()), order=1, id="bincount_weights",
           xfail={"gradcheck": "PyTorch has no derivative for bincount's weights (its backward raises), nor has glassgrad"}),
    OpInfo("glassgrad.bincount", lambda m, x, w: x.bincount(w.float()), shapes=unary(min_dims=1, max_dims=1).map(lambda s: s * 2),
           domains=(index(3), Domain()), order=0, rtol=1e-6, id="bincount_float32_weights"),
]
