"""How the glass reads a graph: one small interface per engine, and the walks written once over it.

The explanations and the watches never touch an engine's nodes directly. They ask a GraphView for a
node's name, creation site, step, edges and saved buffers. glassgrad's own nodes answer natively
(NativeView); real PyTorch's grad_fn objects answer through the records the torch glass keeps in
`grad_fn.metadata` (torch_glass.TorchView). A rule written over a view holds on both engines.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._sites import Site
from ..autograd.graph import live_saved_bytes
from .inspect import GraphReport, NodeInfo, SavedBuffer

if TYPE_CHECKING:
    from ..autograd.graph import Node


@dataclass(frozen=True)
class Crossing:
    """An edge from a node made in this iteration into one made before it: the tensor carried across."""

    child_name: str
    child_site: Site | None
    carried: tuple[tuple[int, ...], str] | None  # the carried tensor's shape and dtype name, where known
    parent_site: Site | None


class GraphView:
    """One engine's graph as the glass sees it. Subclasses answer the per-node questions."""

    tensor_type: type = object

    def grad_fn(self, tensor: Any) -> Any:
        return tensor.grad_fn

    def name(self, node: Any) -> str:
        return str(node.name())

    def site(self, node: Any) -> Site | None:
        raise NotImplementedError

    def step(self, node: Any) -> int | None:
        """The step the node was made in; None where the glass did not see it made."""
        raise NotImplementedError

    def edges(self, node: Any) -> Sequence[tuple[Any, int]]:
        return node.next_functions

    def is_sink(self, node: Any) -> bool:
        return type(node).__name__ == "AccumulateGrad"

    def carried(self, parent: Any, index: int, child: Any, output_nr: int) -> tuple[tuple[int, ...], str] | None:
        """Shape and dtype of the tensor that edge `index` of `parent` stands for."""
        raise NotImplementedError

    def saved(self, node: Any) -> list[SavedBuffer]:
        raise NotImplementedError

    def leaf_shape(self, node: Any) -> tuple[int, ...] | None:
        return tuple(node.variable.shape) if self.is_sink(node) else None

    def live_bytes(self, entries: Iterable[Any]) -> int:
        """Bytes of the saved buffers not yet released, over tracked entries (the watches' history)."""
        return sum(b.nbytes for entry in entries for b in self.saved(entry) if b.state != "released")

    def key(self, node: Any) -> Any:
        """A weakly referenceable object that lives exactly as long as the node (for the watches' weak maps)."""
        return node

    # -- written once for every engine ----------------------------------------------------------------------
    def walk(self, roots: Iterable[Any]) -> list[Any]:
        """Every node under the roots once, depth first, children in edge order."""
        order: list[Any] = []
        seen: set[Any] = set()
        stack = list(reversed(list(roots)))
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            order.append(node)
            stack.extend(child for child, _ in reversed(self.edges(node)) if child is not None)
        return order

    def freed(self, node: Any) -> bool:
        """Whether a backward has already run through the node and freed its buffers."""
        raise NotImplementedError

    def crossing(
        self, roots: Iterable[Any], before_step: int, reachable: Iterable[Any] | None = None, freed: bool = False
    ) -> Crossing | None:
        """The first edge from a node made at or after `before_step` into one made before it.

        `reachable`, every node under the roots, spares the walk when the caller has made it already (the
        engine's dependency count): an old node's inputs are older still, so checking every node finds a
        crossing exactly when the walk from the roots would. `freed`: only into a graph whose buffers an earlier
        backward freed, the crossing that fails (a GAN's generator output, made before the critic's backward
        but not part of it, and a graph a gradient penalty's autograd.grad retained, are used as meant).
        """
        step = self.step
        nodes = self.walk(roots) if reachable is None else [*roots, *reachable]
        # A crossing edge leads into an old node other than a leaf's sink, which is reachable too: where there is
        # none (every backward of a program that detaches its state), one look per node says so, not one per edge.
        if not self.any_made_before(nodes, before_step):
            return None
        for node in nodes:
            made = step(node)
            if made is None or made < before_step:
                continue
            for i, (child, nr) in enumerate(self.edges(node)):
                if child is None or self.is_sink(child):
                    continue
                child_made = step(child)
                if child_made is not None and child_made < before_step and (not freed or self._reaches_freed(child)):
                    return Crossing(self.name(child), self.site(child), self.carried(node, i, child, nr), self.site(node))
        return None

    def any_made_before(self, nodes: Sequence[Any], before_step: int) -> bool:
        """Whether a node other than a leaf's sink was made before `before_step`."""
        step = self.step
        return any((made := step(node)) is not None and made < before_step and not self.is_sink(node) for node in nodes)

    def _reaches_freed(self, node: Any) -> bool:
        """Whether the node or one under it had its buffers freed (a hidden state's own node may save nothing)."""
        seen: set[Any] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            if current in seen or self.is_sink(current):
                continue
            if self.freed(current):
                return True
            seen.add(current)
            stack.extend(child for child, _ in self.edges(current) if child is not None)
        return False

    def describe(self, roots: Sequence[Any]) -> GraphReport:
        order = self.walk(roots)
        position = {node: i for i, node in enumerate(order)}
        report = GraphReport()
        for node in order:
            report.nodes.append(
                NodeInfo(
                    name=self.name(node),
                    site=self.site(node),
                    saved=self.saved(node),
                    children=[position[c] for c, _ in self.edges(node) if c is not None],
                    leaf_shape=self.leaf_shape(node),
                )
            )
        return report


_MADE_AT = operator.attrgetter("_step")


class NativeView(GraphView):
    """glassgrad's own nodes, which carry their site, step and saved tensors themselves."""

    def __init__(self) -> None:
        from ..tensor import Tensor

        self.tensor_type = Tensor

    def site(self, node: Node) -> Site | None:
        return node._site

    def step(self, node: Node) -> int:
        return node._step

    def freed(self, node: Node) -> bool:
        return node._freed_by is not None

    def carried(self, parent: Node, index: int, child: Node, output_nr: int) -> tuple[tuple[int, ...], str] | None:
        shape, dtype = parent._input_meta[2 * index : 2 * index + 2]
        return None if shape is None else (tuple(shape), dtype.name)

    def saved(self, node: Node) -> list[SavedBuffer]:
        return [SavedBuffer.of(s, node) for s in node.saved_tensors_list()]

    def live_bytes(self, entries: Iterable[Node]) -> int:
        return live_saved_bytes(entries)  # every live node at every backward: a loop the core compiles

    def any_made_before(self, nodes: Sequence[Node], before_step: int) -> bool:
        # The oldest step over every node, sinks included, at C speed first: usually none is older at all
        if min(map(_MADE_AT, nodes), default=before_step) >= before_step:
            return False
        return super().any_made_before(nodes, before_step)


NATIVE = NativeView()
