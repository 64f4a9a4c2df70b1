"""Watches: notice graph-lifetime mistakes while the program runs, before any error fires.

Off by default. When on, every new node is tracked by a weak reference (the only cost per op), and
each backward pass checks three patterns:

- a graph spanning iterations: the backward reaches nodes made before an earlier backward
  (an un-detached hidden state);
- graphs kept alive: nodes from earlier steps still alive and growing step over step (a running
  `total = total + loss`, a list of losses kept for logging), with what holds them;
- `retain_graph=True` on a graph that dies before any later backward went through any part of it;
- `backward(create_graph=True)`, which stores gradients carrying their own graph in the leaves' `.grad`.

And once, when the program ends (ended(), the doctor's seam): graphs no backward went through, built over and
over (evaluation with grad on) and kept by the program (a list of validation losses, a running metric).

The rules are written once, over a GraphView: glassgrad's engine feeds them its own nodes, the torch
glass (torch_glass.py) feeds them the records it keeps for real PyTorch's nodes.
"""

from __future__ import annotations

import gc
import warnings
import weakref
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from .._sites import Position, Site, resolve, where
from ..autograd import seams, steps, transform_calls
from . import explain
from .holders import Holder, holders_of, kept_by_frames, passing_lines
from .views import NATIVE, Crossing, GraphView


class GraphWarning(UserWarning):
    """A graph-lifetime pattern that wastes memory or will fail later."""


# Surviving nodes grew over this many consecutive runs of one backward statement: warn (by the 3rd iteration). Runs
# of one statement are iterations of the loop around it; two statements (MAML's inner autograd.grad and its
# meta-loss backward) each see the other's graph at its own phase, which is no growth.
GROWTH_STEPS = 2
# The holder search walks the graphs of what the user's frames hold (milliseconds), and where those hold nothing that
# grows, the whole heap (0.2 s and more in a process that imported torch). Once it has run for a backward statement,
# it runs again for that statement only when its surviving nodes have grown this many times over since, or the larger
# factor once it found what holds them: a leaking loop pays for a logarithmic number of searches, not one per step.
# Another statement (the next loop, a notebook's next cell) starts with a search of its own: what an earlier loop left
# alive may outnumber the new leak for many steps.
SEARCH_GROWTH, SEARCH_GROWTH_FOUND = 2, 16
# Nodes made at one line in the graphs a holder keeps at the end, with no backward through them, that make them
# a loop's iterations piled up (an unrolled recurrence in one output is no pile: its holder adds nothing).
PILED = 3
MIN_PRUNE = 4096  # tracked references before the dead ones are first dropped outside a backward

# What the holder search found: (the site of the roots, how many roots, their holder, the newest root's node)
Found = list[tuple[Site | None, int, Holder | None, Any]]


@dataclass
class _Retained:
    site: Site | None
    saved_bytes: int
    used: bool = False
    alive: int = 0  # nodes of the retained graph still alive: it is gone when none is
    # The backward made a graph of its gradients (create_graph=True), for a later backward to differentiate through
    higher: bool = False


@dataclass
class WatchState:
    """The watches of one engine: what they track, and the rules they apply at every backward."""

    view: GraphView = NATIVE
    # Plain weak references, pruned at each backward (and when they double): a WeakSet costs every op a
    # Python-level add and every dead node a removal callback. The entries are the view's keys (nodes, or records).
    nodes: list[weakref.ref[Any]] = field(default_factory=list)
    prune_at: int = MIN_PRUNE
    previous_boundary: int = 0
    # Where the current iteration began: the last optimizer step, once the program has made one. Until then each
    # backward is taken as an iteration's end (a loop that updates its parameters by hand).
    iteration_boundary: int | None = None
    # Nodes alive from earlier iterations, with the step the iteration began at, at every backward that ended one, by
    # the backward's call position (the code object's id: hashing a code object hashes all of it, 30 us for a large
    # module's)
    surviving: dict[tuple[int, int] | None, list[tuple[int, int]]] = field(default_factory=dict)
    position: Position | None = None  # the backward under way's call
    retained: weakref.WeakKeyDictionary[Any, _Retained] = field(default_factory=weakref.WeakKeyDictionary)
    # Statements one of whose retained graphs a later backward went through: their retain_graph=True is needed, even
    # where the last graph they keep is not used again (overlapping truncated-BPTT windows)
    retain_needed: set[Site | None] = field(default_factory=set)
    pending: list[tuple[str, Site | None]] = field(default_factory=list)
    warned: set[tuple[str, Any]] = field(default_factory=set)
    history: list[tuple[int, int, int]] = field(default_factory=list)  # (step, live nodes, saved bytes) before each backward
    messages: list[str] = field(default_factory=list)
    transforms: transform_calls.TransformCalls = field(default_factory=transform_calls.TransformCalls)
    counted_transform: int = 0  # the outermost transform call whose first backward was counted as a step
    counting: bool = True  # whether the backward under way is counted as a step (after_backward reads it)
    # Surviving nodes that make the holders worth searching for again, by backward statement (as `surviving`)
    next_search: dict[tuple[int, int] | None, int] = field(default_factory=dict)
    # A backward that keeps its graph (an inner autograd.grad with create_graph=True, the first of two losses) ends
    # an iteration unless the next backward, another statement, goes through that graph: until then its count of
    # survivors waits here with the record that says whether a later backward used the graph. (The same statement
    # going through it is the next iteration reaching into this one: a retained recurrent state.)
    kept: _Retained | None = None
    tentative: tuple[_Retained, tuple[int, int, int, Position | None]] | None = None
    # A create_graph=True backward makes a graph of gradients that in PyTorch mostly leads back into the graph it
    # differentiated (its nodes take that graph's tensors as inputs, a leaky_relu's mask included, where glassgrad
    # takes the mask as a constant): a backward through the one may go through the other, so retain_graph=True on the
    # gradients' graph keeps that one too. The nodes such a backward made map to the differentiated graph's nodes
    # here; `differentiating` holds them, with the last entry tracked before it, while it runs.
    differentiated: weakref.WeakKeyDictionary[Any, tuple[weakref.ref[Any], ...]] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    differentiating: tuple[weakref.ref[Any] | None, tuple[weakref.ref[Any], ...]] | None = None
    # A statement whose create_graph=True backward goes through the graph its previous run made (MAML's inner steps,
    # each adapted from the last) builds one graph for a later backward: its counts wait here until another
    # statement's backward (the meta-loss) goes through the newest of them, which makes them one iteration, or does
    # not, or an optimizer step comes first, which makes each run an iteration (a recurrence that is never consumed).
    chain: list[tuple[int, int, int, Position | None]] = field(default_factory=list)
    # Once graphs were found kept alive, walking every tracked node at every backward would cost a leaking loop more
    # at every step. Then the entries walked at one backward are "settled": later backwards walk only the entries
    # after them, and all are walked again when the list has doubled (prune), the settled ones' counts kept here.
    settling: bool = False
    settled: int = 0  # entries at the start of `nodes` that are settled
    settled_live: int = 0
    settled_bytes: int = 0
    settled_steps: list[int] = field(default_factory=list)  # the steps of the settled live entries but sinks, ascending

    def track(self, entry: Any) -> None:
        """Track one entry (the torch glass's records; glassgrad's own nodes are appended by the core)."""
        nodes = self.nodes
        nodes.append(weakref.ref(entry))
        if len(nodes) > self.prune_at:  # many ops and no backward (evaluation with grad on): keep the list bounded
            self.live()

    def prune(self) -> None:
        self.live()

    def live(self) -> list[Any]:
        """The tracked entries still alive; the references to dead ones are dropped."""
        self.settled, self.settled_live, self.settled_bytes, self.settled_steps = 0, 0, 0, []
        alive = self._young()
        self.prune_at = max(MIN_PRUNE, 2 * len(self.nodes))
        if seams.tracked is self.nodes:
            seams.tracked_limit = self.prune_at
        return alive  # not settled here: a prune runs while a node is being made, which has no buffers to count yet

    def _young(self) -> list[Any]:
        """The live entries after the settled ones; the references to dead ones among them are dropped."""
        alive: list[Any] = []
        refs: list[weakref.ref[Any]] = []
        start = self.settled
        for ref in self.nodes[start:]:
            entry = ref()
            if entry is not None:
                alive.append(entry)
                refs.append(ref)
        self.nodes[start:] = refs  # in place: the core appends to this very list (seams.tracked)
        return alive

    def _settle(self, young: list[Any]) -> None:
        """Count the live entries after the settled ones as settled: later backwards do not walk them."""
        view = self.view
        self.settled = len(self.nodes)
        self.settled_live += len(young)
        self.settled_bytes += view.live_bytes(young)
        self.settled_steps += [n._step for n in young if not view.is_sink(n)]

    def _walk(self) -> list[Any]:
        """The live entries a backward looks at: all of them, or once settling, those not settled."""
        return self._young() if self.settling else self.live()

    def _warn(self, kind: str, message: str, site: Site | None) -> None:
        key = (kind, site)
        if key in self.warned:
            return
        self.warned.add(key)
        self.messages.append(message)
        if site is None:
            warnings.warn(message, GraphWarning, stacklevel=4)
        else:
            code, line = site
            warnings.warn_explicit(message, GraphWarning, code.co_filename, line, module=code.co_name)

    def before_backward(
        self,
        roots: list[Any],
        reachable: Iterable[Any],
        keep_graph: bool,
        position: Position | None,
        create_graph: bool = False,
        accumulate: bool = True,
    ) -> None:
        """Called by the engine with the nodes this backward will visit, and where the backward was called (resolved
        to a line only if retain_graph needs it: finding the line walks the code's line table). `accumulate`: the
        gradients go into the leaves' .grad (backward), not back to the caller (autograd.grad)."""
        self.flush()
        if create_graph and accumulate:
            self._warn_create_graph(resolve(position))
        view = self.view
        reachable = list(reachable)
        if create_graph:
            under = (view.key(n) for n in view.walk(roots) if not view.is_sink(n))
            self.differentiating = (self.nodes[-1] if self.nodes else None, tuple(weakref.ref(k) for k in under if k is not None))
        # One outermost transform call is one step, however many backwards it runs (see autograd/transform_calls.py).
        calls = self.transforms
        inside_transform = calls.depth > 0
        self.counting = not inside_transform or calls.serial != self.counted_transform
        self.kept = None
        self.position = position
        if self.counting:
            if inside_transform:
                self.counted_transform = calls.serial
            live = self._walk()
            self.history.append((steps.current, self.settled_live + len(live), self.settled_bytes + view.live_bytes(live)))
        retained = self.retained
        for node in reachable if retained else ():  # a weak map's get costs a weak reference: none while it is empty
            key = view.key(node)
            record = retained.get(key) if key is not None else None
            if record is not None:
                record.used = True
                self.retain_needed.add(record.site)
        tentative, self.tentative = self.tentative, None
        if tentative is not None:
            record, measured = tentative
            same = record.used and record.site == resolve(position)  # the next run of the statement went through it
            if same and record.higher:
                self.chain.append(measured)
            else:
                chain, self.chain = self.chain, []
                if not record.used or same:  # the backward that kept it did end its iteration, and so did its chain's
                    for earlier in (*chain, measured):
                        self._count(*earlier)
        crossing = view.crossing(roots, self.previous_boundary, reachable, freed=True)
        if crossing is not None:
            fix = explain.pattern_fix(crossing.child_site, resolve(position)) or [
                "If the tensor carries state across iterations (an RNN hidden state), detach() it where the iteration starts."
            ]
            self._warn(
                "spanning",
                "this backward reaches into a graph built before the previous backward: the tensor made by "
                f"{crossing.child_name} at\n  {where(crossing.child_site)}\n  is used again at "
                f"{where(crossing.parent_site)}\n" + "\n".join(fix),
                crossing.child_site,
            )
        if keep_graph and roots and not inside_transform:  # a transform's retain is its own, freed when it returns
            graph = {id(n): n for n in [*roots, *reachable]}.values()
            saved = sum(b.nbytes for n in graph for b in view.saved(n) if b.state != "released")
            record = self.kept = _Retained(resolve(position), saved, higher=create_graph)
            # Every node of the graph carries the record: a later backward through any part of it (the shared
            # trunk of two losses, the forward graph under a gradient penalty) is a use of what retain_graph kept.
            # The graph is gone when its last node is: its root may go first (autograd.grad(score.sum(), x)).
            # A leaf's sink belongs to every graph using it.
            keys = {id(k): k for k in (view.key(n) for n in graph if not view.is_sink(n)) if k is not None}
            keys.update((id(k), k) for k in self._differentiated(keys.values()))
            for key in keys.values():
                self.retained[key] = record
                record.alive += 1
                weakref.finalize(key, self._retained_node_died, record)

    def _differentiated(self, keys: Iterable[Any]) -> list[Any]:
        """The live nodes of the graphs differentiated by the create_graph=True backwards that made any of `keys`."""
        graphs = {id(refs): refs for refs in map(self.differentiated.get, keys if self.differentiated else ()) if refs}
        return [key for refs in graphs.values() for ref in refs if (key := ref()) is not None]

    def _map_made(self, marker: weakref.ref[Any] | None, differentiated: tuple[weakref.ref[Any], ...]) -> None:
        """Map the entries tracked after `marker` (made by the create_graph=True backward just over) to the nodes of
        the graph it differentiated."""
        made = []
        for ref in reversed(self.nodes):
            if ref is marker:
                break
            made.append(ref)
        else:
            if marker is not None:  # the marker's node died and was pruned: what came after is unknown
                return
        for ref in made:
            entry = ref()
            if entry is not None:
                self.differentiated[entry] = differentiated

    def _warn_create_graph(self, site: Site | None) -> None:
        """PyTorch's own note on backward(create_graph=True) (a leaf and its .grad's graph make a reference cycle its
        collector cannot see), given once per statement and with the line, which PyTorch's warning lacks."""
        self._warn(
            "create_graph",
            f"backward(create_graph=True) at {where(site)}\n  stores gradients that carry their own graph in the .grad of "
            "the leaves it reaches: a later backward adds its gradient to that graph instead of replacing it, and in "
            "PyTorch each leaf and its .grad's graph hold each other in a reference cycle, so every step's graph stays "
            "alive.\nIf you differentiate the gradient again (a gradient penalty), take it with "
            "torch.autograd.grad(..., create_graph=True), which returns it without storing it on the leaves. If you need "
            "it in .grad, set the grads to None after using them (optimizer.zero_grad(set_to_none=True), `p.grad = None`).",
            site,
        )

    def ended(self, namespace: dict[str, Any]) -> None:
        """The program ended with `namespace` its globals: warn about graphs no backward went through that pile up in
        something it keeps (evaluation run with grad on). Only the globals are asked: the frames are gone."""
        view = self.view
        for name, value in namespace.items():
            held = _held_tensors(view, value)
            if not held or name.startswith("__"):
                continue
            # a backward goes only through nodes that existed before it: those made after the last one it never saw
            roots = [node for node in (view.grad_fn(t) for t in held) if (view.step(node) or 0) >= steps.current]
            pile = _pile(view, roots, steps.current)
            if pile is None:
                continue
            site, made = pile
            filename = namespace.get("__file__")
            kind = "variable" if held[0] is value else type(value).__name__
            holder = Holder(f"{kind} `{name}` (global)", name, filename if isinstance(filename, str) else None)
            adding = holder.adding_line()
            if kind == "variable" and adding is None:  # a variable is a pile only where a statement adds to it
                continue
            self._warn("unused", _unused_message(made, site, holder, adding), _fix_site(adding, site))

    def _retained_node_died(self, record: _Retained) -> None:
        record.alive -= 1
        if record.alive == 0 and not record.used and record.site not in self.retain_needed:
            self.pending.append(
                (
                    f"retain_graph=True at {where(record.site)}\n  kept {record.saved_bytes:,} bytes of saved tensors "
                    "alive, but no later backward went through that graph before it was freed. Drop retain_graph=True there.",
                    record.site,
                )
            )

    def flush(self) -> None:
        """Give the warnings that finalizers queued (they must not warn from inside the garbage collector)."""
        pending, self.pending = self.pending, []
        for message, site in pending:
            self._warn("retained", message, site)

    def optimizer_stepped(self) -> None:
        """Called after every optimizer step: nodes made before it belong to earlier iterations."""
        chain, self.chain = self.chain, []
        for measured in chain:  # the chain's graph outlived the iteration without another statement going through it
            self._count(*measured)
        if self.iteration_boundary is None:
            self.surviving.clear()  # counted against another boundary until now: growth starts anew
        self.iteration_boundary = steps.current

    def after_backward(self) -> None:
        """Called by the engine once a backward pass is over (the step counter has advanced).

        "Earlier iterations" end at the last optimizer step: a gradient penalty's autograd.grad and the loss's
        backward are two backwards of one iteration, and what the first one saw is not yet old at the second.
        """
        differentiating, self.differentiating = self.differentiating, None
        if differentiating is not None:
            self._map_made(*differentiating)
        if not self.counting:
            return
        view = self.view
        live = self._walk()
        boundary = self.previous_boundary if self.iteration_boundary is None else self.iteration_boundary
        # A leaf's AccumulateGrad is shared by every graph that uses the leaf, so its age says nothing.
        old = sum(1 for n in live if n._step < boundary and not view.is_sink(n)) + bisect_left(self.settled_steps, boundary)
        if self.settling:
            self._settle(live)
        measured = (old, boundary, steps.current, self.position)
        if self.kept is not None:
            self.tentative = (self.kept, measured)
        else:
            self._count(*measured)

    def _count(self, old: int, boundary: int, step: int, position: Position | None) -> None:
        """The backward at `position` ended an iteration at `step` with `old` nodes of earlier ones alive: warn if
        they grow step over step."""
        view = self.view
        self.previous_boundary = step
        statement = None if position is None else (id(position[0]), position[1])
        surviving = self.surviving.setdefault(statement, [])
        surviving.append((old, boundary))
        recent = [count for count, _ in surviving[-(GROWTH_STEPS + 1) :]]
        if len(recent) > GROWTH_STEPS and all(b > a for a, b in pairwise(recent)) and old >= self.next_search.get(statement, 0):
            found = _holders(view, boundary, surviving[-2][1])  # since the previous iteration began
            self.next_search[statement] = old * (SEARCH_GROWTH_FOUND if found else SEARCH_GROWTH)
            for site, count, holder, node in found:
                # A graph that reaches into the previous iteration's through a state the loop carries (a recurrent
                # state under retain_graph=True) grows by that state, whatever holds its newest end.
                crossing = view.crossing([node], boundary)
                fix = _carried_fix(crossing, resolve(position)) if crossing is not None else None
                if crossing is not None and fix is not None:
                    self._warn("alive", _carried_message(old, crossing, fix), crossing.child_site)
                else:
                    self._warn("alive", _alive_message(old, site, count, holder), _adding_or(holder, site))
            if not self.settling:
                self.settling = True
                self._settle(self.live())


def _carried_fix(crossing: Crossing, backward_at: Site | None) -> list[str] | None:
    variable = explain.variable_at(crossing.child_site, backward_at)
    return explain.variable_fix(crossing.child_site, variable) if variable is not None and variable.kind == "carried" else None


def _carried_message(old: int, crossing: Crossing, fix: list[str]) -> str:
    return "\n".join([
        f"{old:,} graph nodes from earlier iterations are still alive and their number grows every step: each iteration's",
        f"  graph reaches into the previous one through the tensor made by {crossing.child_name} at",
        f"  {where(crossing.child_site)}",
        f"  and used at {where(crossing.parent_site)}",
        *fix,
    ])


def _adding_or(holder: Holder | None, site: Site | None) -> Site | None:
    return _fix_site(holder.adding_line() if holder is not None else None, site)


def _fix_site(adding: Site | None, site: Site | None) -> Site | None:
    """The line to change: the call passing the tensor to the statement adding it, that statement, else `site`."""
    if adding is None:
        return site
    passing = passing_lines(adding)
    return passing[-1] if passing else adding


def _added_at(adding: Site) -> str:
    passing = passing_lines(adding)
    added = f"added to at\n  {where(adding)}\n"
    if passing:
        added += f"  with the value passed by the call at\n  {where(passing[0])}\n"
    return added + "".join(f"  which was given it by the call at\n  {where(site)}\n" for site in passing[1:])


def _alive_message(old: int, site: Site | None, count: int, holder: Holder | None) -> str:
    message = (
        f"{old:,} graph nodes from earlier iterations are still alive and their number grows every step. {count} of "
        f"the graphs holding them end in a tensor made at\n  {where(site)}\n"
    )
    if holder is None:
        return message + (
            "Something keeps that tensor across iterations (a running total like `total = total + loss`, a list of "
            "losses). Keep loss.item() or loss.detach() instead."
        )
    adding = holder.adding_line()
    message += f"It is held by {holder.description}"
    message += f", {_added_at(adding)}" if adding is not None else ".\n"
    return message + "Keep loss.item() or loss.detach() there instead, so each step's graph can be freed."


def _held_tensors(view: GraphView, value: Any) -> list[Any]:
    """The tensors with a graph that `value` is, or holds directly (a list, tuple or dict of them)."""
    if issubclass(type(value), view.tensor_type):
        return [value] if view.grad_fn(value) is not None else []
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    return [v for v in items if issubclass(type(v), view.tensor_type) and view.grad_fn(v) is not None]


def _pile(view: GraphView, roots: list[Any], fresh: int) -> tuple[Site | None, int] | None:
    """(the line, how many times) where the graphs at `roots` were made over and over, one per iteration: PILED
    or more roots made at one line (losses kept in a list), or a root whose graph begins with a chain of PILED
    or more nodes of one kind made at its line since step `fresh`, each the input of the next (a running
    `total += loss`; one that began before the last backward is the growth watch's). Nodes of one call (a model's
    layers, all made at the line that calls it) do not chain that way."""
    by_site = Counter(view.site(root) for root in roots)
    if by_site:
        site, made = by_site.most_common(1)[0]
        if made >= PILED:
            return site, made
    for root in roots:
        site, length, node = view.site(root), 1, root
        while length < PILED:
            node = next(
                (
                    c for c, _ in view.edges(node)
                    if c is not None and type(c) is type(root) and view.site(c) == site and (view.step(c) or 0) >= fresh
                ),
                None,
            )
            if node is None:
                break
            length += 1
        if length >= PILED:
            return site, length
    return None


def _unused_message(made: int, site: Site | None, holder: Holder, adding: Site | None) -> str:
    message = (
        f"the program ended keeping graphs no backward went through: {holder.description} holds the graphs of "
        f"{made} or more iterations, made at\n  {where(site)}\n"
    )
    if adding is not None:
        message += f"  {_added_at(adding)}"
    return message + (
        "Each keeps its whole graph and saved tensors alive. If this is evaluation, run it under `with torch.no_grad():`; "
        "if you keep the values for logging, keep loss.item() (or loss.detach()) instead."
    )


def _holders(view: GraphView, boundary: int, since: int) -> Found:
    """The live tensors at the roots of graphs that reach nodes older than `boundary`, by site, with their holder.

    Looked for first among what the user's frames hold, which costs what they hold; that answer stands when one of
    its roots was made at or after step `since`, the previous iteration's start (what grows gets a new root every
    iteration: an older one is a graph left from long ago). Otherwise among every tensor alive, the garbage
    collector's list, at the cost of scanning the heap once, and once more per holder asked.
    """

    def wanted(obj: Any) -> bool:
        # type(), not isinstance: isinstance reads __class__, which some proxies in the heap answer with a warning
        return issubclass(type(obj), view.tensor_type) and view.grad_fn(obj) is not None

    found = _held_in_frames(view, wanted, boundary, since)
    return found if found is not None else _held_in_heap(view, wanted, boundary)


def _held_in_frames(view: GraphView, wanted: Callable[[Any], bool], boundary: int, since: int) -> Found | None:
    kept = kept_by_frames(wanted)
    # Every site with a new root: two accumulators in one loop (`total_loss += loss`, `total_rmse += rmse`) both grow
    by_site = _roots_by_site(view, [tensor for tensor, _ in kept.values()], boundary)
    growing = [(site, held) for step, site, held in by_site if step >= since]
    if not growing:
        return None
    found: Found = []
    for site, held in growing:
        # What holds the most of them: the list they are appended to, not the loop's variable that holds the newest too
        holders = Counter(holder for tensor in held for holder in kept[id(tensor)][1])
        found.append((site, len(held), holders.most_common(1)[0][0], view.grad_fn(held[-1])))
    return found


def _held_in_heap(view: GraphView, wanted: Callable[[Any], bool], boundary: int) -> Found:
    tensors = [t for t in gc.get_objects() if wanted(t)]
    by_site = _roots_by_site(view, tensors, boundary)
    if not by_site:
        return []
    _, site, held = by_site[0]
    found = Counter(h for h in holders_of(held[:8], {id(tensors), id(held)}) if h is not None)
    return [(site, len(held), found.most_common(1)[0][0] if found else None, view.grad_fn(held[-1]))]


def _roots_by_site(view: GraphView, tensors: list[Any], boundary: int) -> list[tuple[int, Site | None, list[Any]]]:
    """(the newest root's step, the site, the tensors) of the roots made at each site, among the tensors whose graphs
    reach nodes older than `boundary`: the site with the newest root first (the most roots, between sites equally
    new)."""
    reaches: dict[Any, bool] = {}
    below: set[Any] = set()  # nodes under some other root of an old graph
    candidates = []
    for tensor in tensors:
        node = view.grad_fn(tensor)
        if _reaches_old(view, node, boundary, reaches, below):
            candidates.append((tensor, node))
    by_site: dict[Site | None, list[Any]] = {}
    newest: Counter[Site | None] = Counter()
    for tensor, node in candidates:
        if node in below:
            continue
        site = view.site(node)
        by_site.setdefault(site, []).append(tensor)
        newest[site] = max(newest[site], view.step(node) or 0)
    # What grows gets a new root every step (a running total, an appended loss); stale graphs left from long ago
    # may be more numerous but are not what the warning is about.
    ordered = sorted(by_site.items(), key=lambda item: (newest[item[0]], len(item[1])), reverse=True)
    return [(newest[site], site, held) for site, held in ordered]


def _reaches_old(view: GraphView, start: Any, boundary: int, memo: dict[Any, bool], below: set[Any]) -> bool:
    """Whether some node under `start` was made before `boundary`; every node under it is added to `below`."""
    stack: list[tuple[Any, bool]] = [(start, False)]
    while stack:
        node, children_done = stack.pop()
        if node in memo:
            continue
        children = [c for c, _ in view.edges(node) if c is not None and not view.is_sink(c)]
        if children_done:
            made = view.step(node)
            memo[node] = (made is not None and made < boundary) or any(memo.get(c, False) for c in children)
            continue
        stack.append((node, True))
        for child in children:
            below.add(child)
            if child not in memo:
                stack.append((child, False))
    return memo[start]


def enable() -> None:
    """Turn the watches on for the rest of the program (or until disable()): the engine's seam holds them."""
    if seams.watcher is None:
        state = WatchState(previous_boundary=steps.current, transforms=transform_calls.CALLS)
        seams.watcher = state
        seams.tracked_limit = state.prune_at
        seams.tracked = state.nodes


def disable() -> list[str]:
    """Turn the watches off; returns every warning they gave."""
    state = seams.watcher
    if state is None:
        return []
    assert isinstance(state, WatchState)
    state.flush()
    seams.tracked = None  # before the watcher: the core reads it first
    seams.watcher = None
    return state.messages


@contextmanager
def watch() -> Iterator[WatchState]:
    """`with glassgrad.diagnostics.watch():` turns the watches on inside the block."""
    enable()
    current = seams.watcher
    assert isinstance(current, WatchState)
    try:
        yield current
    finally:
        disable()
