"""OpInfos of shape ops (glassgrad/ops/shape.py): views, splitting, joining."""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..opinfo import Domain, OpInfo, Shapes, fixed, unary


def _joinable(n: int = 2) -> st.SearchStrategy[Shapes]:
    """n shapes equal except along dim 0 (cat's case)."""
    return st.tuples(
        hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
    ).map(lambda r: tuple((k, *r[0][1:]) for k in r[1]))


def _same(n: int = 2, min_dims: int = 0) -> st.SearchStrategy[Shapes]:
    return unary(min_dims=min_dims).map(lambda s: s * n)


_matrix = unary(min_dims=2)
_side1 = unary(max_side=2)  # sizes 0..2, so that squeeze has size-1 dims to remove

OPS = [
    OpInfo("glassgrad.reshape", lambda m, x: m.reshape(x, tuple(reversed(x.shape))), also=("Tensor.reshape",),
           errors=(lambda m: m.zeros(2, 3).reshape(4, -1), lambda m: m.zeros(2, 3).reshape(-1, -1))),
    OpInfo("glassgrad.reshape", lambda m, x: m.permute(x, tuple(reversed(range(x.ndim)))).reshape(-1), id="reshape_copy"),
    OpInfo("Tensor.view", lambda m, x: x.view(-1), errors=(lambda m: m.zeros(2, 3).t().view(6),)),
    OpInfo("Tensor.view_as", lambda m, x: x.view_as(x.reshape(-1))),
    OpInfo("Tensor.reshape_as", lambda m, x: x.t().reshape_as(x.reshape(-1)), shapes=unary(max_dims=2)),
    OpInfo("glassgrad.flatten", lambda m, x: m.flatten(x), also=("Tensor.flatten",)),
    OpInfo("glassgrad.flatten", lambda m, x: x.flatten(1, -1), shapes=unary(min_dims=2), id="flatten_dims",
           errors=(lambda m: m.zeros(2, 3, 4).flatten(2, 1), lambda m: m.zeros(2, 3).flatten(0, 5))),
    OpInfo("glassgrad.unflatten", lambda m, x: m.unflatten(x, 1, (2, -1)), shapes=st.sampled_from([((2, 6),), ((0, 4, 2),)]),
           also=("Tensor.unflatten",),
           errors=(lambda m: m.zeros(2, 3).unflatten(1, (2, 2)), lambda m: m.zeros(2, 3).unflatten(1, ()))),
    OpInfo("glassgrad.squeeze", lambda m, x: m.squeeze(x), shapes=_side1, also=("Tensor.squeeze",)),
    OpInfo("glassgrad.squeeze", lambda m, x: x.squeeze(-1), shapes=_side1, id="squeeze_dim",
           errors=(lambda m: m.zeros(2, 1).squeeze(2),)),
    OpInfo("glassgrad.squeeze", lambda m, x: x.squeeze((0, -1)), shapes=unary(min_dims=2, max_side=2), id="squeeze_dims",
           errors=(lambda m: m.zeros(1, 2).squeeze((0, -2)),)),
    OpInfo("glassgrad.unsqueeze", lambda m, x: m.unsqueeze(x, -1), also=("Tensor.unsqueeze",),
           errors=(lambda m: m.zeros(2).unsqueeze(2),)),
    OpInfo("glassgrad.permute", lambda m, x: m.permute(x, (2, 0, -2)), shapes=unary(min_dims=3, max_dims=3),
           also=("Tensor.permute",),
           errors=(lambda m: m.zeros(2, 3).permute(0, 0), lambda m: m.zeros(2, 3).permute(0,))),
    # Tensor.T and Tensor.mT are properties built on permute and transpose
    OpInfo("glassgrad.permute", lambda m, x: x.T, shapes=unary(min_dims=2, max_dims=2), id="T_property"),
    OpInfo("glassgrad.transpose", lambda m, x: x.mT, shapes=unary(min_dims=2), id="mT_property",
           errors=(lambda m: m.zeros(2).mT,)),
    OpInfo("glassgrad.transpose", lambda m, x: m.transpose(x, 0, -1), shapes=unary(min_dims=1),
           also=("Tensor.transpose", "glassgrad.swapaxes", "glassgrad.swapdims"),
           errors=(lambda m: m.zeros(2, 3).transpose(0, 2),)),
    OpInfo("glassgrad.t", lambda m, x: m.t(x), shapes=unary(max_dims=2), also=("Tensor.t",),
           errors=(lambda m: m.zeros(2, 3, 4).t(),)),
    OpInfo("glassgrad.movedim", lambda m, x: m.movedim(x, (0, -1), (-1, 1)), shapes=unary(min_dims=3, max_dims=3),
           also=("glassgrad.moveaxis", "Tensor.movedim"),
           errors=(lambda m: m.zeros(2, 3).movedim((0, 1), (0,)), lambda m: m.zeros(2, 3).movedim((0, 0), (0, 1)))),
    OpInfo("Tensor.expand", lambda m, x: x.expand(2, *x.shape), errors=(lambda m: m.zeros(2, 3).expand(3, 3),)),
    OpInfo("Tensor.expand_as", lambda m, x, y: x.expand_as(y), shapes=_same().map(lambda s: ((1, *s[0][1:]), s[1]))),
    OpInfo("glassgrad.broadcast_to", lambda m, x: m.broadcast_to(x, (3, *x.shape)), also=("Tensor.broadcast_to",)),
    OpInfo("Tensor.sum_to_size", lambda m, x: x.sum_to_size(*(1 if i % 2 else s for i, s in enumerate(x.shape))),
           shapes=unary(min_dims=1), errors=(lambda m: m.zeros(2, 3).sum_to_size(3, 3),)),
    OpInfo("glassgrad.clone", lambda m, x: m.clone(x), also=("Tensor.clone",)),
    OpInfo("Tensor.contiguous", lambda m, x: m.permute(x, tuple(reversed(range(x.ndim)))).contiguous()),
    OpInfo("glassgrad.narrow", lambda m, x: m.narrow(x, -1, x.shape[-1] // 2, (x.shape[-1] + 1) // 2),
           shapes=unary(min_dims=1), also=("Tensor.narrow",),
           errors=(lambda m: m.zeros(2, 3).narrow(1, 2, 2), lambda m: m.zeros(()).narrow(0, 0, 1))),
    OpInfo("glassgrad.select", lambda m, x: m.select(x, 0, -1), shapes=unary(min_dims=1, min_side=1), also=("Tensor.select",),
           errors=(lambda m: m.zeros(2, 3).select(1, 3), lambda m: m.zeros(()).select(0, 0))),
    OpInfo("glassgrad.split", lambda m, x: m.split(x, 2, -1), shapes=unary(min_dims=1), also=("Tensor.split",),
           errors=(lambda m: m.zeros(2, 3).split(0), lambda m: m.zeros(()).split(1))),
    OpInfo("glassgrad.split", lambda m, x: x.split([1, 0, x.shape[0] - 1]), shapes=unary(min_dims=1, min_side=1),
           id="split_sizes", errors=(lambda m: m.zeros(2, 3).split([1, 2]), lambda m: m.zeros(2).split([3, -1]))),
    OpInfo("glassgrad.split_with_sizes", lambda m, x: m.split_with_sizes(x, [1, 0, x.shape[-1] - 1], -1),
           shapes=unary(min_dims=1, min_side=1), also=("Tensor.split_with_sizes",),
           errors=(lambda m: m.zeros(2, 3).split_with_sizes([1, 1], 1),)),
    OpInfo("glassgrad.chunk", lambda m, x: m.chunk(x, 3, -1), shapes=unary(min_dims=1), also=("Tensor.chunk",),
           errors=(lambda m: m.zeros(2, 3).chunk(0),)),
    OpInfo("glassgrad.tensor_split", lambda m, x: m.tensor_split(x, 3, dim=-1), shapes=unary(min_dims=1),
           also=("Tensor.tensor_split",), errors=(lambda m: m.zeros(2, 3).tensor_split(0),)),
    OpInfo("glassgrad.tensor_split", lambda m, x: x.tensor_split([1, 3, 2]), shapes=unary(min_dims=1), id="tensor_split_indices"),
    OpInfo("glassgrad.unbind", lambda m, x: m.unbind(x, -1), shapes=unary(min_dims=1), also=("Tensor.unbind",),
           errors=(lambda m: m.zeros(()).unbind(),)),
    OpInfo("glassgrad.cat", lambda m, a, b, c: m.cat([a, b, c]), shapes=_joinable(3), also=("glassgrad.concat", "glassgrad.concatenate"),
           errors=(lambda m: m.cat([m.zeros(2, 3), m.zeros(2, 4)]), lambda m: m.cat([]), lambda m: m.cat([m.zeros(2), m.zeros(2, 1)]))),
    OpInfo("glassgrad.cat", lambda m, a, b: m.cat((a, b), dim=-1), shapes=_joinable().map(lambda s: tuple(x[::-1] for x in s)),
           id="cat_last"),
    OpInfo("glassgrad.stack", lambda m, a, b: m.stack([a, b], -1), shapes=_same(),
           errors=(lambda m: m.stack([m.zeros(2), m.zeros(3)]), lambda m: m.stack([]), lambda m: m.stack([m.zeros(2)], 2))),
    OpInfo("glassgrad.select", lambda m, x: x.unbind(0)[0].clone(), shapes=fixed((3, 2)), domains=Domain(dtype="int64"),
           order=0, id="unbind_int"),
]
