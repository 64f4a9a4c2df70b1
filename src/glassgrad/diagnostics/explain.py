"""The explanations that follow PyTorch's first sentence in graph errors.

Each one names what failed (node, buffer, tensor), where it was made in the
user's code, which call freed or modified it, and the fix for the pattern.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from . import sites
from .sites import Site, format_site, source_line

if TYPE_CHECKING:
    from ..autograd.graph import Node, SavedTensor
    from ..tensor import Tensor

HEADER = "\n\nglassgrad:"


def _at(site: Site | None) -> str:
    code = source_line(site)
    return format_site(site) + (f"\n        {code}" if code else "")


def _buffer(saved: SavedTensor) -> str:
    shape = "x".join(map(str, saved.shape)) or "scalar"
    return f"'{saved.name}' ({shape} {saved.dtype.name}, {saved.nbytes:,} bytes)"


def _shape(meta: Any) -> str:
    if meta is None:
        return ""
    shape, dtype = meta
    return f" ({'x'.join(map(str, shape)) or 'scalar'} {dtype.name})"


def crossing_edge(roots: Iterable[Node], before_step: int, reachable: Iterable[Node] | None = None) -> tuple[Node, int] | None:
    """The first edge (parent, input index) from a node made at or after `before_step` into one made before it.

    The child's output is the tensor that carries history from an earlier iteration into this graph.
    `reachable`, every node under the roots, spares the walk when the caller has made it already (the
    engine's dependency count): an old node's inputs are older still, so checking every node finds a
    crossing exactly when the walk from the roots would.
    """
    for node in _walk(roots) if reachable is None else itertools.chain(roots, reachable):
        if node._step < before_step:
            continue
        for i, (child, _) in enumerate(node.next_functions):
            if child is not None and child._step < before_step and type(child).__name__ != "AccumulateGrad":
                return node, i
    return None


def _walk(roots: Iterable[Node]) -> Iterator[Node]:
    """Every node under the roots, depth first."""
    seen: set[Node] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        yield node
        stack.extend(child for child, _ in node.next_functions if child is not None)


def freed(node: Node, saved: SavedTensor | None) -> str:
    from ..autograd import engine
    from ..autograd.function import BackwardCFunction

    needs = f"its saved {_buffer(saved)}" if saved is not None else "the in-place op it recorded"
    lines = [f"{HEADER} {node.name()} needs {needs},", f"  recorded at {_at(node._site)}"]
    freed_by = node._freed_by
    if freed_by is not None:
        lines.append(f"  It was freed by the backward call at {_at(freed_by.site)}")
    roots = engine.running[-1] if engine.running else []
    crossing = crossing_edge(roots, freed_by.step + 1) if freed_by is not None else None
    if isinstance(node, BackwardCFunction) and not engine.running:
        lines += [
            "Fix: ctx.saved_tensors was read after the graph was freed. Read it only inside backward, or pass",
            "  retain_graph=True to the backward call above if you need it afterwards.",
        ]
    elif crossing is not None:
        parent, index = crossing
        child = parent.next_functions[index][0]
        assert child is not None
        lines += [
            "This backward reaches into a graph built before that call: the tensor"
            f"{_shape(parent._input_meta[index])} made by {child.name()} at",
            f"  {_at(child._site)}",
            f"  is used again at {_at(parent._site)}",
            "Fix: if this is a training loop carrying that tensor from one iteration to the next (a recurrent",
            "  hidden state, a running statistic), detach() it where the iteration starts, e.g. h = h.detach().",
            "  If two losses share that part of the graph on purpose, add them and call backward once.",
        ]
    else:
        lines += [
            "Fix: this graph was already backwarded. To backpropagate several losses through one graph, add them",
            "  and call backward once ((loss1 + loss2).backward()); or pass retain_graph=True to every backward",
            "  but the last one over this graph.",
        ]
    return "\n".join(lines)


def version(node: Node, saved: SavedTensor) -> str:
    counter = saved.version_counter
    lines = [
        f"{HEADER} {node.name()} saved {_buffer(saved)} at version {saved.saved_version},",
        f"  recorded at {_at(node._site)}",
    ]
    if counter.modified_at is not None:
        lines.append(f"  It was then modified in place (now version {counter.value}), last at {_at(sites.resolve(counter.modified_at))}")
    lines += [
        "Fix: an in-place change (x += ..., x.add_(...), x[i] = ..., or optimizer.step()) overwrote a value that",
        "  this backward still needs. Finish every backward over this graph before the in-place change (call",
        "  optimizer.step() after the last backward, or recompute the forward after it), or use the",
        "  out-of-place form (x = x + ...) so the saved value stays intact.",
    ]
    return "\n".join(lines)


def no_grad_fn(tensor: Tensor) -> str:
    from ..autograd import grad_mode

    what = f"a {'x'.join(map(str, tensor.shape)) or 'scalar'} {tensor.dtype.name} tensor with no graph"
    reasons = (
        "grad mode is off right now (inside no_grad() or inference_mode())"
        if not grad_mode.state.grad_enabled
        else "it was computed under no_grad()/inference_mode(), from tensors none of which requires grad, "
        "or it was detach()ed or built with .item()/.numpy()"
    )
    return (
        f"{HEADER} the tensor to differentiate is {what}: {reasons}.\n"
        "Fix: make the parameters requires_grad=True (nn.Parameter does this) and compute the loss from them "
        "with grad mode on."
    )


def non_scalar_root(tensor: Tensor) -> str:
    shape = list(tensor.shape)
    made = f", made at {_at(tensor.grad_fn._site)}" if tensor.grad_fn is not None else ""
    return (
        f"{HEADER} the tensor to differentiate has shape {shape}{made}\n"
        "Fix: reduce it to a scalar first (loss.sum() or loss.mean()), or pass the vector to multiply the "
        "Jacobian by: loss.backward(gradient=torch.ones_like(loss))."
    )


def leaf_inplace(tensor: Tensor, view: bool) -> str:
    what = "a view of a leaf" if view else "a leaf"
    return (
        f"{HEADER} the tensor changed in place is {what} that requires grad "
        f"({'x'.join(map(str, tensor.shape)) or 'scalar'} {tensor.dtype.name}), a parameter or input whose "
        "gradient autograd accumulates.\n"
        "Fix: wrap updates of parameters in `with torch.no_grad():` (as optimizers do), or make a new tensor "
        "out of place (w = w - lr * g)."
    )
