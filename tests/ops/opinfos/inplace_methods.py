"""OpInfos of glassgrad/ops/inplace_methods.py: in-place view-metadata changes, resize_, fill_diagonal_, apply_, map_.

Each runs on a clone (a non-leaf, so that the in-place op records a node) or, where PyTorch refuses a tensor that
requires grad, on a detached copy. test_inplace_extra.py checks what OpInfos cannot see: versions, node names, views.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ..opinfo import Domain, OpInfo, fixed, unary
from .elementwise import onto_first


def _on_clone(method: str, *args: Any) -> Any:
    return lambda m, x: getattr(x.clone(), method)(*args)


def _on_copy(call: Any) -> Any:
    """call(m, y, *rest) on a detached copy y of the first input, returning y."""

    def fn(m: Any, x: Any, *rest: Any) -> Any:
        y = x.detach().clone()
        call(m, y, *(r.detach() for r in rest))
        return y

    return fn


ONES = unary(max_side=2)  # sides of 1 are common: something to squeeze
MATRICES = unary(min_dims=2, max_dims=2)
SMALL_INTEGERS = Domain(-3, 3, integral=True)

OPS: list[OpInfo] = [
    OpInfo("Tensor.t_", _on_clone("t_"), shapes=unary(max_dims=2), errors=(lambda m: m.zeros(2, 3, 4).t_(),)),
    OpInfo("Tensor.transpose_", _on_clone("transpose_", 0, -1), shapes=unary(min_dims=1),
           errors=(lambda m: m.zeros(2, 3).transpose_(0, 5), lambda m: m.ones(2, requires_grad=True).transpose_(0, 0))),
    OpInfo("Tensor.swapaxes_", _on_clone("swapaxes_", -1, 0), shapes=unary(min_dims=1)),
    OpInfo("Tensor.swapdims_", _on_clone("swapdims_", 0, 1), shapes=unary(min_dims=2)),
    OpInfo("Tensor.squeeze_", _on_clone("squeeze_"), shapes=ONES,
           errors=(lambda m: m.zeros(2, 3).squeeze_((0, 0)), lambda m: m.zeros(2).squeeze_(3))),
    OpInfo("Tensor.squeeze_", _on_clone("squeeze_", 0), shapes=unary(min_dims=1, max_side=2), id="squeeze_dim"),
    OpInfo("Tensor.squeeze_", _on_clone("squeeze_", (0, -1)), shapes=unary(min_dims=2, max_side=2), id="squeeze_dims"),
    OpInfo("Tensor.unsqueeze_", _on_clone("unsqueeze_", -1), errors=(lambda m: m.zeros(2, 3).unsqueeze_(5),)),
    OpInfo("Tensor.unsqueeze_", _on_clone("unsqueeze_", 0), id="unsqueeze_front"),
    # as_strided_ on a clone's own storage: overlapping windows, repeats accumulate in the gradient
    OpInfo("Tensor.as_strided_", _on_clone("as_strided_", (2, 2), (1, 1), 1), shapes=fixed((4,)),
           errors=(lambda m: m.ones(3).as_strided_((4,), (1,)), lambda m: m.ones(3, requires_grad=True).as_strided_((2,), (1,)))),
    OpInfo("Tensor.as_strided_", lambda m, x: x.clone()[1:].as_strided_((2,), (2,)), shapes=fixed((2, 3)), id="as_strided_offset"),
    OpInfo("Tensor.set_", _on_copy(lambda m, y, z: y.set_(z)), shapes=fixed((3,), (2, 2)), order=0,
           errors=(lambda m: m.ones(3, requires_grad=True).set_(m.ones(2)), lambda m: m.ones(3).set_(m.ones(2, dtype=m.int64)))),
    OpInfo("Tensor.set_", _on_copy(lambda m, y: y.set_()), order=0, id="set_empty"),
    # resize_: the elements in storage order (a larger size adds uninitialized ones, so only the old ones are compared)
    OpInfo("Tensor.resize_", _on_copy(lambda m, y: y.resize_(max(y.numel() - 1, 0))), order=0,
           errors=(lambda m: m.ones(3, requires_grad=True).resize_(2), lambda m: m.ones(3).resize_(2.5),
                   lambda m: m.ones(3).resize_(2, -1))),
    OpInfo("Tensor.resize_", _on_copy(lambda m, y: y.resize_((y.numel(), 1))), order=0, id="resize_same_numel"),
    OpInfo("Tensor.resize_", lambda m, x: m.flatten(_on_copy(lambda m, y: y.resize_(2, y.numel() + 1))(m, x))[:x.numel()],
           order=0, id="resize_grow"),
    OpInfo("Tensor.resize_", _on_copy(lambda m, y: y.t().resize_(y.shape[1], y.shape[0])), shapes=MATRICES, order=0,
           id="resize_transposed"),
    OpInfo("Tensor.resize_", lambda m, x: x.clone().resize_(x.shape), order=0, id="resize_same_shape"),
    OpInfo("Tensor.resize_as_", _on_copy(lambda m, y, z: y.resize_as_(z.flatten()[:y.numel()])),
           shapes=st.tuples(unary(), unary()).map(lambda s: (s[0][0], s[1][0])), order=0, also=("glassgrad.resize_as_",),
           errors=(lambda m: m.ones(3).resize_as_(5),)),
    # fill_diagonal_: through diagonal views (a CopySlices node), wrapping in tall matrices
    OpInfo("Tensor.fill_diagonal_", _on_clone("fill_diagonal_", 2.5), shapes=MATRICES,
           errors=(lambda m: m.zeros(2, 3, 2).fill_diagonal_(1), lambda m: m.zeros(3).fill_diagonal_(1),
                   lambda m: m.zeros(3, 3).fill_diagonal_(m.ones(2)), lambda m: m.ones(3, 3, requires_grad=True).fill_diagonal_(2.0),
                   lambda m: m.zeros(3, 3).fill_diagonal_(m.tensor(1.0, requires_grad=True)))),
    OpInfo("Tensor.fill_diagonal_", _on_clone("fill_diagonal_", -1.0, True), shapes=MATRICES, id="fill_diagonal_wrap"),
    OpInfo("Tensor.fill_diagonal_", _on_clone("fill_diagonal_", 0.5, True), shapes=fixed((5, 1)), id="fill_diagonal_tall"),
    OpInfo("Tensor.fill_diagonal_", _on_clone("fill_diagonal_", 3), shapes=fixed((2, 2, 2)), id="fill_diagonal_cube"),
    OpInfo("Tensor.fill_diagonal_", lambda m, x: x.long().fill_diagonal_(2.7), shapes=MATRICES, order=0, id="fill_diagonal_int"),
    # apply_ and map_: Python callbacks on Python numbers, refused for tensors that require grad
    OpInfo("Tensor.apply_", _on_copy(lambda m, y: y.apply_(lambda v: v * 2 + 1)), order=0,
           errors=(lambda m: m.ones(2, requires_grad=True).apply_(lambda v: v), lambda m: m.ones(2).apply_(lambda v: "a"),
                   lambda m: m.ones(2).apply_(5))),
    OpInfo("Tensor.apply_", lambda m, x: x.long().apply_(lambda v: v * 2.7 if isinstance(v, int) else 0), domains=SMALL_INTEGERS,
           order=0, id="apply_int"),
    OpInfo("Tensor.map_", _on_copy(lambda m, y, z: y.map_(z, lambda a, b: a * b - 1)), shapes=onto_first(2), order=0,
           errors=(lambda m: m.ones(3).map_(m.ones(2, 3), lambda a, b: a), lambda m: m.ones(3).map_(m.ones(3).long(), max),
                   lambda m: m.ones(3).map_(m.ones(3, requires_grad=True), max), lambda m: m.ones(3).map_(2, max))),
]
