"""torch.utils._pytree: nested containers flattened to a list of leaves and a TreeSpec that rebuilds them.

A node is an object whose exact type is registered (tuple, list, dict, namedtuples, OrderedDict, defaultdict,
deque, glassgrad.Size, and whatever `register_pytree_node` adds: transformers registers its ModelOutputs);
everything else, subclasses of those containers included, is a leaf. TreeSpecs print, compare and report
errors as PyTorch's do, so that messages built from them read the same (glassgrad.func's transforms use them).
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple

PyTree = Any
Context = Any
FlattenFunc = Callable[[PyTree], tuple[list[Any], Context]]
UnflattenFunc = Callable[[Iterable[Any], Context], PyTree]


@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey:
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence: Sequence[Any]) -> Any:
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True, slots=True)
class MappingKey:
    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping: Any) -> Any:
        return mapping[self.key]


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj: Any) -> Any:
        return getattr(obj, self.name)


KeyEntry = SequenceKey | MappingKey | GetAttrKey


class NodeDef(NamedTuple):
    type: Any
    flatten_fn: FlattenFunc
    unflatten_fn: UnflattenFunc
    flatten_with_keys_fn: Callable[[PyTree], tuple[list[tuple[KeyEntry, Any]], Context]] | None


SUPPORTED_NODES: dict[Any, NodeDef] = {}


def register_pytree_node(
    cls: Any,
    flatten_fn: FlattenFunc,
    unflatten_fn: UnflattenFunc,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: Callable[[Context], Any] | None = None,
    from_dumpable_context: Callable[[Any], Context] | None = None,
    flatten_with_keys_fn: Callable[[PyTree], tuple[list[tuple[KeyEntry, Any]], Context]] | None = None,
) -> None:
    """Make instances of exactly `cls` nodes: flatten_fn gives (children, context), unflatten_fn rebuilds.
    The serialization arguments are accepted for PyTorch's signature; glassgrad does not serialize TreeSpecs."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)


def _sequence_flatten(s: Sequence[Any]) -> tuple[list[Any], Context]:
    return list(s), None


def _sequence_flatten_with_keys(s: Sequence[Any]) -> tuple[list[tuple[KeyEntry, Any]], Context]:
    return [(SequenceKey(i), v) for i, v in enumerate(s)], None


def _dict_flatten(d: dict[Any, Any]) -> tuple[list[Any], Context]:
    return list(d.values()), list(d.keys())


def _dict_unflatten(values: Iterable[Any], context: Context) -> dict[Any, Any]:
    return dict(zip(context, values, strict=True))


def _dict_flatten_with_keys(d: dict[Any, Any]) -> tuple[list[tuple[KeyEntry, Any]], Context]:
    values, keys = _dict_flatten(d)
    return [(MappingKey(k), v) for k, v in zip(keys, values, strict=True)], keys


def _defaultdict_flatten(d: defaultdict[Any, Any]) -> tuple[list[Any], Context]:
    values, keys = _dict_flatten(d)
    return values, [d.default_factory, keys]


def _defaultdict_unflatten(values: Iterable[Any], context: Context) -> defaultdict[Any, Any]:
    factory, keys = context
    return defaultdict(factory, _dict_unflatten(values, keys))


register_pytree_node(tuple, _sequence_flatten, lambda values, _: tuple(values), flatten_with_keys_fn=_sequence_flatten_with_keys)
register_pytree_node(list, _sequence_flatten, lambda values, _: list(values), flatten_with_keys_fn=_sequence_flatten_with_keys)
register_pytree_node(dict, _dict_flatten, _dict_unflatten, flatten_with_keys_fn=_dict_flatten_with_keys)
register_pytree_node(
    namedtuple,  # every namedtuple class is a node of this one kind (see _get_node_type)
    lambda t: (list(t), type(t)),
    lambda values, cls: cls(*values),
    flatten_with_keys_fn=lambda t: ([(GetAttrKey(f), v) for f, v in zip(t._fields, t, strict=True)], type(t)),
)
register_pytree_node(
    OrderedDict,
    _dict_flatten,
    lambda values, keys: OrderedDict(zip(keys, values, strict=True)),
    flatten_with_keys_fn=_dict_flatten_with_keys,
)
register_pytree_node(defaultdict, _defaultdict_flatten, _defaultdict_unflatten)
register_pytree_node(deque, lambda d: (list(d), d.maxlen), lambda values, maxlen: deque(values, maxlen=maxlen))


def _get_node_type(tree: Any) -> Any:
    return namedtuple if is_namedtuple_instance(tree) else type(tree)


def _is_leaf(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    return (is_leaf is not None and is_leaf(tree)) or _get_node_type(tree) not in SUPPORTED_NODES


@dataclasses.dataclass(init=True, frozen=True, eq=True, repr=False)
class TreeSpec:
    """The structure of a pytree: a node's type, its context (dict keys, namedtuple class) and its children's
    specs. A leaf's spec has type None; two trees have equal specs exactly when one's leaves fit the other."""

    type: Any
    _context: Context
    _children: list[TreeSpec]
    num_nodes: int = dataclasses.field(init=False, compare=False)
    num_leaves: int = dataclasses.field(init=False, compare=False)
    num_children: int = dataclasses.field(init=False, compare=False)

    def __post_init__(self) -> None:
        leaf = self.type is None
        object.__setattr__(self, "num_children", len(self._children))
        object.__setattr__(self, "num_nodes", 1 + sum(c.num_nodes for c in self._children))
        object.__setattr__(self, "num_leaves", 1 if leaf else sum(c.num_leaves for c in self._children))

    @property
    def context(self) -> Context:
        return self._context

    def is_leaf(self) -> bool:
        return self.type is None

    def children(self) -> list[TreeSpec]:
        return list(self._children)

    def child(self, index: int) -> TreeSpec:
        return self._children[index]

    def __repr__(self, indent: int = 0) -> str:
        # PyTorch's layout: the first child on the opening line, each further one on its own indented line
        if self.is_leaf():
            return "*"
        indent += 2
        body = ",".join(("\n" + " " * indent if i else "") + c.__repr__(indent) for i, c in enumerate(self._children))
        return f"TreeSpec({self.type.__name__}, {self._context}, [{body}])"

    def unflatten(self, leaves: Iterable[Any]) -> PyTree:
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a pytree that "
                f"holds {self.num_leaves} items ({self})."
            )
        return self._build(iter(leaves))

    def _build(self, leaves: Any) -> PyTree:
        if self.is_leaf():
            return next(leaves)
        return SUPPORTED_NODES[self.type].unflatten_fn([c._build(leaves) for c in self._children], self._context)

    def flatten_up_to(self, tree: PyTree) -> list[Any]:
        """tree's subtrees at this spec's leaves, tree having this structure down to them."""
        if self.is_leaf():
            return [tree]
        node_type = _get_node_type(tree)
        if node_type is not self.type:
            raise ValueError(f"Node type mismatch; expected {self.type}, but got {node_type}.")
        children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
        if len(children) != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {len(children)}.")
        if context != self._context:
            raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        return [leaf for child, spec in zip(children, self._children, strict=True) for leaf in spec.flatten_up_to(child)]


class LeafSpec(TreeSpec):
    """The spec of one leaf (deprecated in PyTorch in favour of TreeSpec.is_leaf(), still imported by Lightning)."""

    def __init__(self) -> None:
        super().__init__(None, None, [])


_LEAF = LeafSpec()


def tree_flatten(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> tuple[list[Any], TreeSpec]:
    leaves: list[Any] = []
    return leaves, _flatten_into(tree, leaves, is_leaf)


def _flatten_into(tree: PyTree, leaves: list[Any], is_leaf: Callable[[PyTree], bool] | None) -> TreeSpec:
    if _is_leaf(tree, is_leaf):
        leaves.append(tree)
        return _LEAF
    node_type = _get_node_type(tree)
    children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
    return TreeSpec(node_type, context, [_flatten_into(child, leaves, is_leaf) for child in children])


def tree_unflatten(leaves: Iterable[Any], treespec: TreeSpec) -> PyTree:
    if not isinstance(treespec, TreeSpec):
        raise TypeError(
            f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec but got item of type "
            f"{type(treespec)}."
        )
    return treespec.unflatten(leaves)


def tree_leaves(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> list[Any]:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(
    func: Callable[..., Any], tree: PyTree, *rests: PyTree, is_leaf: Callable[[PyTree], bool] | None = None
) -> PyTree:
    """func over the leaves of tree (and the matching subtrees of rests), in tree's structure."""
    leaves, spec = tree_flatten(tree, is_leaf)
    return spec.unflatten(map(func, leaves, *(spec.flatten_up_to(rest) for rest in rests)))


def map_only(type_or_types_or_pred: Any, /) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """A decorator: the function applies to values of the given types (or passing the predicate), others pass."""
    if isinstance(type_or_types_or_pred, (type, tuple)):
        types = type_or_types_or_pred

        def wanted(x: Any) -> bool:
            return isinstance(x, types)
    else:
        wanted = type_or_types_or_pred

    def wrap(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
        return lambda x: func(x) if wanted(x) else x

    return wrap


def tree_map_only(
    type_or_types_or_pred: Any, /, func: Callable[[Any], Any], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None
) -> PyTree:
    """tree_map over the leaves of the given types (or passing the predicate); other leaves stay as they are."""
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_(func: Callable[..., Any], tree: PyTree, *rests: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """func over the leaves for its effects; the tree itself is returned."""
    leaves, spec = tree_flatten(tree, is_leaf)
    for _ in map(func, leaves, *(spec.flatten_up_to(rest) for rest in rests)):
        pass
    return tree


def tree_map_only_(
    type_or_types_or_pred: Any, /, func: Callable[[Any], Any], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None
) -> PyTree:
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_iter(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> Iterator[Any]:
    return iter(tree_leaves(tree, is_leaf))


def tree_is_leaf(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    return _is_leaf(tree, is_leaf)


def arg_tree_leaves(*args: PyTree, **kwargs: PyTree) -> list[Any]:
    """The leaves of the positional arguments, then of the keyword arguments' values."""
    return tree_leaves(args) + tree_leaves(list(kwargs.values()))


def tree_all(pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    return all(map(pred, tree_leaves(tree, is_leaf)))


def tree_any(pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    return any(map(pred, tree_leaves(tree, is_leaf)))


def tree_all_only(type_or_types: Any, /, pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    return all(pred(x) for x in tree_leaves(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types: Any, /, pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    return any(pred(x) for x in tree_leaves(tree, is_leaf) if isinstance(x, type_or_types))


def tree_flatten_with_path(
    tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None
) -> tuple[list[tuple[tuple[KeyEntry, ...], Any]], TreeSpec]:
    """Each leaf with its key path (the keys from the root down to it), and the structure."""
    return list(_with_paths(tree, (), is_leaf)), tree_structure(tree, is_leaf)


def _with_paths(tree: PyTree, path: tuple[KeyEntry, ...], is_leaf: Callable[[PyTree], bool] | None) -> Iterator[tuple[tuple[KeyEntry, ...], Any]]:
    if _is_leaf(tree, is_leaf):
        yield path, tree
        return
    node = SUPPORTED_NODES[_get_node_type(tree)]
    if node.flatten_with_keys_fn is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node.type}. Please pass a flatten_with_keys_fn argument to register_pytree_node.")
    for key, child in node.flatten_with_keys_fn(tree)[0]:
        yield from _with_paths(child, (*path, key), is_leaf)


def tree_leaves_with_path(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> list[tuple[tuple[KeyEntry, ...], Any]]:
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(
    func: Callable[..., Any], tree: PyTree, *rests: PyTree, is_leaf: Callable[[PyTree], bool] | None = None
) -> PyTree:
    """func(path, leaf, *matching) over the leaves, in tree's structure."""
    paths_and_leaves, spec = tree_flatten_with_path(tree, is_leaf)
    paths, leaves = zip(*paths_and_leaves, strict=True) if paths_and_leaves else ((), ())
    return spec.unflatten(map(func, paths, leaves, *(spec.flatten_up_to(rest) for rest in rests)))


def keystr(kp: tuple[KeyEntry, ...]) -> str:
    return "".join(str(key) for key in kp)


def key_get(obj: Any, kp: tuple[KeyEntry, ...]) -> Any:
    for key in kp:
        obj = key.get(obj)
    return obj


def treespec_leaf() -> LeafSpec:
    return LeafSpec()


def treespec_tuple(iterable: Iterable[TreeSpec] = (), /) -> TreeSpec:
    return TreeSpec(tuple, None, list(iterable))


def treespec_dict(mapping: Any = (), /, **kwargs: TreeSpec) -> TreeSpec:
    entries = dict(mapping, **kwargs)
    return TreeSpec(dict, list(entries), list(entries.values()))


def is_namedtuple(obj: Any) -> bool:
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_class(cls: type) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)


def is_namedtuple_instance(obj: Any) -> bool:
    return is_namedtuple_class(type(obj))


def treespec_pprint(treespec: TreeSpec) -> str:
    """The structure as a tree of asterisks, e.g. ((*, *), {'a': [*]}), as PyTorch prints it in errors."""
    return repr(treespec.unflatten([_Star()] * treespec.num_leaves))


class _Star:
    def __repr__(self) -> str:
        return "*"


def _register_size() -> None:
    from ..tensor import Size  # a tuple subclass, so a node only by registration, as in PyTorch

    register_pytree_node(Size, _sequence_flatten, lambda values, _: Size(values), flatten_with_keys_fn=_sequence_flatten_with_keys)


_register_size()
