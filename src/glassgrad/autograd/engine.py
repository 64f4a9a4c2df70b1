"""The backward engine: dependency counting over the reachable graph, one run per node.

Shared work lives here and nowhere else: reducing a broadcast gradient back to
its input's shape and dtype, summing the gradients that reach one input,
running tensor, node and retain_grad hooks, capturing what autograd.grad asked
for, and releasing each node's saved tensors as soon as it has run.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import operator
import threading
from collections.abc import Callable, Iterable, Sequence
from math import prod
from sys import getrefcount  # a global of this module: compiled, sys.getrefcount is a lookup per call
from typing import Any

import numpy as np

from .. import _quiet as quiet
from .. import _sites as sites
from .._dtype import _BY_NUMPY, is_floating
from ..tensor import Size, Tensor
from . import anomaly, forward_ad, grad_mode, seams, steps
from .graph import LOCAL_REFCOUNT, AccumulateGrad, FreedBy, GradientEdge, Node, _hook_stack, edge_to

Edge = tuple[Node | None, int]
_sequence_nr = operator.attrgetter("_seq_nr")
_anomaly_vars = vars(anomaly)  # read per node: a dict lookup where `anomaly.enabled` is a getattr (as in graph.py)
# PyTorch's own logger name, so that a program (or TORCH_LOGS-style setup) that turns on torch.autograd's debug log
# sees each node's run here too
_log = logging.getLogger("torch.autograd.graph")


class GraphTask:
    """One backward call under way: its roots (so that an error raised deep inside can say which graph was being
    differentiated), which nodes it will run, whether it keeps the graph, the node it is running now, and the
    callbacks queued to run when it ends."""

    __slots__ = ("accumulate", "callbacks", "current", "deps", "id", "keep_graph", "needed", "roots")
    _ids = itertools.count()

    def __init__(self, roots: list[Node], keep_graph: bool, accumulate: bool) -> None:
        self.roots = roots
        self.id = next(GraphTask._ids)
        self.keep_graph = keep_graph
        self.accumulate = accumulate  # backward(), not autograd.grad()
        self.deps: dict[Node, int] = {}
        self.needed: set[Node] | None = None
        self.current: Node | None = None
        self.callbacks: list[Any] = []

    def will_execute(self, node: Node) -> bool:
        """Whether this backward runs `node` (PyTorch's _will_engine_execute_node)."""
        if self.needed is not None:
            return node in self.needed
        return node in self.deps or node in self.roots


    def execution_order(self) -> list[Node]:
        """The nodes this backward runs (or captures), in the order the engine takes them: ready nodes latest first."""
        deps = _dependencies(self.roots)
        ready = [(-node._seq_nr, node) for node in set(self.roots) if node not in deps]
        heapq.heapify(ready)
        order = []
        while ready:
            node = heapq.heappop(ready)[1]
            if self.needed is None or node in self.needed:
                order.append(node)
            for child, _ in node.next_functions:
                if child is not None:
                    deps[child] -= 1
                    if deps[child] == 0:
                        heapq.heappush(ready, (-child._seq_nr, child))
        return order


# Every backward pass under way in this process, innermost last.
running: list[GraphTask] = []


def _as_tuple(x: Any) -> tuple[Any, ...]:
    if x is None:
        return ()
    if isinstance(x, (Tensor, GradientEdge)):
        return (x,)
    return tuple(x)


def _output_meta(out: Any, i: int) -> tuple[tuple[int, ...], np.dtype] | None:
    """The shape and dtype a root's gradient must have (None: an edge made by hand, whose output is not known)."""
    if isinstance(out, GradientEdge):
        return getattr(out, "_output_meta", None)
    if not isinstance(out, Tensor):
        raise TypeError(f"expected a Tensor as output {i}, got {type(out).__name__}")
    if not out._requires_grad:
        raise RuntimeError(
            f"element {i} of tensors does not require grad and does not have a grad_fn" + seams.explainer.no_grad_fn(out)
        )
    return out._data.shape, out._data.dtype


def _root_grads(outputs: tuple[Any, ...], grad_outputs: tuple[Any, ...] | None, create_graph: bool) -> list[Tensor]:
    if grad_outputs is not None and len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(grad_outputs)} tensors and {len(outputs)} gradients")
    grads = []
    for i, out in enumerate(outputs):
        meta = _output_meta(out, i)
        given = None if grad_outputs is None else grad_outputs[i]
        if given is None:
            if meta is None or prod(meta[0]) != 1:
                explained = seams.explainer.non_scalar_root(out) if isinstance(out, Tensor) else ""
                raise RuntimeError("grad can be implicitly created only for scalar outputs" + explained)
            if not is_floating(meta[1]):
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got torch.{_BY_NUMPY[meta[1]].name}")
            grads.append(Tensor._wrap(np.ones(*meta)))  # made here: nothing to detach
            continue
        if not isinstance(given, Tensor):
            given = out.new_tensor(given)  # a copy of out's dtype, as torch.tensor(given, dtype=out.dtype)
        elif meta is not None:
            _check_root_grad(given, meta, i)
        keeps = create_graph or (forward_ad.state.propagating and forward_ad.tangent_of(given) is not None)  # its tangent
        grads.append(given if keeps else given.detach())
    return grads


def _check_root_grad(given: Tensor, meta: tuple[tuple[int, ...], np.dtype], i: int) -> None:
    shape, dtype = meta
    if given._data.shape != shape:
        raise RuntimeError(
            f"Mismatch in shape: grad_output[{i}] has a shape of {given.shape} and output[{i}] has a shape "
            f"of {Size(shape)}."
        )
    if (given._data.dtype.kind == "c") != (dtype.kind == "c"):
        raise RuntimeError(
            "For complex Tensors, both grad_output and output are required to have the same dtype. Mismatch in dtype: "
            f"grad_output[{i}] has a dtype of torch.{given.dtype.name} and output[{i}] has a dtype of torch.{_BY_NUMPY[dtype].name}."
        )


def _dependencies(roots: list[Node]) -> dict[Node, int]:
    deps: dict[Node, int] = {}
    root_set = set(roots)
    stack = list(root_set)  # two outputs of one node can both be roots: count that node's edges once
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            count = deps.get(child)
            if count is None:  # first seen: walk it, unless it is a root (walked already)
                deps[child] = 1
                if child not in root_set:
                    stack.append(child)
            else:
                deps[child] = count + 1
    return deps


def _needed(nodes: Iterable[Node], targets: set[Node]) -> tuple[set[Node], set[Node]]:
    """The targets and the nodes from which some target is reachable; and of those, the ones autograd.grad runs: all
    but the targets with no other target below them (their gradient is captured before they would run, as in PyTorch).

    An op's inputs had their nodes before it drew its sequence number, so in ascending order every child is
    decided before its parents. (A leaf's AccumulateGrad, numbered after its first consumer, has no children.)
    """
    needed = set(targets)
    to_run: set[Node] = set()
    for node in sorted(nodes, key=_sequence_nr):
        for child, _ in node.next_functions:
            if child in needed:
                needed.add(node)
                to_run.add(node)
                break
    return needed, to_run


def broadcast_dims(shape: tuple[int, ...], target: tuple[int, ...]) -> tuple[int, ...] | None:
    """The dims of `shape` that broadcasting `target` to it added or stretched; None if it cannot broadcast."""
    lead = len(shape) - len(target)
    if lead < 0:
        return None
    dims = list(range(lead))
    for i, t in enumerate(target, lead):  # a plain loop: generators cost more than the shapes they read (every broadcast gradient)
        if t != shape[i]:
            if t != 1:
                return None
            dims.append(i)
    return tuple(dims)


def _fit_to_input(grad: Tensor, shape: tuple[int, ...], dtype: np.dtype, node: Node, index: int, create_graph: bool) -> Tensor:
    data = grad._data
    if data.shape != shape:
        dims = broadcast_dims(data.shape, shape)
        if dims is None:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"[{', '.join(map(str, grad.shape))}] but expected shape compatible with "
                f"[{', '.join(map(str, shape))}]"
            )
        if create_graph or forward_ad.state.propagating:  # a dual gradient (forward-over-reverse) keeps its tangent
            grad = grad.sum_to_size(shape)
        else:  # nothing to record: the reduction alone, on the array
            summed = np.add.reduce(data, axis=dims)
            # Reduced leading dims (a bias) give the input's shape as a fresh array, which a leaf's .grad may keep
            # without a copy; a stretched size-1 dim comes back as a view.
            grad = Tensor._wrap(summed if summed.shape == shape else summed.reshape(shape))
    if dtype is not None and grad._data.dtype != dtype:  # None: a leaf whose grad_dtype is None takes any dtype
        grad = grad.to(_BY_NUMPY[dtype])
    return grad


def _fit_outputs(node: Node, outputs: tuple[Tensor | None, ...], create_graph: bool) -> tuple[Tensor | None, ...]:
    """A node's gradients, each fitted to the input it flows to (inputs that take no gradient are left as they are)."""
    edges, metas = node.next_functions, node._input_meta
    fitted = list(outputs)
    for i in range(min(len(fitted), len(edges))):
        grad = fitted[i]
        if grad is not None and edges[i][0] is not None:
            fitted[i] = _fit_to_input(grad, metas[2 * i], metas[2 * i + 1], node, i, create_graph)
    return tuple(fitted)


def _call_pre_hooks(node: Node, grads: list[Tensor | None]) -> list[Tensor | None]:
    """Tensor hooks (which may replace a gradient), then retain_grad, as PyTorch orders them."""
    if isinstance(node, AccumulateGrad):
        hooks = node.variable._backward_hooks
        by_output = {0: list(hooks.values())} if hooks else {}
    else:
        by_output = {nr: list(h.values()) for nr, h in node._tensor_pre_hooks.items()} if node._tensor_pre_hooks else {}
    for nr, hooks_for_output in by_output.items():
        for hook in hooks_for_output:  # called with None too, where no gradient reached that output, as in PyTorch
            new = hook(grads[nr])
            if new is not None:
                grads[nr] = new
    if node._retains_grad:
        for nr, ref in list(node._retains_grad.items()):
            tensor = ref()
            g = grads[nr]
            if tensor is not None and g is not None and tensor.grad_fn is node:
                tensor.grad = g.clone() if tensor.grad is None else tensor.grad + g
    return grads


def run_backward(
    roots: Sequence[Edge],
    root_grads: list[Tensor],
    keep_graph: bool,
    create_graph: bool,
    capture: Sequence[Edge] | None = None,
    accumulate: bool = True,
) -> list[Tensor | None]:
    """Run backward from `roots`; return the gradients that reached the `capture` edges."""
    depth = _thread.depth
    if depth >= _REENTRANT_DEPTH:  # a backward inside backward inside ...: go on on a fresh stack, as PyTorch does
        return _on_new_thread(run_backward, roots, root_grads, keep_graph, create_graph, capture, accumulate)
    _thread.depth = depth + 1
    try:
        return _run_backward(roots, root_grads, keep_graph, create_graph, capture, accumulate)
    finally:
        _thread.depth = depth


def _run_backward(
    roots: Sequence[Edge], root_grads: list[Tensor], keep_graph: bool, create_graph: bool,
    capture: Sequence[Edge] | None, accumulate: bool,
) -> list[Tensor | None]:
    """run_backward's work, on whichever thread runs it."""
    freed_by = FreedBy(sites.caller_position(), steps.current)
    task = GraphTask([n for n, _ in roots if n is not None], keep_graph, bool(accumulate))
    running.append(task)
    # A backward runs with the saved_tensors_hooks in force when it began, and leaves them so however its hooks
    # entered or exited them (PyTorch's graph task restores its thread-local state).
    hooks_in_force = _hook_stack[:]
    try:
        captured = _run(task, roots, root_grads, keep_graph, create_graph, capture, accumulate, freed_by)
        callbacks = task.callbacks
        while callbacks:  # a callback may queue more
            callbacks.pop(0)()
        return captured
    finally:
        _hook_stack[:] = hooks_in_force
        running.pop()
        steps.advance()
        if seams.watcher is not None:
            seams.watcher.after_backward()


class _ThreadDepth(threading.local):
    depth = 0  # backward calls running on this thread, nested (a Function's backward calling backward)


_thread = _ThreadDepth()
# Nested backward calls one thread runs before the next one goes to a new thread, whose stack (and Python's
# recursion count) starts empty: about 15 frames each, well inside Python's default limit of 1000.
_REENTRANT_DEPTH = 32


def _on_new_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args) on a new thread that takes this one's grad modes, while this one waits; its result or its error."""
    modes = (grad_mode.state.grad_enabled, grad_mode.state.inference)
    outcome: list[Any] = []

    def work() -> None:
        grad_mode._switch_grad(modes[0])
        grad_mode.state.inference = modes[1]
        try:
            outcome.append((True, fn(*args)))
        except BaseException as err:  # handed back to the waiting thread, which raises it
            outcome.append((False, err))

    worker = threading.Thread(target=work, name="glassgrad reentrant backward")
    worker.start()
    worker.join()
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


def _run(
    task: GraphTask,
    roots: Sequence[Edge],
    root_grads: list[Tensor],
    keep_graph: bool,
    create_graph: bool,
    capture: Sequence[Edge] | None,
    accumulate: bool,
    freed_by: FreedBy,
) -> list[Tensor | None]:
    root_nodes = task.roots
    deps = task.deps = _dependencies(root_nodes)
    if seams.watcher is not None:
        seams.watcher.before_backward(root_nodes, deps.keys(), keep_graph, freed_by.position, create_graph, bool(accumulate))
    targets = {n for n, _ in capture if n is not None} if capture is not None else None
    needed = to_run = None
    if targets is not None:
        needed, to_run = _needed(itertools.chain(deps, root_nodes), targets)
        if accumulate:  # backward(inputs=) runs a non-leaf input's grad_fn too, as PyTorch documents
            to_run = needed
    task.needed = needed
    captured: dict[Edge, Tensor | None] = dict.fromkeys(capture, None) if capture is not None else {}

    logs = _log.isEnabledFor(logging.DEBUG)  # each node's run is logged, from _apply_hooked
    buffers: dict[Node, list[Tensor | None]] = {}
    for (node, nr), grad in zip(roots, root_grads, strict=True):
        if node is None:
            continue
        buf = buffers.setdefault(node, [None] * node.num_outputs)
        buf[nr] = grad if buf[nr] is None else buf[nr] + grad

    ready = [(-node._seq_nr, node) for node in buffers if deps.get(node, 0) == 0]
    heapq.heapify(ready)
    pop, push = heapq.heappop, heapq.heappush
    with grad_mode.set_grad_enabled(create_graph):
        while ready:
            node = task.current = pop(ready)[1]
            grads = buffers.pop(node)
            is_sink = type(node) is AccumulateGrad
            if node._tensor_pre_hooks or node._retains_grad or (is_sink and node.variable._backward_hooks):
                grads = _call_pre_hooks(node, grads)
            if targets is not None and node in targets:
                for nr, g in enumerate(grads):
                    if (node, nr) in captured:
                        captured[(node, nr)] = g
            # a leaf's sink runs only for backward() (and only for the leaves named in inputs=, if any)
            # bool(accumulate): Cython 3.3 miscompiles `object and (C bool)` inside a conditional expression (a segfault)
            runs = (bool(accumulate) and (targets is None or node in targets)) if is_sink else (to_run is None or node in to_run)
            outputs: tuple[Tensor | None, ...] = ()
            if runs:
                if node._pre_hooks or node._hooks or _anomaly_vars["enabled"] or logs:
                    outputs = _apply_hooked(node, grads, needed, create_graph)
                else:
                    outputs = node.apply(grads, needed)
                    if node._hooks:  # registered while it ran (by an unpack hook)
                        outputs = _post_hooks(node, outputs, grads, (), create_graph)
                if keep_graph:
                    node._retained_by = freed_by
                else:
                    node.release(freed_by)  # its saved tensors go now, so peak memory falls during backward
            del grads
            edges, metas = node.next_functions, node._input_meta  # per input: an edge, and a shape and a dtype
            if len(outputs) < len(edges):
                outputs = (*outputs, *(None,) * (len(edges) - len(outputs)))
            # Indexed, not zipped: compiled, a zip costs three tuples and two iterators, a C loop over the edges none.
            for i in range(len(edges)):
                child, nr = edges[i]
                if child is None:
                    continue
                grad = outputs[i]
                if grad is not None:
                    shape, dtype = metas[2 * i], metas[2 * i + 1]
                    data = grad._data
                    if data.shape != shape or (data.dtype is not dtype and dtype is not None and data.dtype != dtype):
                        grad = _fit_to_input(grad, shape, dtype, node, i, create_graph)
                    buf = buffers.get(child)
                    if buf is None:
                        buf = buffers[child] = [None] * child.num_outputs
                    buf[nr] = grad if buf[nr] is None else _sum(buf, nr, grad, create_graph)
                    grad = data = None  # the buffer holds it alone, so AccumulateGrad may keep it without a copy
                remaining = deps[child] - 1
                deps[child] = remaining
                if remaining == 0:
                    if child in buffers:
                        push(ready, (-child._seq_nr, child))
                    else:
                        _skip(child, deps, buffers, ready, to_run, keep_graph, freed_by)
            outputs = ()
    return [captured[e] for e in capture] if capture is not None else []


def _sum(buf: list[Tensor | None], nr: int, grad: Tensor, create_graph: bool) -> Tensor:
    """buf[nr] + grad, added in place when no graph is being built and nothing but the buffer holds buf[nr].

    That is PyTorch's InputBuffer rule: a gradient met for the first time may be a formula's output that some
    other buffer also holds (an add passes one gradient to both inputs), so only an exclusive one is reused.
    """
    total = buf[nr]
    assert total is not None
    addend = grad  # total and addend: names engine.pxd types, so their arrays are struct members
    data = total._data
    if (
        not create_graph
        and not forward_ad.state.propagating  # either may be a dual gradient: its tangent must be summed too
        and getrefcount(total) == LOCAL_REFCOUNT + 1  # `total` and the buffer's slot
        and getrefcount(data) == LOCAL_REFCOUNT + 1  # `data` and total's slot
        and data.base is None
        and data.flags.writeable
        and data.dtype is addend._data.dtype
        and data.shape == addend._data.shape
    ):
        quiet.run_kernel((np.add, data, addend._data, data))  # out=data, by position
        return total
    if total.is_sparse and not addend.is_sparse:  # PyTorch's InputBuffer too: sparse + dense is refused
        return grad + total
    return total + grad


def _apply_hooked(
    node: Node, grads: list[Tensor | None], needed: set[Node] | None, create_graph: bool,
) -> tuple[Tensor | None, ...]:
    """One node's backward with its pre- and post-hooks, and anomaly mode's nan check and report of what failed (the
    node's forward stack, and those of the nodes whose backward made it)."""
    parent, anomaly.running = anomaly.running, node  # nodes this backward makes remember it, as in PyTorch
    try:
        if node._pre_hooks:
            for hook in list(node._pre_hooks.values()):
                new = hook(tuple(grads))
                if new is not None:
                    grads = list(new)
        if _log.isEnabledFor(logging.DEBUG):  # after the node's own pre-hooks, as PyTorch's logging pre-hook runs
            _log.debug("Executing: %s with grad_outputs: [%s]", node, ",".join(map(_describe_grad, grads)))
        known = tuple(node._hooks) if node._hooks else ()
        outputs = node.apply(grads, needed)
        if anomaly.enabled and anomaly.check_nan:
            anomaly.check_outputs(node, outputs)
        if node._hooks:
            outputs = _post_hooks(node, outputs, grads, known, create_graph)
    except Exception:
        if anomaly.enabled:
            anomaly.print_stack(node)
        raise
    finally:
        anomaly.running = parent
    return outputs


_DTYPE_ABBREVIATIONS = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64", "complex32": "c32",
                        "complex64": "c64", "complex128": "c128"}


def _describe_grad(grad: Tensor | None) -> str:
    """A gradient as the debug log shows it: "f32[2, 3]", or "None"."""
    if grad is None:
        return "None"
    name = grad.dtype.name
    return f"{_DTYPE_ABBREVIATIONS.get(name, name)}[{', '.join(map(str, grad.shape))}]"


def _post_hooks(
    node: Node, outputs: tuple[Tensor | None, ...], grads: list[Tensor | None], known: tuple[int, ...], create_graph: bool,
) -> tuple[Tensor | None, ...]:
    """The node's post hooks: hook(grad_inputs, grad_outputs), each may replace grad_inputs. A hook registered while
    the node ran (`known` lacks it) is given no grad_outputs (an empty tuple), as in PyTorch. The grad_inputs they see
    are already fitted to the inputs' shapes and dtypes (a broadcast bias's gradient summed to the bias's shape), as
    PyTorch's engine validates a node's outputs before its post hooks run."""
    outputs = _fit_outputs(node, outputs, create_graph)
    for key, hook in list(node._hooks.items()):
        seen = tuple(grads) if key in known else ()
        new = hook(tuple(outputs), seen)
        if new is not None:
            outputs = tuple(new)
    return outputs


def _skip(
    node: Node, deps: dict[Node, int], buffers: dict[Node, list[Tensor | None]], ready: list[Any],
    to_run: set[Node] | None, keep_graph: bool, freed_by: FreedBy,
) -> None:
    """A node that received no gradient at all (only undefined ones, e.g. through UndefinedGrad) gives none either.
    Where it is needed it still runs as PyTorch's does with undefined gradients: its tensor hooks see None, and its
    saved tensors are released. It always releases its consumers' dependency counts."""
    stack = [node]
    while stack:
        n = stack.pop()
        if to_run is None or n in to_run:
            hooked = n._tensor_pre_hooks or (type(n) is AccumulateGrad and n.variable._backward_hooks)
            if hooked and any(g is not None for g in _call_pre_hooks(n, [None] * n.num_outputs)):
                raise RuntimeError("can't replace a None gradient with a non-None value")
            if keep_graph:
                n._retained_by = freed_by
            else:
                n.release(freed_by)
        for child, _ in n.next_functions:
            if child is None:
                continue
            deps[child] -= 1
            if deps[child] == 0:
                if child in buffers:
                    heapq.heappush(ready, (-child._seq_nr, child))
                else:
                    stack.append(child)


def _edge(t: Tensor | GradientEdge) -> Edge:
    if isinstance(t, GradientEdge):
        return (t.node, t.output_nr)
    return edge_to(t) if isinstance(t, Tensor) else (None, 0)


def _input_edges(inputs: tuple[Tensor | GradientEdge, ...], what: str) -> list[Edge]:
    edges: list[Edge] = []
    for i, t in enumerate(inputs):
        if isinstance(t, GradientEdge):
            edges.append((t.node, t.output_nr))
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"{what} must be Tensors, got {type(t).__name__} at position {i}")
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        edges.append(edge_to(t))
    return edges


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """Accumulate d(tensors)/d(leaf) into each leaf's `.grad` (or only `inputs`' when given)."""
    outputs = _as_tuple(tensors)
    if grad_variables is not None:
        grad_tensors = grad_variables
    grad_outputs = None if grad_tensors is None else _as_tuple(grad_tensors) if not isinstance(grad_tensors, Tensor) else (grad_tensors,)
    if grad_outputs is not None and len(outputs) == 1 and len(grad_outputs) == 0:
        grad_outputs = None
    keep = create_graph if retain_graph is None else retain_graph
    if create_graph:
        import warnings

        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
            "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
            "avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters "
            "to None after use to break the cycle and avoid the leak.",
            UserWarning,
            stacklevel=3,
        )
    roots = [_edge(t) for t in outputs]
    grads = _root_grads(outputs, grad_outputs, create_graph)
    input_list = _as_tuple(inputs)
    if inputs is not None and not input_list:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    if not input_list:
        run_backward(roots, grads, keep, create_graph)
        return
    edges = _input_edges(input_list, "inputs")
    captured = run_backward(roots, grads, keep, create_graph, capture=edges, accumulate=True)
    for t, g in zip(input_list, captured, strict=True):
        if isinstance(t, Tensor) and t.grad_fn is not None and g is not None:  # a non-leaf named in inputs= gets .grad, as in PyTorch
            t.grad = g.detach() if t._grad is None else t._grad + g.detach()


def _tensor_backward(
    self: Tensor,
    gradient: Tensor | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Tensor.backward: installed here because the tensor sits below the engine and does not import it."""
    backward((self,), None if gradient is None else (gradient,), retain_graph, create_graph, inputs=inputs)


Tensor.backward = _tensor_backward  # type: ignore[attr-defined]


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """Return d(outputs)/d(inputs) without touching any `.grad`."""
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but got: allow_unused=False."
        )
    allow_unused = materialize_grads if allow_unused is None else allow_unused
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    if not ins:
        raise RuntimeError("grad requires non-empty inputs.")
    gouts = None if grad_outputs is None else _as_tuple(grad_outputs)
    keep = create_graph if retain_graph is None else retain_graph
    if is_grads_batched:
        return _batched_grad(outs, ins, gouts, keep, create_graph, allow_unused, materialize_grads)
    roots = [_edge(t) for t in outs]
    grads = _root_grads(outs, gouts, create_graph)
    edges = _input_edges(ins, "inputs")
    result = run_backward(roots, grads, keep, create_graph, capture=edges, accumulate=False)
    final: list[Tensor | None] = []
    for i, (t, g) in enumerate(zip(ins, result, strict=True)):
        if g is None:
            if materialize_grads and isinstance(t, GradientEdge):
                raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
            if materialize_grads:  # a leaf that requires grad under create_graph, so it can be differentiated again
                g = Tensor._wrap(np.zeros(t._data.shape, t._data.dtype))
                g._requires_grad = create_graph
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
        final.append(g)
    return tuple(final)


def _batched_grad(
    outs: tuple[Any, ...], ins: tuple[Any, ...], gouts: tuple[Any, ...] | None, keep: bool, create_graph: bool,
    allow_unused: bool, materialize_grads: bool,
) -> tuple[Tensor | None, ...]:
    """grad() with is_grads_batched: one backward per row of the grad_outputs' first dim, the results stacked (PyTorch
    vmaps the backward; a loop gives the same values)."""
    batch = None
    for i, (out, given) in enumerate(zip(outs, gouts or (), strict=True)):
        if isinstance(given, Tensor) and isinstance(out, Tensor):
            if given._data.shape[1:] != out._data.shape:
                raise RuntimeError(
                    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                    "dimension. The sizes of the remaining dimensions are expected to match the shape of corresponding "
                    # PyTorch names the shape past the first two dims (its check reads a row's shape[1:])
                    f"output, but a mismatch was detected: grad_output[{i}] has a shape of {Size(given.shape[2:])} and "
                    f"output[{i}] has a shape of {out.shape}. If you only want some tensors in `grad_output` to be "
                    "considered batched, consider using vmap."
                )
            batch = given._data.shape[0]
    if batch is None:
        raise RuntimeError("is_grads_batched=True needs grad_outputs with a batch dimension")
    rows = [
        grad(outs, ins, [g[b] if isinstance(g, Tensor) else g for g in gouts or ()], retain_graph=keep or b < batch - 1,
             create_graph=create_graph, allow_unused=allow_unused, materialize_grads=materialize_grads)
        for b in range(batch)
    ]
    stacked: list[Tensor | None] = []
    for column in zip(*rows, strict=True):
        if column[0] is None:
            stacked.append(None)
            continue
        result = column[0].new_zeros((batch, *column[0].shape))
        for b, g in enumerate(column):
            result[b] = g  # recorded, with create_graph: the stack is differentiable too
        stacked.append(result)
    return tuple(stacked)

