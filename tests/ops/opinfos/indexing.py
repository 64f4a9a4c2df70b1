"""OpInfos of indexing ops (glassgrad/ops/indexing.py) and of the rearranging ops it exports (ops/rearrange.py).

Index inputs are drawn in range for a dim-0 size of 3 (`index(2)`), repeats included, so gradients
must accumulate over repeated indices as PyTorch's do.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..opinfo import ANY, Domain, OpInfo, Shapes, fixed, index, inplace_variant, unary

_I = index(2)
_MASK = Domain(dtype="bool")
_NONZERO = Domain(kinks=(0.0,))  # prod's gradient divides by the inputs
_rest = hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3)


def _flat_positions(m: Any, x: Any, src: Any) -> Any:
    """Positions for put: len(src) of them over x's elements, negative ones included, repeats once src outgrows x."""
    n = max(x.numel(), 1)
    return (m.arange(src.numel()) * 5) % n - (m.arange(src.numel()) % 2) * n


_PUT_ERRORS = (
    lambda m: m.zeros(2, 3).put(m.tensor([0, 6]), m.tensor([1.0, 2.0])),
    lambda m: m.zeros(2, 3).put(m.tensor([0, 1], dtype=m.int32), m.tensor([1.0, 2.0])),
    lambda m: m.zeros(2, 3).put(m.tensor([0, 1]), m.tensor([1.0, 2.0], dtype=m.float64)),
    lambda m: m.zeros(2, 3).put(m.tensor([0, 1]), m.tensor([1.0, 2.0, 3.0])),
    lambda m: m.zeros(2, 3).put(m.tensor([0, 1]), 1.0),
    lambda m: m.zeros(0).put(m.tensor([0]), m.tensor([1.0])),
)


@st.composite
def _dimwise(draw: st.DrawFn, src: bool = False) -> Shapes:
    """(input, index[, src]) for gather/scatter along dim 0 of size 3: index no larger than input (or src) elsewhere."""
    rest = draw(_rest)
    smaller = tuple(draw(st.integers(0, r)) for r in rest)
    index_shape = (draw(st.integers(0, 4)), *smaller)
    shapes = ((3, *rest), index_shape)
    if src:
        shapes += (draw(st.sampled_from([index_shape, (index_shape[0] + 1, *rest)])),)
    return shapes


@st.composite
def _shuffle_shapes(draw: st.DrawFn, channels: int, rows: int, cols: int) -> Shapes:
    """(*batch, C, H, W) with C, H and W multiples of channels, rows and cols; zero to two batch dims.

    Never empty: PyTorch returns an empty input's clone from pixel_unshuffle (the wrong shape) and from the
    gradient of pixel_shuffle (so its backward fails); glassgrad keeps the shapes consistent instead.
    """
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=2))
    sides = (draw(st.integers(1, 2)) * channels, draw(st.integers(1, 2)) * rows, draw(st.integers(1, 2)) * cols)
    return ((*batch, *sides),)


_SHUFFLE_ERRORS = (
    lambda m: m.pixel_shuffle(m.zeros(8, 2), 2),
    lambda m: m.pixel_shuffle(m.zeros(1, 6, 1, 1), 2),
    lambda m: m.pixel_shuffle(m.zeros(1, 4, 1, 1), 0),
    lambda m: m.pixel_shuffle(m.zeros(1, 4, 1, 1), 2.0),
)
_UNSHUFFLE_ERRORS = (
    lambda m: m.pixel_unshuffle(m.zeros(2, 2), 2),
    lambda m: m.pixel_unshuffle(m.zeros(1, 2, 3, 2), 2),
    lambda m: m.pixel_unshuffle(m.zeros(1, 2, 2, 3), 2),
    lambda m: m.pixel_unshuffle(m.zeros(1, 2, 2, 2), -1),
)


@st.composite
def _slicewise(draw: st.DrawFn, source: bool = False) -> Shapes:
    """(input, index[, source]) for index_* along dim 0 of size 3; the index is a vector."""
    rest = draw(_rest)
    k = draw(st.integers(0, 4))
    return ((3, *rest), (k,), (k, *rest)) if source else ((3, *rest), (k,))


def _masked_shapes(inplace: bool = False) -> st.SearchStrategy[Shapes]:
    """(input, mask, source): source has one element to spare; in place, the input is the broadcast shape."""
    return hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3).map(
        lambda r: (r.result_shape if inplace else r.input_shapes[0], r.input_shapes[1], (math.prod(r.result_shape) + 1,))
    )


def _in_place(op: OpInfo, method: str, call: Callable[..., Any]) -> OpInfo:
    """`call(y, *rest)` runs the in-place method on a clone y of the first input (a non-leaf, so it records)."""

    def fn(m: Any, x: Any, *rest: Any) -> Any:
        y = x.clone()
        call(y, *rest)
        return y

    return dataclasses.replace(op, name=f"Tensor.{method}", fn=fn, also=(), id=method)


def _quietly(call: Callable[[], Any]) -> Any:
    """PyTorch warns about scatter's reduce= only once per process, so neither side's warning can be compared."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return call()


def _zero_diagonal(m: Any, x: Any) -> Any:
    """An in-place op on a diagonal view rebases its base's history (CopySlices)."""
    y = x * 1
    y.diagonal(1).zero_()
    return y


_along_dim0 = (ANY, _I)
_gather = OpInfo("glassgrad.gather", lambda m, x, i: m.gather(x, 0, i), shapes=_dimwise(), domains=_along_dim0,
                 also=("Tensor.gather",),
                 errors=(lambda m: m.zeros(2, 3).gather(0, m.tensor([[5]])), lambda m: m.zeros(2, 3).gather(0, m.tensor([0])),
                         lambda m: m.zeros(2, 3).gather(0, m.zeros(1, 4, dtype=m.int64)),
                         lambda m: m.zeros(2, 3).gather(0, m.zeros(1, 1))))
_scatter = OpInfo("glassgrad.scatter", lambda m, x, i, s: m.scatter(x, 0, i, s), shapes=_dimwise(src=True),
                  domains=(ANY, _I, ANY), also=("Tensor.scatter",),
                  errors=(lambda m: m.zeros(2, 3).scatter(0, m.tensor([[0]]), m.zeros(1, 1, dtype=m.int64)),
                          lambda m: m.zeros(2, 3).scatter(0, m.tensor([[2]]), m.zeros(1, 1)),
                          lambda m: m.zeros(2, 3).scatter(0, m.tensor([[0.0]]), m.zeros(1, 1))))
_scatter_value = OpInfo("glassgrad.scatter", lambda m, x, i: x.scatter(0, i, 1.5), shapes=_dimwise(), domains=_along_dim0,
                        id="scatter_value")
_scatter_add = OpInfo("glassgrad.scatter_add", lambda m, x, i, s: m.scatter_add(x, 0, i, s), shapes=_dimwise(src=True),
                      domains=(ANY, _I, ANY), also=("Tensor.scatter_add",),
                      errors=(lambda m: m.zeros(2, 3).scatter_add(0, m.tensor([[0, 0, 0, 0]]), m.zeros(1, 4)),))


def _scatter_reduce(reduce: str, include_self: bool = True) -> OpInfo:
    return OpInfo(
        "glassgrad.scatter_reduce",
        lambda m, x, i, s: m.scatter_reduce(x, 0, i, s, reduce, include_self=include_self),
        shapes=_dimwise().map(lambda s: (*s, s[1])), domains=(_NONZERO, _I, _NONZERO) if reduce == "prod" else (ANY, _I, ANY),
        id=f"scatter_reduce_{reduce}{'' if include_self else '_exclude_self'}", also=("Tensor.scatter_reduce",),
        errors=(lambda m: m.zeros(2, 3).scatter_reduce(0, m.tensor([[0]]), m.zeros(1, 1), "foo"),),
    )


_index_add = OpInfo("glassgrad.index_add", lambda m, x, i, s: m.index_add(x, 0, i, s), shapes=_slicewise(source=True),
                    domains=(ANY, _I, ANY), also=("Tensor.index_add",),
                    errors=(lambda m: m.zeros(2, 3).index_add(0, m.tensor([0]), m.zeros(2, 3)),
                            lambda m: m.zeros(2, 3).index_add(0, m.tensor([0.0]), m.zeros(1, 3))))
_index_copy = OpInfo("glassgrad.index_copy", lambda m, x, i, s: m.index_copy(x, 0, i, s), shapes=_slicewise(source=True),
                     domains=(ANY, _I, ANY), also=("Tensor.index_copy",),
                     errors=(lambda m: m.zeros(2, 3).index_copy(0, m.tensor([0, 9]), m.zeros(2, 3)),))
_index_fill = OpInfo("glassgrad.index_fill", lambda m, x, i: m.index_fill(x, 0, i, -2.0), shapes=_slicewise(),
                     domains=_along_dim0, also=("Tensor.index_fill",),
                     errors=(lambda m: m.zeros(2, 3).index_fill(0, m.tensor([0]), m.ones(1)),
                             lambda m: m.zeros(2, 3).index_fill(0, m.tensor([[0]]), 1.0)))
_index_put = OpInfo("glassgrad.index_put", lambda m, x, i, v: m.index_put(x, (i,), v), domains=(ANY, _I, ANY),
                    shapes=_slicewise(source=True).map(lambda s: (s[0], s[1], s[2][1:])), also=("Tensor.index_put",),
                    errors=(lambda m: m.zeros(2, 3).index_put((m.tensor([0]),), m.zeros(2)),))
_masked_scatter = OpInfo("glassgrad.masked_scatter", lambda m, x, k, s: m.masked_scatter(x, k, s), shapes=_masked_shapes(),
                         domains=(ANY, _MASK, ANY), also=("Tensor.masked_scatter",),
                         errors=(lambda m: m.ones(3).masked_scatter(m.ones(3) > 0, m.zeros(2)),
                                 lambda m: m.ones(3).masked_scatter(m.ones(3), m.zeros(3))))
_tril = OpInfo("glassgrad.tril", lambda m, x: m.tril(x), shapes=unary(min_dims=2), also=("Tensor.tril",),
               errors=(lambda m: m.zeros(3).tril(),))
_triu = OpInfo("glassgrad.triu", lambda m, x: x.triu(-1), shapes=unary(min_dims=2), also=("glassgrad.triu",),
               errors=(lambda m: m.zeros(3).triu(),))

OPS = [
    _gather,
    OpInfo("glassgrad.take_along_dim", lambda m, x, i: m.take_along_dim(x, i, 0), domains=_along_dim0, also=("Tensor.take_along_dim",),
           shapes=_dimwise().map(lambda s: (s[0], (s[1][0], *(1 for _ in s[1][1:])))),
           errors=(lambda m: m.zeros(2, 3).take_along_dim(m.tensor([0]), dim=1),)),
    OpInfo("glassgrad.take_along_dim", lambda m, x, i: x.take_along_dim(i), shapes=_dimwise(), domains=_along_dim0,
           id="take_along_dim_flat"),
    # put: flat positions spread over the input by the source's own length, repeats included
    *[OpInfo("glassgrad.put", lambda m, x, src, acc=acc: m.put(x, _flat_positions(m, x, src), src, accumulate=acc),
             shapes=st.tuples(unary(), st.integers(0, 4)).map(lambda s: (s[0][0], (s[1],))), id=f"put_{acc}",
             also=() if acc else ("Tensor.put",), errors=_PUT_ERRORS)
      for acc in (False, True)],
    OpInfo("Tensor.put_", lambda m, x, src: x.clone().put_(_flat_positions(m, x, src), src, True),
           shapes=st.tuples(unary(), st.integers(0, 4)).map(lambda s: (s[0][0], (s[1],))), errors=_PUT_ERRORS,
           id="put_drawn_"),
    OpInfo("glassgrad.take", lambda m, x, i: m.take(x, i), shapes=_dimwise().map(lambda s: (s[0], s[1][1:])),
           domains=(ANY, Domain(-3, 2, dtype="int64")), also=("Tensor.take",),
           errors=(lambda m: m.zeros(2, 3).take(m.tensor([6])),)),
    _scatter, _scatter_value, _scatter_add,
    _in_place(_scatter, "scatter_", lambda y, i, s: y.scatter_(0, i, s)),
    _in_place(_scatter_add, "scatter_add_", lambda y, i, s: y.scatter_add_(0, i, s)),
    OpInfo("glassgrad.scatter", lambda m, x, i, s: _quietly(lambda: x.scatter(0, i, s, reduce="multiply")), shapes=_dimwise(src=True),
           domains=(ANY, _I, ANY), order=0, id="scatter_reduce_arg"),
    *(_scatter_reduce(r) for r in ("sum", "prod", "mean", "amax", "amin")),
    *(_scatter_reduce(r, include_self=False) for r in ("sum", "prod", "mean", "amax", "amin")),
    _in_place(_scatter_reduce("amax"), "scatter_reduce_", lambda y, i, s: y.scatter_reduce_(0, i, s, "amax")),
    OpInfo("glassgrad.index_select", lambda m, x, i: m.index_select(x, 0, i), shapes=_slicewise(), domains=_along_dim0,
           also=("Tensor.index_select",),
           errors=(lambda m: m.zeros(2, 3).index_select(0, m.tensor([5])), lambda m: m.zeros(2, 3).index_select(0, m.tensor([0.0])),
                   lambda m: m.zeros(2, 3).index_select(0, m.tensor([[0]])))),
    _index_add,
    OpInfo("glassgrad.index_add", lambda m, x, i, s: x.index_add(0, i, s, alpha=-2.5), shapes=_slicewise(source=True),
           domains=(ANY, _I, ANY), id="index_add_alpha"),
    _in_place(_index_add, "index_add_", lambda y, i, s: y.index_add_(0, i, s)),
    _index_copy, _in_place(_index_copy, "index_copy_", lambda y, i, s: y.index_copy_(0, i, s)),
    _index_fill, _in_place(_index_fill, "index_fill_", lambda y, i: y.index_fill_(0, i, -2.0)),
    OpInfo("glassgrad.index_fill", lambda m, x, i, v: x.index_fill(0, i, v), shapes=_slicewise().map(lambda s: (*s, ())),
           domains=(ANY, _I, ANY), id="index_fill_tensor"),
    _index_put, _in_place(_index_put, "index_put_", lambda y, i, v: y.index_put_((i,), v)),
    OpInfo("glassgrad.index_put", lambda m, x, i, v: x.index_put((i,), v, accumulate=True), domains=(ANY, _I, ANY),
           shapes=_slicewise(source=True), id="index_put_accumulate"),
    OpInfo("glassgrad.masked_select", lambda m, x, k: m.masked_select(x, k), domains=(ANY, _MASK),
           shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3).map(lambda r: r.input_shapes),
           also=("Tensor.masked_select",),
           errors=(lambda m: m.zeros(2, 3).masked_select(m.ones(3)), lambda m: m.zeros(2, 3).masked_select(m.ones(2) > 0))),
    _masked_scatter, inplace_variant(_masked_scatter, "masked_scatter_", shapes=_masked_shapes(inplace=True)),
    OpInfo("glassgrad.nonzero", lambda m, x: m.nonzero(x), domains=_MASK, order=0, also=("Tensor.nonzero",)),
    OpInfo("glassgrad.nonzero", lambda m, x: x.nonzero(as_tuple=True), domains=Domain(-1, 1, dtype="int64"), order=0,
           id="nonzero_tuple"),
    # -- rearranging ops (ops/rearrange.py) --
    OpInfo("Tensor.repeat", lambda m, x: x.repeat(2, *range(1, x.ndim + 1)), shapes=unary(max_side=3),
           errors=(lambda m: m.zeros(2, 3).repeat(2), lambda m: m.zeros(2).repeat(-1))),
    OpInfo("glassgrad.tile", lambda m, x: m.tile(x, (2,)), also=("Tensor.tile",)),
    OpInfo("glassgrad.tile", lambda m, x: x.tile(2, 1, 3, 1), shapes=unary(max_side=3), id="tile_more_dims"),
    OpInfo("glassgrad.repeat_interleave", lambda m, x: m.repeat_interleave(x, 2), also=("Tensor.repeat_interleave",),
           errors=(lambda m: m.zeros(2).repeat_interleave(-1), lambda m: m.zeros(2).repeat_interleave(m.tensor([1, 2, 3]), dim=0),
                   lambda m: m.zeros(2).repeat_interleave(m.tensor([-1, 1]), dim=0))),
    OpInfo("glassgrad.repeat_interleave", lambda m, x: x.repeat_interleave(3, dim=-1), shapes=unary(min_dims=1),
           id="repeat_interleave_dim"),
    OpInfo("glassgrad.repeat_interleave", lambda m, x, r: x.repeat_interleave(r, dim=0), domains=(ANY, _I),
           shapes=_slicewise().map(lambda s: (s[0], (3,))), id="repeat_interleave_tensor"),
    OpInfo("glassgrad.repeat_interleave", lambda m, r: m.repeat_interleave(r), shapes=unary(max_dims=1), domains=_I, order=0,
           id="repeat_interleave_counts"),
    OpInfo("glassgrad.flip", lambda m, x: m.flip(x, (0, -1)), shapes=unary(min_dims=2), also=("Tensor.flip",),
           errors=(lambda m: m.zeros(2, 3).flip(0, 0), lambda m: m.zeros(2, 3).flip(2))),
    OpInfo("glassgrad.fliplr", lambda m, x: m.fliplr(x), shapes=unary(min_dims=2), also=("Tensor.fliplr",),
           errors=(lambda m: m.zeros(3).fliplr(),)),
    OpInfo("glassgrad.flipud", lambda m, x: m.flipud(x), shapes=unary(min_dims=1), also=("Tensor.flipud",),
           errors=(lambda m: m.zeros(()).flipud(),)),
    OpInfo("glassgrad.roll", lambda m, x: m.roll(x, 5), also=("Tensor.roll",),
           errors=(lambda m: m.zeros(2, 3).roll((1, 2), (0,)), lambda m: m.zeros(2, 3).roll(1, 2))),
    OpInfo("glassgrad.roll", lambda m, x: x.roll((1, -2), (0, -1)), shapes=unary(min_dims=2), id="roll_dims"),
    OpInfo("glassgrad.rot90", lambda m, x: m.rot90(x), shapes=unary(min_dims=2), also=("Tensor.rot90",),
           errors=(lambda m: m.zeros(2, 3).rot90(1, (0, 0)), lambda m: m.zeros(2, 3).rot90(1, (0, 1, 2)), lambda m: m.zeros(3).rot90())),
    OpInfo("glassgrad.rot90", lambda m, x: x.rot90(-3, (-1, 0)), shapes=unary(min_dims=2), id="rot90_dims"),
    OpInfo("glassgrad.rot90", lambda m, x: x.rot90(2), shapes=unary(min_dims=2), id="rot90_twice"),
    _tril, _triu, inplace_variant(_tril, "tril_"), inplace_variant(_triu, "triu_"),
    OpInfo("glassgrad.tril", lambda m, x: x.tril(1), shapes=unary(min_dims=2), domains=Domain(dtype="int64"), order=0, id="tril_int"),
    OpInfo("glassgrad.diagonal", lambda m, x: m.diagonal(x), shapes=unary(min_dims=2), also=("Tensor.diagonal",),
           errors=(lambda m: m.zeros(2, 3).diagonal(0, 1, 1), lambda m: m.zeros(3).diagonal())),
    OpInfo("glassgrad.diagonal", lambda m, x: x.diagonal(-1, -1, 0), shapes=unary(min_dims=2), id="diagonal_offset"),
    OpInfo("glassgrad.diagonal", _zero_diagonal, shapes=unary(min_dims=2), id="diagonal_view_inplace"),
    OpInfo("glassgrad.diag_embed", lambda m, x: m.diag_embed(x), shapes=unary(min_dims=1), also=("Tensor.diag_embed",),
           errors=(lambda m: m.zeros(2, 3).diag_embed(0, 1, 1),)),
    OpInfo("glassgrad.diag_embed", lambda m, x: x.diag_embed(-1, 0, 2), shapes=unary(min_dims=2), id="diag_embed_dims"),
    OpInfo("glassgrad.diag", lambda m, x: m.diag(x, 1), shapes=unary(min_dims=1, max_dims=2), also=("Tensor.diag",),
           errors=(lambda m: m.zeros(2, 2, 2).diag(), lambda m: m.zeros(()).diag())),
    OpInfo("glassgrad.diag", lambda m, x: x.diag(-1), shapes=unary(min_dims=1, max_dims=2), id="diag_below"),
    OpInfo("glassgrad.diagflat", lambda m, x: m.diagflat(x, -1), also=("Tensor.diagflat",)),
    OpInfo("glassgrad.trace", lambda m, x: m.trace(x), shapes=unary(min_dims=2, max_dims=2), also=("Tensor.trace",),
           errors=(lambda m: m.zeros(3).trace(),)),
    OpInfo("glassgrad.trace", lambda m, x: x.trace(), shapes=fixed((3, 2)), domains=Domain(dtype="int64"), order=0, id="trace_int"),
    OpInfo("glassgrad.pixel_shuffle", lambda m, x: m.pixel_shuffle(x, 2), shapes=_shuffle_shapes(4, 1, 1),
           also=("glassgrad.nn.functional.pixel_shuffle",), errors=_SHUFFLE_ERRORS),
    OpInfo("glassgrad.pixel_shuffle", lambda m, x: m.nn.functional.pixel_shuffle(x, 3), shapes=_shuffle_shapes(9, 1, 1),
           domains=Domain(dtype="int64"), order=0, id="pixel_shuffle_int"),
    OpInfo("glassgrad.pixel_unshuffle", lambda m, x: m.pixel_unshuffle(x, 2), shapes=_shuffle_shapes(1, 2, 2),
           also=("glassgrad.nn.functional.pixel_unshuffle",), errors=_UNSHUFFLE_ERRORS),
    OpInfo("glassgrad.pixel_unshuffle", lambda m, x: m.nn.functional.pixel_unshuffle(x, 1), shapes=_shuffle_shapes(1, 1, 1),
           id="pixel_unshuffle_1"),
    OpInfo("glassgrad.nn.functional.one_hot", lambda m, i: m.nn.functional.one_hot(i), shapes=unary(max_dims=2, min_side=1),
           domains=index(4), order=0,
           errors=(lambda m: m.nn.functional.one_hot(m.tensor([1.0])), lambda m: m.nn.functional.one_hot(m.tensor([3]), 2))),
    OpInfo("glassgrad.nn.functional.one_hot", lambda m, i: m.nn.functional.one_hot(i, 6), shapes=unary(max_dims=2), domains=index(5),
           order=0, id="one_hot_num_classes"),
]
