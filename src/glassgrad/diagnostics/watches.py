"""Watches: notice graph-lifetime mistakes while the program runs, before any error fires.

Off by default. When on, every new node is tracked by a weak reference (the only cost per op), and
each backward pass checks three patterns:

- a graph spanning iterations: the backward reaches nodes made before an earlier backward
  (an un-detached hidden state);
- graphs kept alive: nodes from earlier steps still alive and growing step over step (a running
  `total = total + loss`, a list of losses kept for logging);
- `retain_graph=True` on a graph that dies without another backward through it.
"""

from __future__ import annotations

import warnings
import weakref
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from . import steps
from .sites import Site, format_site, source_line

if TYPE_CHECKING:
    from ..autograd.graph import Node


class GraphWarning(UserWarning):
    """A graph-lifetime pattern that wastes memory or will fail later."""


GROWTH_STEPS = 2  # surviving nodes grew over this many consecutive backward passes: warn (by the 3rd iteration)
MIN_PRUNE = 4096  # tracked references before the dead ones are first dropped outside a backward


@dataclass
class _Retained:
    site: Site | None
    saved_bytes: int
    used: bool = False


@dataclass
class WatchState:
    # Plain weak references, pruned at each backward (and when they double): a WeakSet costs every op a
    # Python-level add and every dead node a removal callback.
    nodes: list[weakref.ref[Node]] = field(default_factory=list)
    prune_at: int = MIN_PRUNE
    previous_boundary: int = 0
    surviving: list[int] = field(default_factory=list)  # nodes alive from before the previous backward, per backward
    retained: weakref.WeakKeyDictionary[Node, _Retained] = field(default_factory=weakref.WeakKeyDictionary)
    pending: list[tuple[str, Site | None]] = field(default_factory=list)
    warned: set[tuple[str, Any]] = field(default_factory=set)
    history: list[tuple[int, int, int]] = field(default_factory=list)  # (step, live nodes, saved bytes) before each backward
    messages: list[str] = field(default_factory=list)


state: WatchState | None = None


def _warn(kind: str, message: str, site: Site | None) -> None:
    assert state is not None
    key = (kind, site)
    if key in state.warned:
        return
    state.warned.add(key)
    state.messages.append(message)
    if site is None:
        warnings.warn(message, GraphWarning, stacklevel=4)
    else:
        code, line = site
        warnings.warn_explicit(message, GraphWarning, code.co_filename, line, module=code.co_name)


def _where(site: Site | None) -> str:
    code = source_line(site)
    return format_site(site) + (f"\n        {code}" if code else "")


def track(node: Node) -> None:
    assert state is not None
    nodes = state.nodes
    nodes.append(weakref.ref(node))
    if len(nodes) > state.prune_at:  # many ops and no backward (evaluation with grad on): keep the list bounded
        _live_nodes()


def _live_nodes() -> list[Node]:
    """The tracked nodes still alive; the references to dead ones are dropped."""
    assert state is not None
    alive: list[Node] = []
    refs: list[weakref.ref[Node]] = []
    for ref in state.nodes:
        node = ref()
        if node is not None:
            alive.append(node)
            refs.append(ref)
    state.nodes = refs
    state.prune_at = max(MIN_PRUNE, 2 * len(refs))
    return alive


def before_backward(roots: list[Node], reachable: Iterable[Node], keep_graph: bool, site: Site | None) -> None:
    """Called by the engine with the nodes this backward will visit."""
    from .explain import crossing_edge

    assert state is not None
    _flush_pending()
    reachable = list(reachable)
    live = _live_nodes()
    state.history.append((steps.current, len(live), _live_bytes(live)))
    for node in reachable:
        record = state.retained.get(node)
        if record is not None:
            record.used = True
    crossing = crossing_edge(roots, state.previous_boundary, reachable)
    if crossing is not None:
        parent, index = crossing
        child = parent.next_functions[index][0]
        assert child is not None
        _warn(
            "spanning",
            "this backward reaches into a graph built before the previous backward: the tensor made by "
            f"{child.name()} at\n  {_where(child._site)}\n  is carried into this iteration and used at "
            f"{_where(parent._site)}\nThe graph grows every iteration and the next backward may fail. If the "
            "tensor carries state across iterations (an RNN hidden state), detach() it where the iteration starts.",
            child._site,
        )
    if keep_graph and roots:
        saved = sum(s.nbytes for n in [*roots, *reachable] for s in n.saved_tensors_list() if not s.released)
        record = _Retained(site, saved)
        for root in roots:
            state.retained[root] = record
            weakref.finalize(root, _retained_died, record)


def _retained_died(record: _Retained) -> None:
    if not record.used and state is not None:
        state.pending.append(
            (
                f"retain_graph=True at {_where(record.site)}\n  kept {record.saved_bytes:,} bytes of saved tensors "
                "alive, but no later backward went through that graph before it was freed. Drop retain_graph=True there.",
                record.site,
            )
        )


def _flush_pending() -> None:
    assert state is not None
    pending, state.pending = state.pending, []
    for message, site in pending:
        _warn("retained", message, site)


def after_backward() -> None:
    """Called by the engine once a backward pass is over (the step counter has advanced)."""
    assert state is not None
    live = _live_nodes()
    # A leaf's AccumulateGrad is shared by every graph that uses the leaf, so its age says nothing.
    old = [n for n in live if n._step < state.previous_boundary and type(n).__name__ != "AccumulateGrad"]
    state.previous_boundary = steps.current
    state.surviving.append(len(old))
    recent = state.surviving[-(GROWTH_STEPS + 1) :]
    if len(recent) > GROWTH_STEPS and all(b > a for a, b in pairwise(recent)):
        for site, count in _holders(live, old):
            _warn(
                "alive",
                f"{len(old):,} graph nodes from earlier iterations are still alive and their number grows every "
                f"step. {count} of the graphs holding them end in a tensor made at\n  {_where(site)}\nSomething "
                "keeps that tensor across iterations (a running total like `total = total + loss`, a list of "
                "losses). Keep loss.item() or loss.detach() instead.",
                site,
            )


def _live_bytes(live: list[Node]) -> int:
    from ..autograd.graph import SavedTensor  # the graph module imports this one

    total = 0
    for node in live:  # every live node at every backward: plain loops, no list per node
        for saved in node._saved.values():
            if type(saved) is SavedTensor and not saved.released:
                total += saved.nbytes
    return total


def _holders(live: list[Node], old: list[Node]) -> list[tuple[Site | None, int]]:
    """Sites of the live graph roots from which an old node can be reached, most frequent first."""
    children = {id(c) for n in live for c, _ in n.next_functions if c is not None}
    old_ids = {id(n) for n in old}
    holders: Counter[Site | None] = Counter()
    for root in (n for n in live if id(n) not in children):
        if _reaches(root, old_ids):
            holders[root._site] += 1
    return holders.most_common(1)


def _reaches(root: Node, targets: set[int]) -> bool:
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in targets:
            return True
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(c for c, _ in node.next_functions if c is not None)
    return False


def enable() -> None:
    """Turn the watches on for the rest of the program (or until disable())."""
    global state
    if state is None:
        state = WatchState(previous_boundary=steps.current)


def disable() -> list[str]:
    """Turn the watches off; returns every warning they gave."""
    global state
    if state is None:
        return []
    _flush_pending()
    messages, state = state.messages, None
    return messages


@contextmanager
def watch() -> Iterator[WatchState]:
    """`with glassgrad.diagnostics.watch():` turns the watches on inside the block."""
    enable()
    assert state is not None
    current = state
    try:
        yield current
    finally:
        disable()
