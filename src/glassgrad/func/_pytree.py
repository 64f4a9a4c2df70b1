"""Pytrees as torch.func sees them: tuples, lists, dicts, OrderedDicts and namedtuples of leaves.

The transforms flatten their arguments and results with these functions, and their errors print a
structure the way torch.utils._pytree's TreeSpec does, so that a message's first line is PyTorch's.
As in PyTorch, only those exact container types are nodes: a subclass of dict is a leaf.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

Flatten = Callable[[Any], tuple[list[Any], Any]]  # node -> (children, context)
Unflatten = Callable[[list[Any], Any], Any]  # (children, context) -> node


def _flatten_dict(d: dict[Any, Any]) -> tuple[list[Any], Any]:
    return list(d.values()), list(d.keys())


def _flatten_sequence(s: tuple[Any, ...] | list[Any]) -> tuple[list[Any], Any]:
    return list(s), None


# By the name a TreeSpec prints for the kind.
_NODES: dict[str, tuple[Flatten, Unflatten]] = {
    "tuple": (_flatten_sequence, lambda children, _: tuple(children)),
    "list": (_flatten_sequence, lambda children, _: children),
    "dict": (_flatten_dict, lambda children, keys: dict(zip(keys, children, strict=True))),
    "OrderedDict": (_flatten_dict, lambda children, keys: OrderedDict(zip(keys, children, strict=True))),
    "namedtuple": (lambda t: (list(t), type(t)), lambda children, cls: cls(*children)),
}
_KIND = {tuple: "tuple", list: "list", dict: "dict", OrderedDict: "OrderedDict"}


def _kind(x: Any) -> str | None:
    """The node kind of `x`, or None for a leaf."""
    if isinstance(x, tuple) and hasattr(type(x), "_fields"):
        return "namedtuple"
    return _KIND.get(type(x))


@dataclass(frozen=True)
class TreeSpec:
    """The structure of a pytree: a node's kind, its context (dict keys, namedtuple class) and its children.

    A leaf's spec has kind None. Two trees have equal specs exactly when one's leaves can stand in for the other's.
    """

    kind: str | None = None
    context: Any = None
    children: tuple[TreeSpec, ...] = ()
    num_leaves: int = field(default=1, compare=False)

    def is_leaf(self) -> bool:
        return self.kind is None

    def __repr__(self, indent: int = 0) -> str:
        # PyTorch's layout: the first child on the opening line, each further one on its own indented line.
        if self.kind is None:
            return "*"
        indent += 2
        body = ",".join(
            (("\n" + " " * indent) if i else "") + child.__repr__(indent) for i, child in enumerate(self.children)
        )
        return f"TreeSpec({self.kind}, {self.context}, [{body}])"


LEAF = TreeSpec()


def tree_flatten(tree: Any) -> tuple[list[Any], TreeSpec]:
    leaves: list[Any] = []
    return leaves, _flatten_into(tree, leaves)


def _flatten_into(tree: Any, leaves: list[Any]) -> TreeSpec:
    kind = _kind(tree)
    if kind is None:
        leaves.append(tree)
        return LEAF
    children, context = _NODES[kind][0](tree)
    specs = tuple(_flatten_into(child, leaves) for child in children)
    return TreeSpec(kind, context, specs, sum(s.num_leaves for s in specs))


def tree_unflatten(leaves: Iterable[Any], spec: TreeSpec) -> Any:
    it = iter(leaves)
    tree = _build(it, spec)
    if next(it, _END) is not _END:
        raise ValueError(f"tree_unflatten: more leaves than the {spec.num_leaves} of the structure {spec!r}")
    return tree


_END = object()


def _build(leaves: Iterator[Any], spec: TreeSpec) -> Any:
    if spec.kind is None:
        leaf = next(leaves, _END)
        if leaf is _END:
            raise ValueError(f"tree_unflatten: fewer leaves than the structure {spec!r} has")
        return leaf
    children = [_build(leaves, child) for child in spec.children]
    return _NODES[spec.kind][1](children, spec.context)


def tree_map(fn: Callable[[Any], Any], tree: Any) -> Any:
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(leaf) for leaf in leaves], spec)


def tree_leaves(tree: Any) -> list[Any]:
    return tree_flatten(tree)[0]


class _Star:
    def __repr__(self) -> str:
        return "*"


def treespec_pprint(spec: TreeSpec) -> str:
    """The structure as a tree of asterisks, e.g. ((*, *), {'a': [*]}), as PyTorch prints it in errors."""
    return repr(tree_unflatten([_Star()] * spec.num_leaves, spec))


def broadcast_prefix(prefix: Any, spec: TreeSpec) -> list[Any] | None:
    """One value per leaf of `spec`: a leaf of `prefix` stands for the whole subtree at its place.

    None when `prefix` is not a prefix of the structure (a node where the tree has a leaf, another kind of node,
    other keys or another number of children): vmap's in_dims and out_dims are matched to the arguments this way.
    """
    kind = _kind(prefix)
    if kind is None:
        return [prefix] * spec.num_leaves
    if kind != spec.kind:
        return None
    children, context = _NODES[kind][0](prefix)
    if len(children) != len(spec.children):
        return None
    if isinstance(context, list):  # dict keys: matched by name, in the tree's order
        if set(context) != set(spec.context):
            return None
        by_key = dict(zip(context, children, strict=True))
        children = [by_key[k] for k in spec.context]
    elif context != spec.context:
        return None
    out: list[Any] = []
    for child, child_spec in zip(children, spec.children, strict=True):
        part = broadcast_prefix(child, child_spec)
        if part is None:
            return None
        out.extend(part)
    return out
