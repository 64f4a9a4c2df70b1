"""The glass on real PyTorch: the same records, explanations and watches for a program that stays on torch.

PyTorch's own seams supply the facts glassgrad's engine keeps natively:
- a TorchFunctionMode sees every op. The user's line and the step go into a record in
  `grad_fn.metadata`, also for the nodes a fused op made without Python seeing them (found by walking
  back from its output to nodes already tagged). The node's saved buffers (name, shape, dtype, bytes,
  storage, version) are read once, from its raw SavedVariables (`_raw_saved_*`, `SavedTensor.data`);
- in-place ops seen by the mode remember the line that last modified each storage (optimizer.step()
  included: its line is the first frame outside torch), and a call with `inplace=True` (nn.ReLU's) the
  module that made it;
- torch.autograd's entry into the C++ engine is wrapped: it knows which call freed which nodes, runs
  the watches, and explains an error as an exception note, leaving PyTorch's message as it is;
- `Function.apply` is wrapped so that a custom Function's node has its line, and `ctx.saved_tensors`
  read after the free is explained.

The glass only observes: nothing it reads runs user code. `_saved_*` is never read, as it unpacks the
saved tensor through its saved_tensors_hooks (a non-reentrant checkpoint's unpack recomputes the block:
BatchNorm's running statistics, the RNG). Nor does it install saved_tensors_hooks of its own: while they
are installed PyTorch skips its version check on saved tensors (SavedVariable::unpack checks versions
only without hooks), so an in-place change between two backwards would give a silently wrong gradient
instead of PyTorch's error.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple

from .. import _sites as sites
from .._sites import Position, Site
from ..autograd import steps
from . import explain, transforms
from .inspect import SavedBuffer, SiteBytes
from .views import GraphView
from .watches import WatchState

_KEY = "glassgrad"  # the record's key in grad_fn.metadata
_FREED = "Trying to backward through the graph a second time"
_MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace operation"
_NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"
_NOT_SCALAR = "grad can be implicitly created only for scalar outputs"
_MODIFIED_LIMIT = 4096  # storages whose last in-place site is remembered; the oldest is forgotten first
_INPLACE_DUNDERS = frozenset(
    f"__i{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor", "lshift", "rshift", "matmul")
) | {"__setitem__"}


class _Change(NamedTuple):  # tuples: one is made per in-place op and per saved tensor, a frozen dataclass costs more
    """An in-place change: the user's line, and the call whose `inplace=True` made it (None: an in-place op)."""

    position: Position | None
    by: str | None


class _Buffer(NamedTuple):
    """One tensor a PyTorch node saved, as read when the node was made."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    nbytes: int
    storage: int  # the storage's address: the key of the in-place record
    version: int | None  # None: packed by a saved_tensors_hooks hook, whose unpack PyTorch does not version-check

    def shown(self, state: str) -> SavedBuffer:
        return SavedBuffer(self.name, self.shape, self.dtype, self.nbytes, state)


class _Record:
    """What glassgrad's Node keeps natively, kept for a PyTorch node in its metadata dict.

    The metadata dict lives and dies with the C++ node, so a weak reference to the record tells whether
    the node is alive, without holding it (a strong reference would be a cycle through C++).
    """

    __slots__ = ("__weakref__", "_position", "_step", "buffers", "freed_by", "retained_by")

    def __init__(self, position: Position | None, step: int, buffers: tuple[_Buffer, ...]) -> None:
        self._position = position
        self._step = step
        self.buffers = buffers
        self.freed_by: Call | None = None
        self.retained_by: Call | None = None

    @property
    def _site(self) -> Site | None:
        return sites.resolve(self._position)

    def state(self) -> str:
        return "released" if self.freed_by is not None else "retained" if self.retained_by is not None else "alive"

    def live_bytes(self) -> int:
        return 0 if self.freed_by is not None else sum(b.nbytes for b in self.buffers)


@dataclass(frozen=True)
class Call:
    """A backward call: where the user made it, and the step it ran in."""

    position: Position | None
    step: int

    @property
    def site(self) -> Site | None:
        return sites.resolve(self.position)


@functools.cache
def _dtype_name(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


class TorchView(GraphView):
    """Real PyTorch's grad_fn objects, through the records in their metadata."""

    def __init__(self, torch: Any) -> None:
        self.tensor_type = torch.Tensor

    @staticmethod
    def record(node: Any) -> _Record | None:
        return node.metadata.get(_KEY)

    def site(self, node: Any) -> Site | None:
        record = self.record(node)
        return record._site if record is not None else None

    def step(self, node: Any) -> int | None:
        record = self.record(node)
        return record._step if record is not None else None

    def freed(self, node: Any) -> bool:
        record = self.record(node)
        return record is not None and record.freed_by is not None

    def carried(self, parent: Any, index: int, child: Any, output_nr: int) -> tuple[tuple[int, ...], str] | None:
        meta = child._input_metadata[output_nr]
        return tuple(meta.shape), _dtype_name(meta.dtype)

    def saved(self, node: Any) -> list[SavedBuffer]:
        record = self.record(node)
        if record is None:
            return []
        state = record.state()
        return [b.shown(state) for b in record.buffers]

    def key(self, node: Any) -> _Record | None:
        return self.record(node)

    def live_bytes(self, entries: Iterable[_Record]) -> int:
        return sum(record.live_bytes() for record in entries)


class TorchGlass:
    """The glass installed on the real `torch` for a block of code (see watch_torch)."""

    def __init__(self) -> None:
        import torch
        from torch.overrides import TorchFunctionMode

        self.torch = torch
        self.view = TorchView(torch)
        self.watches = WatchState(view=self.view, previous_boundary=steps.current)
        self.modified: dict[int, _Change] = {}
        self.running: list[list[Any]] = []
        # torch.cuda.memory_allocated() before each backward, where a GPU is there (None on a machine without one)
        self.cuda_allocated: list[int] | None = [] if torch.cuda.is_available() else None
        self._names: dict[type, tuple[str, ...]] = {}
        self._kinds: dict[str, int] = {}
        self._inplace_at: dict[Any, int | None] = {}
        self._sink = torch._C._functions.AccumulateGrad
        self._is_wrapped = torch._C._functorch.is_functorch_wrapped_tensor
        self._unwrapped = torch._C._functorch.get_unwrapped
        self._grad_enabled = torch.is_grad_enabled
        self._function_base = torch._C._FunctionBase
        self._undo: list[Callable[[], None]] = []
        glass = self

        class Mode(TorchFunctionMode):
            def __torch_function__(self, func: Any, types: Any, args: Sequence[Any] = (), kwargs: Any = None) -> Any:
                return glass._op(func, args, kwargs or {})

        self.mode = Mode()
        # Nodes numbered below this were made before the glass and are not the user's line of today.
        self._first_sequence_nr = (torch.zeros((), requires_grad=True) * 1).grad_fn._sequence_nr()

    # -- install and remove ---------------------------------------------------------------------------------
    def install(self) -> None:
        torch = self.torch
        sites.treat_as_internal(os.path.dirname(torch.__file__))
        autograd = torch.autograd
        function = torch.autograd.function
        run_backward = autograd._engine_run_backward
        make_grads = autograd._make_grads
        apply = function.Function.__dict__["apply"]
        glass = self

        def wrapped_run_backward(t_outputs: Any, *args: Any, **kwargs: Any) -> Any:
            return glass._backward(run_backward, t_outputs, args, kwargs)

        def wrapped_make_grads(outputs: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return make_grads(outputs, *args, **kwargs)
            except RuntimeError as error:  # raised in Python before the engine runs: "only for scalar outputs"
                message = str(error)
                glass._note(error, lambda: glass._explain_roots(message, outputs))
                raise

        def wrapped_apply(cls: Any, *args: Any, **kwargs: Any) -> Any:
            out = apply.__func__(cls, *args, **kwargs)
            if torch.is_grad_enabled():
                glass._tag(out, sites.caller_position())
            return out

        def saved_tensors(ctx: Any) -> Any:
            try:
                return glass._function_base.saved_tensors.__get__(ctx)
            except RuntimeError as error:
                glass._note(error, lambda: glass._explain_ctx(ctx))
                raise

        autograd._engine_run_backward = wrapped_run_backward
        autograd._make_grads = wrapped_make_grads
        function.Function.apply = classmethod(wrapped_apply)
        function.BackwardCFunction.saved_tensors = property(saved_tensors)
        from torch.optim.optimizer import register_optimizer_step_post_hook

        stepped = register_optimizer_step_post_hook(lambda *_: self.watches.optimizer_stepped())
        self.watches.transforms.finished = self._transform_finished
        unwrap_transforms = transforms.install(torch, self.watches.transforms)
        self.mode.__enter__()
        self._undo = [
            *reversed(unwrap_transforms),
            lambda: self.mode.__exit__(None, None, None),
            stepped.remove,
            lambda: delattr(function.BackwardCFunction, "saved_tensors"),
            lambda: setattr(function.Function, "apply", apply),
            lambda: setattr(autograd, "_engine_run_backward", run_backward),
            lambda: setattr(autograd, "_make_grads", make_grads),
        ]

    def uninstall(self) -> None:
        for undo in self._undo:
            undo()
        self._undo = []
        self.watches.flush()

    # -- every op ---------------------------------------------------------------------------------------------
    _PASS, _OP, _INPLACE, _MAYBE_INPLACE = 0, 1, 2, 3  # _MAYBE_INPLACE: a function with an `inplace` argument

    def _kind(self, func: Any) -> int:
        name = getattr(func, "__name__", "")
        kind = self._kinds.get(name)
        if kind is None:
            if name in ("__get__", "__set__", "__delete__", "backward", "grad"):
                kind = self._PASS
            elif name in _INPLACE_DUNDERS or (name.endswith("_") and not name.endswith("__")):
                kind = self._INPLACE
            else:
                kind = self._MAYBE_INPLACE if self._inplace_index(func) is not None else self._OP
            self._kinds[name] = kind
        return kind

    def _inplace_index(self, func: Any) -> int | None:
        """The position of `func`'s `inplace` parameter (F.relu, F.dropout, ...), None where it has none."""
        if func not in self._inplace_at:
            try:
                parameters = list(inspect.signature(func).parameters)
            except (TypeError, ValueError):  # a builtin without a signature: no inplace argument
                parameters = []
            self._inplace_at[func] = parameters.index("inplace") if "inplace" in parameters else None
        return self._inplace_at[func]

    def _called_inplace(self, func: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
        index = self._inplace_index(func)  # the name is shared (torch.relu, F.relu): the function decides
        if index is None:
            return False
        return bool(kwargs["inplace"] if "inplace" in kwargs else index < len(args) and args[index])

    def _op(self, func: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        kind = self._kind(func)
        out = func(*args, **kwargs)
        if kind == self._PASS:
            return out
        position = None
        by = None
        if kind == self._MAYBE_INPLACE and self._called_inplace(func, args, kwargs):
            kind, by = self._INPLACE, self._inplace_call(func)
        if kind == self._INPLACE or "out" in kwargs:
            position = sites.caller_position()
            self._modified(args[0] if kind == self._INPLACE and args else kwargs.get("out"), _Change(position, by))
        if self._grad_enabled():
            self._tag(out, position)
        return out

    def _inplace_call(self, func: Any) -> str:
        """What ran `func(..., inplace=True)`: the innermost nn.Module whose forward called it (ReLU(inplace=True)),
        else the function itself. Looks into the frames between here and the user's, so only for in-place calls."""
        module_type = self.torch.nn.Module
        frame = sys._getframe(2)
        while frame is not None and sites.is_internal(frame.f_code.co_filename):
            if frame.f_code.co_name == "forward" and isinstance(owner := frame.f_locals.get("self"), module_type):
                return f"{type(owner).__name__}(inplace=True)"  # not repr(): a module's extra_repr is code to run
            frame = frame.f_back
        return f"{func.__name__}(..., inplace=True)"

    def _modified(self, target: Any, change: _Change) -> None:
        targets = target if isinstance(target, (list, tuple)) else (target,)
        modified = self.modified
        for tensor in targets:
            if isinstance(tensor, self.torch.Tensor):
                key = self._storage_key(tensor)
                modified.pop(key, None)  # re-inserted last: the dict's order is the order of last modification
                modified[key] = change
        while len(modified) > _MODIFIED_LIMIT:
            del modified[next(iter(modified))]

    def _storage_key(self, tensor: Any) -> int:
        """The address of the storage under `tensor`. A torch.func transform hands the function wrapped tensors
        (grad's TensorWrapper, vmap's BatchedTensor) whose storage cannot be accessed; the tensor they wrap
        holds the memory, and an in-place change through the wrapper lands there."""
        while self._is_wrapped(tensor):
            tensor = self._unwrapped(tensor)
        return tensor.untyped_storage().data_ptr()

    def _tag(self, out: Any, position: Position | None) -> None:
        tensor_type = self.torch.Tensor
        outputs = out if isinstance(out, (tuple, list)) else (out,)
        for tensor in outputs:
            if isinstance(tensor, tensor_type):
                node = tensor.grad_fn
                if node is not None and _KEY not in node.metadata:
                    self._record_graph(node, position if position is not None else sites.caller_position())

    def _record_graph(self, node: Any, position: Position | None) -> None:
        """Records for `node` and every untagged node behind it that was made since the glass went on."""
        step = steps.current
        first = self._first_sequence_nr
        sink = self._sink
        stack = [node]
        while stack:
            node = stack.pop()
            metadata = node.metadata
            if _KEY in metadata:
                continue
            record = metadata[_KEY] = _Record(position, step, self._buffers(node))
            self.watches.track(record)
            for child, _ in node.next_functions:
                if child is not None and type(child) is not sink and _KEY not in child.metadata and child._sequence_nr() >= first:
                    stack.append(child)

    def _saved_names(self, node: Any) -> tuple[str, ...]:
        kind = type(node)
        names = self._names.get(kind)
        if names is None:
            names = self._names[kind] = tuple(k.removeprefix("_raw_saved_") for k in vars(kind) if k.startswith("_raw_saved_"))
        return names

    def _raw_saved(self, node: Any) -> Iterator[tuple[str, Any]]:
        """(name, SavedTensor) for every tensor the node saved, as glassgrad names them.

        Only the raw SavedVariables: reading `_saved_*` would unpack them, and an unpack runs the saved-tensor hooks
        (a non-reentrant checkpoint's recomputes its whole block: BatchNorm's running statistics move again).
        """
        if isinstance(node, self._function_base):
            for i, raw in enumerate(node._raw_saved_tensors):
                yield f"saved_tensors[{i}]", raw
            return
        for name in self._saved_names(node):
            raw = getattr(node, f"_raw_saved_{name}")
            if isinstance(raw, (list, tuple)):
                yield from ((f"{name}[{i}]", r) for i, r in enumerate(raw))
            elif raw is not None:
                yield name, raw

    def _buffers(self, node: Any) -> tuple[_Buffer, ...]:
        """The node's saved tensors as PyTorch holds them. `SavedTensor.data` is what was stored, unpacked by nobody:
        the tensor itself, or what a saved_tensors_hooks pack function returned (a checkpoint's placeholder holds
        no bytes and is not counted; a tensor offloaded by a hook is counted as the hook keeps it)."""
        tensor_type = self.torch.Tensor
        buffers = []
        try:
            for name, raw in self._raw_saved(node):
                data = raw.data
                if isinstance(data, tensor_type):
                    hooked = raw.unpack_hook is not None  # PyTorch checks no version behind a hook
                    buffers.append(
                        _Buffer(
                            name, tuple(data.shape), _dtype_name(data.dtype), data.numel() * data.element_size(),
                            self._storage_key(data), None if hooked else data._version,
                        )
                    )
        except Exception:  # a node whose saved values cannot be read (an unusual C++ node): the glass sees less, the program runs on
            return ()
        return tuple(buffers)

    # -- every backward ---------------------------------------------------------------------------------------
    def _backward(self, run_backward: Callable[..., Any], t_outputs: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        call = Call(sites.caller_position(), steps.current)
        keep_graph, create_graph = bool(args[1]), bool(args[2])
        accumulate = bool(kwargs.get("accumulate_grad", args[5] if len(args) > 5 else True))
        inputs = args[3] if len(args) > 3 else ()
        roots = [n for n in (self._node_of(t) for t in t_outputs) if n is not None]
        reachable = self.view.walk(roots)
        executed = self._executed(reachable, inputs) if inputs else reachable
        self.watches.before_backward(roots, reachable[len(roots):], keep_graph, call.position, create_graph, accumulate)
        if self.cuda_allocated is not None:
            self.cuda_allocated.append(self.torch.cuda.memory_allocated())
        self.running.append(roots)
        try:
            result = run_backward(t_outputs, *args, **kwargs)
        except RuntimeError as error:
            message = str(error)
            self._note(error, lambda: self._explain(message, roots, call, t_outputs))
            raise
        finally:
            self.running.pop()
            steps.advance()
            self.watches.after_backward()
        for node in executed:
            record = self.view.record(node) if type(node) is not self._sink else None
            if record is not None:
                if keep_graph:
                    record.retained_by = call
                else:
                    record.freed_by = call
        if create_graph and result:
            self._tag(result, call.position)  # the gradients' own graphs were made by this call
        return result

    def _transform_finished(self, result: Any) -> None:
        """A transform's results carry graphs its backwards made on the caller's level (grad(f)(w) where w requires
        grad): the mode never saw those ops, so they are tagged here, with the line that called the transform."""
        self._tag(self.torch.utils._pytree.tree_leaves(result), sites.caller_position())

    def _node_of(self, output: Any) -> Any:
        node = getattr(output, "grad_fn", None)
        return node if node is not None else getattr(output, "node", None)  # a GradientEdge

    def _executed(self, reachable: list[Any], inputs: Sequence[Any]) -> list[Any]:
        """The nodes PyTorch runs for backward(inputs=...) or grad(): those from which an input can be reached."""
        wanted = {id(t) for t in inputs}
        targets = {self._node_of(t) for t in inputs} - {None}
        targets |= {n for n in reachable if type(n) is self._sink and id(n.variable) in wanted}
        needed = set(targets)
        for node in sorted(reachable, key=lambda n: n._sequence_nr()):  # inputs are numbered before their users
            if any(child in needed for child, _ in node.next_functions):
                needed.add(node)
        return [n for n in reachable if n in needed]

    # -- errors -----------------------------------------------------------------------------------------------
    @staticmethod
    def _note(error: BaseException, explanation: Callable[[], str | None]) -> None:
        """Add the explanation to a PyTorch error as a note: the message stays PyTorch's own."""
        try:
            text = explanation()
        except Exception as failure:  # the glass must never replace the user's error with its own
            text = f"glassgrad: no explanation ({type(failure).__name__}: {failure})"
        if text:
            error.add_note(text.lstrip("\n"))

    def _explain_roots(self, message: str, outputs: Any) -> str | None:
        """The errors PyTorch raises about the tensors to differentiate themselves, before its engine runs."""
        outputs = (outputs,) if isinstance(outputs, self.torch.Tensor) else tuple(outputs)
        tensors = [t for t in outputs if isinstance(t, self.torch.Tensor)]
        if message.startswith(_NOT_SCALAR):
            tensor = next((t for t in tensors if t.numel() != 1), None)
            if tensor is not None:
                return explain.non_scalar_text(tuple(tensor.shape), self.view.site(tensor.grad_fn) if tensor.grad_fn else None)
        if message.startswith(_NO_GRAD_FN):
            tensor = next((t for t in tensors if not t.requires_grad), None)
            if tensor is not None:
                return explain.no_grad_text(
                    tuple(tensor.shape), _dtype_name(tensor.dtype), self.torch.is_grad_enabled(), explain.user_stack()
                )
        return None

    def _explain(self, message: str, roots: list[Any], call: Call, outputs: Any) -> str | None:
        if message.startswith((_NO_GRAD_FN, _NOT_SCALAR)):
            return self._explain_roots(message, outputs)
        if message.startswith(_FREED):
            found = self._failing(roots, freed=True)
            if found is None:
                return None
            node, record, buffer = found
            freed_by = record.freed_by
            crossing = self.view.crossing(roots, freed_by.step + 1) if freed_by is not None else None
            return explain.freed_text(
                node.name(), record._site, buffer.shown(record.state()), freed_by.site if freed_by is not None else False, crossing,
                backward_at=call.site,
            )
        if message.startswith(_MODIFIED):
            found = self._failing(roots, freed=False)
            if found is None:
                return None
            node, record, buffer = found
            assert buffer.version is not None
            now = re.search(r"is at version (\d+)", message)
            change = self.modified.get(buffer.storage)
            retained_by = record.retained_by
            return explain.version_text(
                node.name(), record._site, buffer.shown(record.state()), buffer.version,
                int(now.group(1)) if now else buffer.version + 1,
                sites.resolve(change.position) if change is not None else None,
                change.by if change is not None else None,
                earlier=self.view.crossing(roots, record._step + 1),
                backwards=(retained_by.site if retained_by is not None else None, call.site),
            )
        return None

    def _failing(self, roots: list[Any], freed: bool) -> tuple[Any, _Record, _Buffer] | None:
        """The node (latest first, as the engine runs them) whose saved buffer raised: freed (by an earlier backward;
        the failing one also freed the nodes it ran) or, with `freed` false, changed in place since it was saved.

        Decided from the raw SavedVariables, never by unpacking one (see _raw_saved)."""
        nodes = [n for n in self.view.walk(roots) if type(n) is not self._sink and self.view.record(n) is not None]
        for node in sorted(nodes, key=lambda n: n._sequence_nr(), reverse=True):
            record = self.view.record(node)
            assert record is not None
            if freed and record.freed_by is None:
                continue
            try:
                raw = dict(self._raw_saved(node))
            except RuntimeError:  # the failing backward ran this node before it stopped, and released what it saved
                if freed:
                    raise
                continue
            for buffer in record.buffers:
                data = raw[buffer.name].data if buffer.name in raw else None
                if freed and data is None:
                    return node, record, buffer
                if not freed and data is not None and buffer.version is not None and data._version != buffer.version:
                    return node, record, buffer
        return None

    def _explain_ctx(self, ctx: Any) -> str | None:
        if self.running:  # inside backward: the engine's own error path explains it
            return None
        record = self.view.record(ctx)
        if record is None:
            return None
        buffer = next(iter(self.view.saved(ctx)), None)
        freed_by = record.freed_by
        return explain.freed_text(
            ctx.name(), record._site, buffer, freed_by.site if freed_by is not None else False, None, read_outside_backward=True
        )

    # -- reports ----------------------------------------------------------------------------------------------
    def live_graphs(self) -> list[SiteBytes]:
        """Every node the glass recorded that is still alive, grouped by the line that created it."""
        nodes: dict[Site | None, int] = {}
        saved: dict[Site | None, int] = {}
        for record in self.watches.live():
            site = record._site
            nodes[site] = nodes.get(site, 0) + 1
            saved[site] = saved.get(site, 0) + record.live_bytes()
        rows = [SiteBytes(site, nodes[site], saved[site]) for site in nodes]
        return sorted(rows, key=lambda r: (r.saved_bytes, r.nodes), reverse=True)


@contextmanager
def watch_torch() -> Iterator[TorchGlass]:
    """`with glassgrad.doctor.watch_torch():` the glass on real PyTorch inside the block.

    Every op records its line, the watches warn (GraphWarning) about graph-lifetime mistakes, and a
    graph error raised inside carries glassgrad's explanation as an exception note (shown by
    tracebacks and Jupyter), its message left as PyTorch wrote it.
    """
    glass = TorchGlass()
    glass.install()
    try:
        yield glass
    finally:
        glass.uninstall()
