"""glassgrad.func's pytrees against torch.utils._pytree: the same leaves, the same printed structure (which goes
into vmap's and vjp's error messages), the same prefix matching for in_dims/out_dims."""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from typing import Any

import pytest
from torch.utils import _pytree as torch_pytree

from glassgrad.func import _pytree

pytestmark = pytest.mark.torch_oracle

Point = namedtuple("Point", ["x", "y"])


class Dict(dict):
    """A dict subclass: a leaf for both, as only the exact container types are nodes."""


TREES: dict[str, Any] = {
    "leaf": 3,
    "none": None,
    "flat_tuple": (1, 2, 3),
    "nested": ((1, 2), {"a": [3, (4,)], "b": 5}),
    "empty": ((), [], {}),
    "ordered": OrderedDict(b=1, a=(2, 3)),
    "namedtuple": Point(1, [2, 3]),
    "dict_subclass": [Dict(a=1), 2],
}


@pytest.mark.parametrize("name", sorted(TREES))
def test_flatten_and_print_like_torch(name: str) -> None:
    tree = TREES[name]
    leaves, spec = _pytree.tree_flatten(tree)
    torch_leaves, torch_spec = torch_pytree.tree_flatten(tree)
    assert leaves == torch_leaves
    assert repr(spec) == repr(torch_spec)
    assert _pytree.treespec_pprint(spec) == torch_pytree.treespec_pprint(torch_spec)
    assert spec.num_leaves == torch_spec.num_leaves
    rebuilt = _pytree.tree_unflatten(leaves, spec)
    assert rebuilt == tree and type(rebuilt) is type(tree)


PREFIXES: list[tuple[Any, Any]] = [
    (0, ((1, 2), {"a": 3})),
    ((0, None), ((1, 2), {"a": 3})),
    ((0, {"a": 1}), ((1, 2), {"a": 3})),
    ((0, {"b": 1}), ((1, 2), {"a": 3})),
    ((0, 1, 2), ((1, 2), {"a": 3})),
    (((0, 1),), ((1,),)),
    (((0, 1),), ((1, 2),)),
    ([0, 1], ((1, 2),)),
    ((Point(0, None),), (Point(1, [2, 3]),)),
    (((0, None),), (Point(1, [2, 3]),)),
]


@pytest.mark.parametrize(("prefix", "tree"), PREFIXES)
def test_broadcast_prefix_like_torch(prefix: Any, tree: Any) -> None:
    _, spec = _pytree.tree_flatten(tree)
    _, torch_spec = torch_pytree.tree_flatten(tree)
    assert _pytree.broadcast_prefix(prefix, spec) == torch_pytree._broadcast_to_and_flatten(prefix, torch_spec)


def test_dict_prefix_in_another_key_order_is_matched_by_key() -> None:
    """PyTorch 2.13 gives [1, 1, 0] here, the prefix's values in the prefix's key order, which vmap then pairs
    with the arguments flattened in their own order (so 'a' would get b's in_dim). glassgrad matches by key."""
    _, spec = _pytree.tree_flatten(({"a": 5, "b": [6, 7]},))
    assert _pytree.broadcast_prefix(({"b": 1, "a": 0},), spec) == [0, 1, 1]


def test_specs_compare_by_structure() -> None:
    a = _pytree.tree_flatten(((1, 2), {"a": 3}))[1]
    assert a == _pytree.tree_flatten((("x", None), {"a": 0.5}))[1]
    assert a != _pytree.tree_flatten(((1, 2), {"b": 3}))[1]
    assert a != _pytree.tree_flatten(([1, 2], {"a": 3}))[1]
