"""Looking at graphs: what a tensor's graph holds, and every graph still alive in the process.

Nothing here costs anything while a program runs: `inspect` walks one graph on
request, and `live_graphs` finds nodes through the garbage collector's list of
objects, so no registry has to be kept up to date on every op.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._sites import Site, format_site

if TYPE_CHECKING:
    from ..autograd.graph import Node, SavedTensor
    from ..tensor import Tensor


@dataclass(frozen=True)
class SavedBuffer:
    """One tensor a node keeps for its backward formula."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    nbytes: int
    state: str  # "alive", "retained" (kept after a retain_graph backward) or "released"

    @classmethod
    def of(cls, saved: SavedTensor, node: Node) -> SavedBuffer:
        if saved.released:
            state = "released"
        elif node._retained_by is not None:
            state = "retained"
        else:
            state = "alive"
        return cls(saved.name, tuple(saved.shape), saved.dtype.name, saved.nbytes, state)


@dataclass
class NodeInfo:
    name: str
    site: Site | None
    saved: list[SavedBuffer]
    children: list[int]  # indices into GraphReport.nodes
    leaf_shape: tuple[int, ...] | None = None  # set for AccumulateGrad: the leaf it feeds

    @property
    def saved_bytes(self) -> int:
        return sum(b.nbytes for b in self.saved if b.state != "released")


@dataclass
class GraphReport:
    nodes: list[NodeInfo] = field(default_factory=list)

    @property
    def saved_bytes(self) -> int:
        return sum(n.saved_bytes for n in self.nodes)

    @property
    def leaves(self) -> list[NodeInfo]:
        return [n for n in self.nodes if n.leaf_shape is not None]

    def __str__(self) -> str:
        lines = [f"graph: {len(self.nodes)} nodes, {len(self.leaves)} leaves, {self.saved_bytes} saved bytes alive"]
        for i, node in enumerate(self.nodes):
            buffers = ", ".join(f"{b.name} {'x'.join(map(str, b.shape)) or 'scalar'} {b.dtype} {b.nbytes}B {b.state}" for b in node.saved)
            edges = f" -> {node.children}" if node.children else ""
            lines.append(f"  [{i}] {node.name}{edges}  at {format_site(node.site)}" + (f"\n      saved: {buffers}" if buffers else ""))
        return "\n".join(lines)


def describe(roots: list[Node]) -> GraphReport:
    """The graph under glassgrad nodes `roots`."""
    from .views import NATIVE

    return NATIVE.describe(roots)


def inspect(tensor: Tensor) -> GraphReport:
    """The graph behind `tensor`: its nodes, edges, saved buffers (bytes and state) and leaves."""
    return describe([tensor.grad_fn] if tensor.grad_fn is not None else [])


def _all_nodes() -> list[Node]:
    from ..autograd.graph import NodeBase

    # hasattr: a node whose constructor raised is garbage that has not been collected yet
    return [obj for obj in gc.get_objects() if issubclass(type(obj), NodeBase) and hasattr(obj, "_saved")]


@dataclass(frozen=True)
class SiteBytes:
    site: Site | None
    nodes: int
    saved_bytes: int

    def __str__(self) -> str:
        return f"{self.saved_bytes:>12,} bytes in {self.nodes:>6} nodes  {format_site(self.site)}"


def live_graphs() -> list[SiteBytes]:
    """Every node alive in the process, grouped by the line that created it, largest first."""
    nodes: dict[Any, int] = defaultdict(int)
    saved: dict[Any, int] = defaultdict(int)
    for node in _all_nodes():
        nodes[node._site] += 1
        saved[node._site] += sum(s.nbytes for s in node.saved_tensors_list() if not s.released)
    rows = [SiteBytes(site, nodes[site], saved[site]) for site in nodes]
    return sorted(rows, key=lambda r: (r.saved_bytes, r.nodes), reverse=True)


def live_graph_bytes() -> int:
    """Bytes held by saved tensors of every graph still alive."""
    return sum(row.saved_bytes for row in live_graphs())
