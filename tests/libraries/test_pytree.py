"""torch.utils._pytree against PyTorch's: leaves, structures, printing, mapping, registration and errors."""

from __future__ import annotations

from collections import OrderedDict, defaultdict, deque, namedtuple
from dataclasses import dataclass

import pytest
import torch.utils._pytree as torch_pytree

import glassgrad
from glassgrad.utils import _pytree

pytestmark = pytest.mark.torch_oracle
Point = namedtuple("Point", "x y")

TREES = [
    1,
    (1, 2),
    [1, (2, 3), {"a": 4, "b": [5]}],
    {"z": 1, "a": (2,)},
    OrderedDict(b=1, a=[2, 3]),
    Point(1, (2, 3)),
    defaultdict(list, {"k": [1, 2]}),
    deque([1, [2]], maxlen=4),
    ((), [], {}),
    [None, "text", (1.5,)],
]


@pytest.mark.parametrize("tree", TREES, ids=repr)
def test_flatten_and_unflatten_match_pytorch(tree: object) -> None:
    leaves, spec = _pytree.tree_flatten(tree)
    torch_leaves, torch_spec = torch_pytree.tree_flatten(tree)
    assert leaves == torch_leaves
    assert repr(spec) == repr(torch_spec)
    assert (spec.num_leaves, spec.num_nodes, spec.num_children) == (
        torch_spec.num_leaves, torch_spec.num_nodes, torch_spec.num_children,
    )
    assert _pytree.treespec_pprint(spec) == torch_pytree.treespec_pprint(torch_spec)
    rebuilt = _pytree.tree_unflatten(leaves, spec)
    assert rebuilt == tree and type(rebuilt) is type(tree)


def test_a_subclass_of_a_container_is_a_leaf_as_in_pytorch() -> None:
    class MyDict(dict):
        pass

    tree = [MyDict(a=1)]
    assert _pytree.tree_leaves(tree) == torch_pytree.tree_leaves(tree) == [tree[0]]


def test_size_is_a_node() -> None:
    leaves, spec = _pytree.tree_flatten(glassgrad.Size([2, 3]))
    assert leaves == [2, 3]
    assert _pytree.tree_unflatten(leaves, spec) == glassgrad.Size([2, 3])


def test_tree_map_over_several_trees_and_only_some_types() -> None:
    tree = {"a": (1, 2.0), "b": [3]}
    assert _pytree.tree_map(lambda x, y: x + y, tree, {"a": (10, 20), "b": [30]}) == {"a": (11, 22.0), "b": [33]}
    assert _pytree.tree_map_only(int, lambda x: -x, tree) == torch_pytree.tree_map_only(int, lambda x: -x, tree)
    assert _pytree.tree_map_only((int, float), str, tree) == torch_pytree.tree_map_only((int, float), str, tree)
    assert _pytree.tree_all(lambda x: x > 0, tree) and not _pytree.tree_any(lambda x: x > 5, tree)


def test_is_leaf_stops_flattening() -> None:
    tree = [(1, 2), [3]]
    assert _pytree.tree_leaves(tree, is_leaf=lambda x: isinstance(x, tuple)) == torch_pytree.tree_leaves(
        tree, is_leaf=lambda x: isinstance(x, tuple)
    )


@dataclass
class Pair:
    first: object
    second: object


def test_registered_classes_are_nodes() -> None:
    _pytree.register_pytree_node(
        Pair,
        lambda p: ([p.first, p.second], None),
        lambda values, _: Pair(*values),
        flatten_with_keys_fn=lambda p: ([(_pytree.GetAttrKey("first"), p.first), (_pytree.GetAttrKey("second"), p.second)], None),
    )
    leaves, spec = _pytree.tree_flatten([Pair(1, (2, 3))])
    assert leaves == [1, 2, 3]
    assert Pair in _pytree.SUPPORTED_NODES
    assert _pytree.tree_unflatten([4, 5, 6], spec) == [Pair(4, (5, 6))]
    with pytest.raises(ValueError, match="already registered as pytree node"):
        _pytree.register_pytree_node(Pair, lambda p: ([], None), lambda v, c: Pair(0, 0))


def test_lightning_style_flattening_with_leafspec_and_node_types() -> None:
    # Lightning's utilities/_pytree.py builds TreeSpecs itself from these names
    point = Point(1, 2)
    assert _pytree._get_node_type(point) is torch_pytree._get_node_type(point) is namedtuple
    flatten = _pytree.SUPPORTED_NODES[_pytree._get_node_type(point)].flatten_fn
    children, context = flatten(point)
    spec = _pytree.TreeSpec(namedtuple, context, [_pytree.LeafSpec(), _pytree.LeafSpec()])
    assert _pytree.tree_unflatten(children, spec) == point
    assert _pytree.LeafSpec().is_leaf() and repr(_pytree.LeafSpec()) == "*"


def test_key_entries_print_as_pytorchs() -> None:
    assert str(_pytree.SequenceKey(2)) == str(torch_pytree.SequenceKey(2))
    assert str(_pytree.MappingKey("a")) == str(torch_pytree.MappingKey("a"))
    assert _pytree._dict_flatten_with_keys({"a": 1})[0][0][0] == _pytree.MappingKey("a")


def test_unflatten_with_the_wrong_number_of_leaves_raises_pytorchs_error() -> None:
    spec, torch_spec = _pytree.tree_structure((1, 2)), torch_pytree.tree_structure((1, 2))
    with pytest.raises(ValueError) as theirs:
        torch_pytree.tree_unflatten([1], torch_spec)
    with pytest.raises(ValueError) as ours:
        _pytree.tree_unflatten([1], spec)
    assert str(ours.value) == str(theirs.value)


def test_key_paths_match_pytorchs() -> None:
    tree = {"a": [1, (2,)], "b": Point(3, 4)}
    ours = [(_pytree.keystr(path), leaf) for path, leaf in _pytree.tree_leaves_with_path(tree)]
    theirs = [(torch_pytree.keystr(path), leaf) for path, leaf in torch_pytree.tree_leaves_with_path(tree)]
    assert ours == theirs
    assert _pytree.tree_map_with_path(lambda path, x: _pytree.keystr(path), tree) == torch_pytree.tree_map_with_path(
        lambda path, x: torch_pytree.keystr(path), tree
    )
    path = _pytree.tree_leaves_with_path(tree)[1][0]
    assert _pytree.key_get(tree, path) == 2


def test_spec_builders_and_small_helpers_match_pytorchs() -> None:
    assert repr(_pytree.treespec_tuple([_pytree.treespec_leaf()] * 2)) == repr(torch_pytree.treespec_tuple([torch_pytree.treespec_leaf()] * 2))
    assert repr(_pytree.treespec_dict({"a": _pytree.treespec_leaf()})) == repr(torch_pytree.treespec_dict({"a": torch_pytree.treespec_leaf()}))
    assert _pytree.arg_tree_leaves(1, (2, 3), x=[4]) == torch_pytree.arg_tree_leaves(1, (2, 3), x=[4])
    assert _pytree.tree_is_leaf(1) and not _pytree.tree_is_leaf((1,))
    assert list(_pytree.tree_iter([1, (2,)])) == list(torch_pytree.tree_iter([1, (2,)]))
    assert _pytree.is_namedtuple(Point(1, 2)) and _pytree.is_namedtuple_class(Point) and not _pytree.is_namedtuple((1, 2))
    seen: list[int] = []
    assert _pytree.tree_map_only_(int, seen.append, [1, "a", (2,)]) == [1, "a", (2,)]
    assert seen == [1, 2]
    assert _pytree.tree_all_only(int, lambda x: x > 0, [1, "a"]) and not _pytree.tree_any_only(str, lambda x: x == "b", [1, "a"])
