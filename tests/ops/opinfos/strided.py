"""OpInfos of strided views and their scatters (glassgrad/ops/strided.py and scatters.py).

as_strided geometries are made from the drawn tensor's size inside `fn`, so that every draw is in bounds; one
reads through a slice, whose storage offset is not 0. PyTorch 2.13's derivative of as_strided_scatter for its
input is wrong (its own gradcheck fails): that OpInfo is compared with finite differences only.
"""

from __future__ import annotations

import warnings
from typing import Any

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..opinfo import ANY, Domain, OpInfo, Shapes, fixed, index, unary

_rest = hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3)
_NONZERO = Domain(kinks=(0.0,))


def _overlapping(m: Any, x: Any) -> Any:
    """Windows of two elements one apart over x's storage: every inner element is read twice."""
    n = x.numel()
    return x.as_strided((max(n - 1, 0), 2), (1, 1))


def _every_other(m: Any, x: Any) -> Any:
    """Every other element of x[1:], read from the storage at x[1:]'s own offset (the default)."""
    tail = x.reshape(-1)[1:]
    return tail.as_strided((tail.numel() // 2,), (2,))


def _windows(m: Any, x: Any, step: int) -> Any:
    length = x.shape[-1] if x.ndim else 1
    return x.unfold(-1, min(2, length), step)


def _slicewise(draw_rest: st.SearchStrategy[tuple[int, ...]] = _rest) -> st.SearchStrategy[Shapes]:
    """(input, index, source) for index_reduce along dim 0 of size 3; the index a vector of k, source k slices."""
    return st.tuples(draw_rest, st.integers(0, 4)).map(lambda r: ((3, *r[0]), (r[1],), (r[1], *r[0])))


def _index_reduce(reduce: str, include_self: bool = True) -> OpInfo:
    def fn(m: Any, x: Any, i: Any, s: Any) -> Any:
        with warnings.catch_warnings():  # PyTorch warns once per process that index_reduce is in beta
            warnings.simplefilter("ignore", UserWarning)
            return x.index_reduce(0, i, s, reduce, include_self=include_self)

    values = _NONZERO if reduce == "prod" else ANY
    return OpInfo(
        "Tensor.index_reduce", fn, shapes=_slicewise(), domains=(values, index(2), values),
        id=f"index_reduce_{reduce}{'' if include_self else '_exclude_self'}", also=("glassgrad.index_reduce",),
        errors=(
            lambda m: m.zeros(4, 6).index_reduce(0, m.tensor([0]), m.ones(1, 6), "sum"),
            lambda m: m.zeros(4, 6).index_reduce(0, m.tensor([0.0]), m.ones(1, 6), "prod"),
            lambda m: m.zeros(4, 6).index_reduce(0, m.tensor([[0]]), m.ones(1, 6), "prod"),
            lambda m: m.zeros(4, 6).index_reduce(0, m.tensor([0, 1]), m.ones(1, 6), "prod"),
            lambda m: m.zeros(4, 6).index_reduce(0, m.tensor([-1]), m.ones(1, 6), "prod"),
            lambda m: m.zeros(4, 6).index_reduce(0, m.tensor([0]), m.ones(1, 6, dtype=m.float64), "prod"),
            lambda m: m.zeros(4, 6).index_reduce(0, m.tensor([0]), m.ones(6), "prod"),
            lambda m: m.zeros(4, 6).index_reduce(0, m.tensor([0]), m.ones(1, 5), "prod"),
        ),
    )


# Without accumulate, a position written twice keeps its last value: the earlier source element then has no
# effect, yet PyTorch's (and glassgrad's) derivative gives it the position's gradient, so the index repeats nothing.
def _put_fresh(m: Any, x: Any, s: Any) -> Any:
    y = x.clone()
    y.put_(m.tensor([4, -6, 1, -1]), s)
    return y


_put = OpInfo("Tensor.put", lambda m, x, s: x.put(m.tensor([4, -6, 1, -1]), s), shapes=fixed((2, 3), (2, 2)),
              errors=(lambda m: m.zeros(2, 3).put(m.tensor([6]), m.ones(1)),
                      lambda m: m.zeros(2, 3).put(m.tensor([1, 2]), m.ones(3)),
                      lambda m: m.zeros(2, 3).put(m.tensor([1, 2]), m.ones(2, dtype=m.float64)),
                      lambda m: m.zeros(2, 3).put(m.tensor([1, 2], dtype=m.int32), m.ones(2))))
_put_accumulate = OpInfo("Tensor.put", lambda m, x, i, s: x.put(i, s, accumulate=True), shapes=fixed((2, 3), (2, 4), (8,)),
                         domains=(ANY, index(5, -6), ANY), id="put_accumulate")


def _in_place_index_reduce(m: Any, x: Any, i: Any, s: Any) -> Any:
    y = x.clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        y.index_reduce_(0, i, s, "amax")
    return y


_AS_STRIDED_ERRORS = (
    lambda m: m.zeros(4, 6).as_strided((2,), (30,)),
    lambda m: m.zeros(4, 6).as_strided((2,), (-1,), 3),
    lambda m: m.zeros(4, 6).as_strided((2, 2), (1,)),
    lambda m: m.zeros(4, 6).as_strided((2,), (1,), -1),
)

def _column_major(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for size in shape:
        strides.append(step)
        step *= max(size, 1)
    return tuple(strides)


def _layout(made: Any, m: Any) -> Any:
    """What an empty tensor's memory can be compared by: its strides, and its shape."""
    return m.tensor([*made.stride(), *made.shape], dtype=m.int64)


def _storage(m: Any, x: Any) -> Any:
    """What Tensor.untyped_storage() is compared by: its size in bytes and elements, its element size (1: bytes),
    whether a view of x shares it (same data_ptr), and its bytes. It is the whole of the storage, also from a view."""
    view = x.reshape(-1)[1:]
    storage = view.untyped_storage()
    shared = storage.data_ptr() == x.untyped_storage().data_ptr()
    facts = [storage.nbytes(), storage.size(), len(storage), storage.element_size(), int(shared)]
    return m.tensor([*facts, *storage.tolist()], dtype=m.int64)


OPS = [
    OpInfo("Tensor.untyped_storage", _storage, order=0, shapes=unary(min_side=1)),
    # Uninitialised values are not comparable; the layout is.
    OpInfo("glassgrad.empty_strided", lambda m, x: _layout(m.empty_strided(x.shape, _column_major(x.shape)), m), order=0,
           errors=(lambda m: m.empty_strided((2, 3), (1,)), lambda m: m.empty_strided((2, 3), (-1, 1)))),
    OpInfo("glassgrad.empty_strided", lambda m, x: _layout(m.empty_strided(x.shape, (0,) * x.ndim), m), order=0,
           id="empty_strided_broadcast"),
    OpInfo("glassgrad.empty_permuted", lambda m, x: _layout(m.empty_permuted(x.shape, tuple(reversed(range(x.ndim)))), m),
           order=0, errors=(lambda m: m.empty_permuted((2, 3), (0, 0)), lambda m: m.empty_permuted((2, 3), (0,)))),
    # -- views -------------------------------------------------------------------------------------
    OpInfo("glassgrad.as_strided", _overlapping, also=("Tensor.as_strided",), errors=_AS_STRIDED_ERRORS),
    OpInfo("glassgrad.as_strided", _every_other, id="as_strided_offset"),
    OpInfo("glassgrad.as_strided", lambda m, x: x.expand(2, *x.shape).as_strided((2, 2), (1, 1)),
           shapes=unary(1, 2, min_side=3), id="as_strided_of_expanded"),
    OpInfo("Tensor.unfold", lambda m, x: _windows(m, x, 1),
           errors=(lambda m: m.zeros(6).unfold(0, 7, 1), lambda m: m.zeros(6).unfold(0, 2, 0), lambda m: m.zeros(6).unfold(1, 1, 1))),
    OpInfo("Tensor.unfold", lambda m, x: _windows(m, x, 3), id="unfold_gaps"),
    OpInfo("Tensor.unfold", lambda m, x: x.unfold(0, 0, 2), shapes=unary(1), id="unfold_empty_windows"),
    OpInfo("glassgrad.ravel", lambda m, x: m.ravel(x), also=("Tensor.ravel",)),
    OpInfo("glassgrad.ravel", lambda m, x: x.mT.ravel(), shapes=unary(2), id="ravel_copy"),
    OpInfo("glassgrad.unsafe_split", lambda m, x: m.unsafe_split(x, 2, -1), shapes=unary(1), also=("Tensor.unsafe_split",),
           errors=(lambda m: m.zeros(2, 6).unsafe_split([2, 4], 1), lambda m: m.zeros(()).unsafe_split(1))),
    OpInfo("glassgrad.unsafe_split_with_sizes", lambda m, x: m.unsafe_split_with_sizes(x, [1, 3, 2], -1), shapes=fixed((2, 6)),
           also=("Tensor.unsafe_split_with_sizes",), errors=(lambda m: m.zeros(2, 6).unsafe_split_with_sizes([2, 3], 1),)),
    OpInfo("glassgrad.unsafe_chunk", lambda m, x: m.unsafe_chunk(x, 3, 0), shapes=unary(1), also=("Tensor.unsafe_chunk",),
           errors=(lambda m: m.zeros(2, 6).unsafe_chunk(0),)),
    OpInfo("glassgrad.unravel_index", lambda m, i: m.unravel_index(i, (2, 3)), domains=index(8, -8), order=0,
           errors=(lambda m: m.unravel_index(m.tensor([1.0]), (2, 3)), lambda m: m.unravel_index(m.tensor([True]), (2, 3)),
                   lambda m: m.unravel_index(m.tensor([1]), (-2, 3)), lambda m: m.unravel_index(m.tensor([1]), 2.5))),
    OpInfo("glassgrad.unravel_index", lambda m, i: m.unravel_index(i.int(), 4), domains=index(8, -8), order=0, id="unravel_index_int"),
    # -- scatters: a copy of input with src written into one view of it ---------------------------------
    OpInfo("glassgrad.select_scatter", lambda m, x, s: m.select_scatter(x, s, 0, -1),
           shapes=_rest.map(lambda r: ((3, *r), r)), also=("Tensor.select_scatter",),
           errors=(lambda m: m.select_scatter(m.zeros(4, 6), m.ones(5), 0, 1), lambda m: m.select_scatter(m.zeros(4, 6), m.ones(6), 0, 4),
                   lambda m: m.select_scatter(m.zeros(()), m.ones(()), 0, 0))),
    OpInfo("glassgrad.select_scatter", lambda m, x: m.select_scatter(x, m.tensor([3, -1]), 0, 1), shapes=fixed((3, 2)),
           id="select_scatter_cast"),
    OpInfo("glassgrad.slice_scatter", lambda m, x, s: m.slice_scatter(x, s, 0, 1, None, 2),
           shapes=_rest.map(lambda r: ((5, *r), (2, *r))), also=("Tensor.slice_scatter",),
           errors=(lambda m: m.slice_scatter(m.zeros(4, 6), m.ones(4, 2), 1, 0, 3),
                   lambda m: m.slice_scatter(m.zeros(4, 6), m.ones(4, 0), 1, step=0))),
    OpInfo("glassgrad.slice_scatter", lambda m, x, s: m.slice_scatter(x, s, -1, -2),
           shapes=_rest.map(lambda r: ((*r, 3), (*r, 2))), id="slice_scatter_negative_start"),
    OpInfo("glassgrad.diagonal_scatter", lambda m, x, s: m.diagonal_scatter(x, s, 1),
           shapes=st.tuples(st.integers(0, 4), st.integers(1, 4)).map(lambda mn: (mn, (max(0, min(mn[0], mn[1] - 1)),))),
           also=("Tensor.diagonal_scatter",),
           errors=(lambda m: m.diagonal_scatter(m.zeros(4, 6), m.ones(5)), lambda m: m.diagonal_scatter(m.zeros(4, 6), m.ones(4), 0, 0, 0))),
    OpInfo("glassgrad.diagonal_scatter", lambda m, x, s: m.diagonal_scatter(x, s, -1, 2, 0), shapes=fixed((2, 2, 3), (2, 2)),
           id="diagonal_scatter_dims"),
    OpInfo("glassgrad.as_strided_scatter", lambda m, s: m.as_strided_scatter(m.arange(2 * s.numel() + 1, dtype=s.dtype), s, (s.numel(),), (2,), 1),
           shapes=unary(1, 1), also=("Tensor.as_strided_scatter",),
           errors=(lambda m: m.as_strided_scatter(m.zeros(4, 6), m.ones(3), (2,), (1,)),
                   lambda m: m.as_strided_scatter(m.zeros(4, 6), m.ones(2), (2,), (30,)))),
    OpInfo("glassgrad.as_strided_scatter", lambda m, x, s: m.as_strided_scatter(x, s, (s.numel(),), (2,), 1),
           shapes=st.integers(1, 3).map(lambda k: ((2 * k + 1,), (k,))), id="as_strided_scatter_input_gradient",
           xfail={"torch": "PyTorch 2.13 gives input the gradient of the positions src overwrites (its gradcheck fails)"}),
    # -- index_reduce and put ---------------------------------------------------------------------------
    *(_index_reduce(r, s) for r in ("prod", "mean", "amax", "amin") for s in (True, False)),
    OpInfo("Tensor.index_reduce_", _in_place_index_reduce, shapes=_slicewise(), domains=(ANY, index(2), ANY), id="index_reduce_"),
    _put, _put_accumulate, OpInfo("Tensor.put_", _put_fresh, shapes=fixed((2, 3), (2, 2)), id="put_"),
]
