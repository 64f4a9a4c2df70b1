"""Pytrees as torch.func sees them: torch.utils._pytree's, plus matching a prefix tree against a structure.

The transforms flatten their arguments and results with these functions, and their errors print a
structure the way torch.utils._pytree's TreeSpec does, so that a message's first line is PyTorch's.
"""

from __future__ import annotations

from typing import Any

from ..utils._pytree import (
    SUPPORTED_NODES,
    TreeSpec,
    _get_node_type,
    _is_leaf,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_unflatten,
    treespec_pprint,
)

__all__ = ["TreeSpec", "broadcast_prefix", "tree_flatten", "tree_leaves", "tree_map", "tree_unflatten", "treespec_pprint"]


def broadcast_prefix(prefix: Any, spec: TreeSpec) -> list[Any] | None:
    """One value per leaf of `spec`: a leaf of `prefix` stands for the whole subtree at its place.

    None when `prefix` is not a prefix of the structure (a node where the tree has a leaf, another kind of node,
    other keys or another number of children): vmap's in_dims and out_dims are matched to the arguments this way.
    """
    if _is_leaf(prefix):
        return [prefix] * spec.num_leaves
    node_type = _get_node_type(prefix)
    if node_type is not spec.type:
        return None
    children, context = SUPPORTED_NODES[node_type].flatten_fn(prefix)
    if len(children) != spec.num_children:
        return None
    if isinstance(context, list):  # dict keys: matched by name, in the tree's order
        if set(context) != set(spec.context):
            return None
        by_key = dict(zip(context, children, strict=True))
        children = [by_key[k] for k in spec.context]
    elif context != spec.context:
        return None
    out: list[Any] = []
    for child, child_spec in zip(children, spec.children(), strict=True):
        part = broadcast_prefix(child, child_spec)
        if part is None:
            return None
        out.extend(part)
    return out
