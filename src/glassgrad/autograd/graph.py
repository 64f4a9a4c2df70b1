"""Graph nodes, saved tensors and the hooks that see them.

A node is one recorded op: its edges to the nodes of its inputs, the metadata
of each input (so the engine can reduce a broadcast gradient back to it), and
the tensors its backward formula needs, each kept as a SavedTensor object.
Nodes never hold their own outputs: an output saved for backward is kept as
its array and version counter and rebuilt on unpack, so the chain
tensor -> grad_fn -> saved output -> tensor is never a reference cycle.
"""

from __future__ import annotations

import abc
import functools
import itertools
import re
import sys
from collections.abc import Callable, Container, Iterable
from math import prod  # a global of this module: compiled, math.prod is a lookup per call
from typing import Any, NamedTuple
from weakref import ref as _weak_ref  # a global of this module: compiled, weakref.ref would be a lookup per node

import numpy as np

from .. import _sites as sites
from .._dtype import _BY_NUMPY
from .._dtype import dtype as Dtype
from .._layout import strided
from .._sites import Position, Site
from ..tensor import ANY_GRAD_DTYPE, Tensor, VersionCounter, wrap_array
from . import anomaly, forward_ad, grad_mode, seams, steps

# The three flags every new node reads, through their modules' dicts: compiled, `steps.current` is a module getattr
# (about 150 instructions), a read of the dict a C lookup of a few dozen. The modules stay their owners.
_steps_vars, _seams_vars, _anomaly_vars = vars(steps), vars(seams), vars(anomaly)
_sequence = itertools.count()  # the engine runs ready nodes latest first; numbers are unique, so ties never happen
_SINKS_FIRST = 2**62


class FreedBy(NamedTuple):
    """The backward call that released a node's saved tensors."""

    position: Position | None  # resolved to a line only when shown
    step: int

    @property
    def site(self) -> Site | None:
        return sites.resolve(self.position)

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


class RemovableHandle:
    """Returned by every register_*hook; `remove()` takes the hook out again."""

    _ids = itertools.count()

    def __init__(self, hooks: dict[int, Callable[..., Any]]) -> None:
        self._hooks = hooks
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def add_hook(hooks: dict[int, Callable[..., Any]], hook: Callable[..., Any]) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


class NodeBase:
    """Base of every graph node (built-in op, custom Function, AccumulateGrad): their fields and the public Node API.

    Not the public `Node` (below), which PyTorch's programs test with isinstance but find in no node's mro.
    """

    __slots__ = (
        "__weakref__",
        "_freed_by",
        "_hooks",
        "_input_meta",
        "_position",
        "_pre_hooks",
        "_retained_by",
        "_retains_grad",
        "_saved",
        "_seq_nr",
        "_step",
        "_tensor_pre_hooks",
        "next_functions",
    )

    def __init__(self, inputs: tuple[Tensor, ...] = (), position: Position | None = None) -> None:
        """`position` is where the user's code made this node; None: find it from the stack."""
        self._begin(inputs, sites.caller_position(self._made_inside) if position is None else position)

    def _begin(self, inputs: tuple[Tensor, ...], position: Position | None) -> None:
        """A new node's fields. Built-in ops call it on `NodeBase.__new__(cls)` (a class call and __init__'s arguments
        cost their hot path a tenth of a microsecond)."""
        self._seq_nr = next(_sequence)
        self._position = position
        self._step = _steps_vars["current"]
        tracked = _seams_vars["tracked"]
        if tracked is not None:
            tracked.append(_weak_ref(self))
            if len(tracked) > _seams_vars["tracked_limit"]:
                seams.watcher.prune()
        self._saved: dict[str, Any] = {}  # before the forward stack, which anomaly mode keeps in it (as metadata)
        if _anomaly_vars["enabled"]:
            anomaly.record_stack(self)
        # What the engine and the diagnostics fill in later: the backward call that freed this node or ran it with
        # retain_graph=True, node hooks, tensor hooks (by output) and retain_grad() tensors (by output).
        self._freed_by = self._retained_by = self._hooks = self._pre_hooks = self._tensor_pre_hooks = self._retains_grad = None
        self._connect(inputs, position)

    def _connect(self, inputs: tuple[Tensor, ...], position: Position | None) -> None:
        """An edge to each input's node (its leaf's AccumulateGrad, or none), and the input's shape and dtype.

        `_input_meta` is flat, a shape and a dtype per input (None, None where no gradient flows): a tuple per
        input would be one more object per input for the collector to trace while the graph lives."""
        if len(inputs) == 1:  # most ops: no lists to build (each is a collector-tracked allocation)
            t = inputs[0]
            self.next_functions = (_edge_to_input(t, position),)
            self._input_meta = _gradient_meta(t)
            return
        edges: list[tuple[Node | None, int]] = []
        meta: list[tuple[int, ...] | np.dtype | None] = []
        for t in inputs:
            edges.append(_edge_to_input(t, position))
            meta.extend(_gradient_meta(t))
        self.next_functions = tuple(edges)
        self._input_meta = tuple(meta)

    _made_inside = 0  # frames between __init__ and the op's code that are glassgrad's for sure (skipped by the site walk)

    @property
    def _site(self) -> Site | None:
        """The user's line that recorded this node."""
        return sites.resolve(self._position)

    # -- the public Node API -------------------------------------------------
    def name(self) -> str:
        return type(self).__name__

    def _sequence_nr(self) -> int:
        """When this node was made: among nodes ready at once, backward runs the newest first."""
        return self._seq_nr

    def _set_sequence_nr(self, sequence_nr: int) -> None:
        """Reorders this node among those ready with it, as PyTorch's (a root still runs first)."""
        self._seq_nr = sequence_nr

    @property
    def metadata(self) -> dict[str, Any]:
        meta = self._saved.get("__metadata__")
        if meta is None:
            meta = self._saved["__metadata__"] = {}
        return meta

    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """fn(grad_inputs, grad_outputs) runs after this node; it may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = {}
        return add_hook(self._hooks, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """fn(grad_outputs) runs before this node; it may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return add_hook(self._pre_hooks, fn)

    def _register_tensor_hook(self, output_nr: int, fn: Callable[..., Any]) -> RemovableHandle:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        return add_hook(self._tensor_pre_hooks.setdefault(output_nr, {}), fn)

    def _tensor_hooks(self, output_nr: int) -> list[Callable[..., Any]]:
        if self._tensor_pre_hooks is None or output_nr not in self._tensor_pre_hooks:
            return []
        return list(self._tensor_pre_hooks[output_nr].values())

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"  # the type's name, as PyTorch's: not name()'s

    def __call__(self, *grad_outputs: Tensor | None) -> Any:
        """The node's backward formula run on the gradients of its outputs, outside any backward pass: the gradient
        of its one input, or a tuple of those of several."""
        if len(grad_outputs) != self.num_outputs:
            raise TypeError(f"expected {self.num_outputs} arguments, got {len(grad_outputs)} instead")
        grads = self.apply(list(grad_outputs))
        return grads[0] if len(grads) == 1 else grads

    # -- engine interface ----------------------------------------------------
    num_outputs = 1  # a class attribute: the engine reads it per edge; nodes with several outputs override it

    def apply(self, grad_outputs: list[Tensor | None], needed: Container[Node] | None = None) -> tuple[Tensor | None, ...]:
        """The gradients of the inputs, in edge order, from the gradients of the outputs.

        `needed`, when given, holds the nodes this backward will run (autograd.grad or backward(inputs=)):
        a gradient whose edge leads to none of them may be left None, as PyTorch's task_should_compute_output
        lets its formulas skip it.
        """
        raise NotImplementedError

    def saved_tensors_list(self) -> list[SavedTensor]:
        return [s for s in self._saved.values() if type(s) is SavedTensor]

    def release(self, freed_by: FreedBy) -> None:
        """Drop every saved buffer; later unpacks raise PyTorch's 'second time' error."""
        for value in self._saved.values():  # not saved_tensors_list(): its list and call cost every node 0.3 us
            if type(value) is SavedTensor:
                saved = value  # a name graph.pxd types, so the compiled call is a C call
                saved.release()
        self._freed_by = freed_by



class Node(abc.ABC):
    """torch.autograd.graph.Node: what every graph node answers. As PyTorch's, an abstract class that every node
    class is a subclass of by registration, not by inheritance, so isinstance and issubclass hold while no node's
    mro names it."""

    @abc.abstractmethod
    def name(self) -> str: ...

    @property
    @abc.abstractmethod
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]: ...

    @property
    @abc.abstractmethod
    def metadata(self) -> dict[str, Any]: ...

    @abc.abstractmethod
    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle: ...

    @abc.abstractmethod
    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle: ...


Node.register(NodeBase)


_MISSING = object()
_NO_EDGE = (None, 0)
_NO_META = (None, None)


def live_saved_bytes(nodes: Iterable[Node]) -> int:
    """Bytes of the saved tensors the nodes hold and have not released (the watches sum it at every backward)."""
    total = 0
    for node in nodes:
        for value in node._saved.values():
            if type(value) is SavedTensor:
                saved = value  # a name graph.pxd types: its fields are struct members
                if not saved.released:
                    total += saved.nbytes
    return total


def saved_attributes(names: Iterable[str]) -> dict[str, property]:
    """PyTorch's grad_fn._saved_<name> for each name a node class may save (the value, unpacked), and
    grad_fn._raw_saved_<name> (a saved tensor's SavedTensor object itself, whose hooks can be set).

    Properties on the node class rather than a __getattr__ on NodeBase: a compiled NodeBase with __getattr__ would send
    every attribute read of its Python subclasses through a slow hook.
    """
    attributes = {}
    for name in names:
        attributes[f"_saved_{name}"] = property(functools.partial(_saved_value, name=name))
        attributes[f"_raw_saved_{name}"] = property(functools.partial(_raw_saved_value, name=name))
    return attributes


def _saved_entry(node: Node, name: str, prefix: str) -> Any:
    saved = node._saved.get(name, _MISSING)
    if saved is _MISSING:  # not saved by this node (its inputs' requires_grad left the formula out)
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '{prefix}{name}'")
    return saved


def _saved_value(node: Node, name: str) -> Any:
    saved = _saved_entry(node, name, "_saved_")
    return saved.unpack(node) if type(saved) is SavedTensor else saved


def _raw_saved_value(node: Node, name: str) -> Any:
    saved = _saved_entry(node, name, "_raw_saved_")
    if type(saved) is SavedTensor:
        return saved
    raise AttributeError(f"'{type(node).__name__}' object has no attribute '_raw_saved_{name}'")


def edge_to(t: Tensor) -> tuple[Node | None, int]:
    """The (node, input_nr) a gradient for `t` flows into."""
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    if t.requires_grad:
        return (grad_accumulator(t, None), 0)
    return (None, 0)


class _GradientEdgeFields(NamedTuple):
    node: Node
    output_nr: int
    ownership_token: Node | None = None  # PyTorch's keeps a Python Function's graph alive; here `node` does that


class GradientEdge(_GradientEdgeFields):
    """Where a tensor's gradient flows into the graph: usable in place of the tensor as autograd.grad's inputs or
    outputs (the tensor itself need not be alive). One from get_gradient_edge also knows the tensor's shape and dtype
    (`_output_meta`), for a gradient made implicitly when it is an output; PyTorch's nodes keep those of each output."""


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    if not tensor._requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    node, output_nr = edge_to(tensor)
    edge = GradientEdge(node, output_nr)
    edge._output_meta = tensor._data.shape, tensor._data.dtype  # type: ignore[attr-defined]
    return edge


def increment_version(tensor: Tensor | Iterable[Tensor]) -> None:
    """Mark tensors as modified in place behind autograd's back: what saved them then refuses to unpack them.
    Inference tensors have no version to move, as in PyTorch."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        if not t._is_inference:
            t._shared_counter().value += 1


def set_versions(tensors: Iterable[Tensor], versions: Iterable[int]) -> None:
    """Set each tensor's version counter (shared with its views and aliases): torch._C._autograd's
    _unsafe_set_version_counter, for code that changes a tensor behind autograd's back on purpose."""
    for tensor, version in zip(tensors, versions, strict=True):
        if version < 0:
            raise RuntimeError(f"Cannot set a version_counter to a value below 0: {version}")
        tensor._shared_counter().value = version


class _unsafe_preserve_version_counter:
    """In-place changes inside leave the tensors' versions as they were on entry (torch.autograd's)."""

    def __init__(self, tensors: Tensor | Iterable[Tensor]) -> None:
        self.tensors = (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)

    def __enter__(self) -> None:
        self.versions = [t._shared_counter().value for t in self.tensors]

    def __exit__(self, *exc: object) -> None:
        set_versions(self.tensors, self.versions)


def _edge_to_input(t: Tensor, position: Position | None) -> tuple[Node | None, int]:
    """The edge a new node's backward passes t's gradient along: t's grad_fn and output, t's sink, or none."""
    if not t._requires_grad:
        return _NO_EDGE
    fn = t.grad_fn
    return (fn, t._output_nr) if fn is not None else (grad_accumulator(t, position), 0)


def _gradient_meta(t: Tensor) -> tuple[tuple[int, ...], np.dtype] | tuple[None, None]:
    """What the engine checks t's gradient against: NumPy's shape and dtype (None, None where no gradient flows)."""
    if not t._requires_grad:
        return _NO_META
    data = t._data
    grad_dtype = t._grad_dtype  # a leaf's own grad_dtype, when set (None in the meta: no cast)
    if grad_dtype is None:
        return data.shape, data.dtype
    return data.shape, None if grad_dtype is ANY_GRAD_DTYPE else grad_dtype


def grad_accumulator(leaf: Tensor, position: Position | None) -> AccumulateGrad:
    """The leaf's AccumulateGrad node, shared by every use while any graph holds it.

    The leaf holds it weakly, as in PyTorch: it lives as long as some graph does. `position` is where
    the user's code first used the leaf in that graph, which the node that needs it has found already
    (None: walk the stack, only if a new node is made).
    """
    ref = leaf._accumulator
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(leaf, position)
        leaf._accumulator = _weak_ref(node)
    return node


class AccumulateGrad(NodeBase):
    """Sink for a leaf that requires grad: sums every incoming gradient into `.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor, position: Position | None) -> None:
        super().__init__((), position)
        self._seq_nr += _SINKS_FIRST  # runs as soon as it is ready, as in PyTorch
        self.variable = variable
        self._input_meta = (variable._data.shape, variable._data.dtype)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # PyTorch's name() is the C++ class's, unlike its type name

    def apply(self, grad_outputs: list[Tensor | None], needed: Container[Node] | None = None) -> tuple[Tensor | None, ...]:
        # `_grad`, not the `grad` property: the engine fit the gradient to the leaf, so the setter's checks are spent
        variable = self.variable
        if grad_outputs[0] is None or not variable._requires_grad:  # a leaf detach_()ed since the graph was made
            return ()
        if variable._grad is None and not grad_mode.state.grad_enabled:
            grad = _steal(grad_outputs)
            leaf = variable._data
            if not leaf.flags.c_contiguous and grad._data.strides != leaf.strides and variable.layout is strided:
                grad = _in_layout_of(leaf, grad)
            variable._grad = grad
            grad_outputs[0] = grad  # for the node hooks that run after this
            return self._after_accumulate()
        grad = grad_outputs[0]
        if variable._grad is None:
            # with create_graph: recorded as a copy into a new tensor (CopyBackwards), as in PyTorch; a sparse
            # gradient stays sparse
            variable._grad = (
                grad.clone() if grad.is_sparse else Tensor._wrap(np.empty_like(variable._data, grad._data.dtype)).copy_(grad)
            )
        elif variable._grad.is_sparse and not grad.is_sparse:  # sparse + dense is refused; dense + sparse is dense
            variable._grad = grad + variable._grad
        elif grad_mode.state.grad_enabled:
            total = variable._grad + grad
            # the sum keeps .grad's dtype, as PyTorch's in-place accumulation does (where grad_dtype lets them differ)
            variable._grad = total if total._data.dtype == variable._grad._data.dtype else total.to(variable._grad.dtype)
        else:
            variable._grad.add_(grad)
        return self._after_accumulate()

    def _after_accumulate(self) -> tuple[()]:
        variable = self.variable
        for hook in list(variable._post_accumulate_hooks.values()) if variable._post_accumulate_hooks else ():
            if hook(variable) is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        return ()


def _local_refcount() -> int:
    """sys.getrefcount of an object that one local name alone holds, as this module runs.

    2 when interpreted (the name and the call's argument), 1 when compiled (Cython passes arguments borrowed):
    the exclusive-ownership checks below and in the engine count from it, so both paths steal the same buffers.
    """
    probe = object()
    return sys.getrefcount(probe)


LOCAL_REFCOUNT = _local_refcount()


def _in_layout_of(leaf: np.ndarray, grad: Tensor) -> Tensor:
    """grad's values laid out as the leaf is (channels_last...; row-major where the leaf is not dense), as PyTorch
    lays out a leaf's first .grad (np.empty_like keeps a dense layout and makes any other one row-major)."""
    out = np.empty_like(leaf, grad._data.dtype)
    np.copyto(out, grad._data)
    return Tensor._wrap(out)


def _steal(grad_outputs: list[Tensor | None]) -> Tensor:
    """The incoming gradient itself when nothing else can see it, else a copy (PyTorch checks use_count too).

    The engine holds a gradient only in the list handed here; taking it out of the list leaves the
    local name (and getrefcount's argument, when interpreted). Any more means another node's buffer, a hook or the
    caller holds it, and the leaf's .grad must not alias it.
    """
    grad = grad_outputs[0]
    assert grad is not None
    grad_outputs[0] = None
    data = grad._data
    if (
        sys.getrefcount(grad) == LOCAL_REFCOUNT
        and sys.getrefcount(data) == LOCAL_REFCOUNT + 1  # and grad's slot
        and data.flags.writeable
        and data.flags.c_contiguous
        and grad._base is None
    ):
        base = data.base
        if base is None:
            return grad
        # A whole-array view that alone holds its array (a linear layer's weight gradient, transposed back by
        # TBackward0): the array itself is the gradient, as PyTorch's AccumulateGrad keeps that one too.
        if (
            type(base) is np.ndarray
            and sys.getrefcount(base) == LOCAL_REFCOUNT + 1  # the local `base` and data's reference
            and base.base is None
            and base.shape == data.shape
            and base.dtype == data.dtype
            and base.flags.c_contiguous
            and base.flags.writeable
        ):
            return Tensor._wrap(base)
    return grad.clone()


class WrappedNumberVersion(VersionCounter):
    """The version counter of a Python number an op made a 0-d tensor of (PyTorch's wrapped number), and the mark
    of one: saved for backward, it is kept as it is, never packed by saved_tensors_hooks (as in PyTorch)."""

    __slots__ = ()


# The counter every wrapped number starts with, which spares each `x * 0.5` an allocation: nothing can write one in
# place before a node saves it, and then it gets one of its own (`_saved_other` hands it to the user).
_UNSAVED_WRAPPED_NUMBER = WrappedNumberVersion()


def wrapped_number(array: np.ndarray) -> Tensor:
    """A Python number as an op's 0-d operand."""
    number = Tensor._wrap(array)
    number._counter = _UNSAVED_WRAPPED_NUMBER
    return number


class SavedTensor:
    """A tensor kept for backward: what it is, its version at save time, and whether it was freed."""

    __slots__ = (
        "__weakref__",
        "_data",
        "_history",
        "_packed",
        "_tensor",
        "_unpack_hook",
        "dtype",
        "is_leaf",
        "is_output",
        "name",
        "output_nr",
        "released",
        "requires_grad",
        "saved_version",
        "shape",
        "tangent",
        "version_counter",
    )

    def __init__(self, name: str = "", tensor: Tensor | None = None, is_output: bool = False) -> None:
        if tensor is None:  # torch.autograd.SavedTensor(): only the engine (or _make_saved_tensor) makes them
            raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")
        self._capture(name, tensor, is_output)

    def _capture(self, name: str, tensor: Tensor, is_output: bool) -> None:
        """Keep what backward needs of `tensor` (packed by the innermost saved_tensors_hooks, if any). Built-in ops
        call it on `SavedTensor.__new__(SavedTensor)`, as they do NodeBase._begin."""
        if tensor._is_inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
                "in computation tracked by autograd. To work around this, you can make a clone to get a normal "
                "tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
            )
        self.name = name
        self.is_output = is_output
        data = tensor._data
        self.shape: tuple[int, ...] = data.shape  # NumPy's shape and dtype: kept for the diagnostics after release
        self.dtype: np.dtype = data.dtype
        counter = tensor._shared_counter()
        if counter is _UNSAVED_WRAPPED_NUMBER:
            counter = tensor._counter = WrappedNumberVersion()
        self.version_counter = counter
        self.saved_version = counter.value
        self.output_nr = tensor._output_nr
        self.requires_grad = tensor._requires_grad
        self.is_leaf = tensor.grad_fn is None
        self.released = False
        self.tangent: tuple[int, Tensor] | None = None  # a saved output's tangent: (dual level generation, tangent)
        hooks = _hook_stack
        if hooks and type(counter) is not WrappedNumberVersion:
            pack, self._unpack_hook = hooks[-1]
            self._packed = _pack(pack, tensor, counter)
            self._tensor = self._data = None
            # What a packed input's unpacked value is differentiated as: the input itself, as in PyTorch
            self._history = edge_to(tensor) if tensor._requires_grad and not is_output else None
        else:
            self._packed = self._unpack_hook = self._history = None
            # An output is kept as its array alone: keeping the tensor would be a cycle through its grad_fn.
            self._data = data if is_output else None
            self._tensor = None if is_output else tensor

    @property
    def nbytes(self) -> int:
        return prod(self.shape) * self.dtype.itemsize

    def release(self) -> None:
        # the hook may hold state too
        self._tensor = self._data = self._packed = self._unpack_hook = self._history = self.tangent = None
        self.released = True

    def unpack(self, node: Node | None = None) -> Tensor | None:
        """The saved tensor (None for an undefined one); a saved output gets `node` as its grad_fn back."""
        if self.released:
            raise RuntimeError(explain_freed(node, self))
        if self._unpack_hook is not None:
            unpacked = self._unpack_hook(self._packed)
            if not isinstance(unpacked, Tensor):
                raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type {type(unpacked).__name__}")
            if self.is_output and self.requires_grad:
                unpacked = unpacked.detach()._with_history(node, self.output_nr)
            elif self._history is not None and not unpacked._requires_grad:
                unpacked = unpacked.detach()._with_history(*self._history)
            return unpacked
        if self.version_counter.value != self.saved_version:
            raise RuntimeError(explain_version(node, self))
        if self.is_output:
            tensor = wrap_array(self._data)
            tensor._counter = self.version_counter
            if self.requires_grad:
                tensor._with_history(node, self.output_nr)
            if self.tangent is not None and self.tangent[0] == forward_ad.state.generation and forward_ad.state.level >= 0:
                forward_ad.set_tangent(tensor, self.tangent[1])
            return tensor
        tensor = self._tensor
        if not self.is_leaf and tensor.grad_fn is None:  # kept itself, its history is read now: detach_() lost it
            raise RuntimeError(
                "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is not "
                "supported, please use out-of-place `.detach()` instead"
            )
        return tensor

    # -- torch._C._autograd.SavedTensor's Python API ---------------------------
    @property
    def data(self) -> Any:
        """What is kept: the packed object, the saved input itself, or a saved output's data without history."""
        if self._unpack_hook is not None:
            return self._packed
        if self.is_output and self._data is not None:
            alias = wrap_array(self._data)
            alias._counter = self.version_counter
            return alias
        return self._tensor

    @property
    def unpack_hook(self) -> Callable[[Any], Tensor] | None:
        return self._unpack_hook

    def register_hooks(self, *hooks: Any) -> None:
        """Pack the kept tensor with hooks[0] now and restore it with hooks[1] on every unpack, as a
        saved_tensors_hooks would have done when it was saved."""
        if len(hooks) != 2 or not all(callable(h) for h in hooks):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument types are supported: "
                "(self: torch._C._autograd.SavedTensor, arg0: Callable, arg1: Callable) -> None"
            )
        if self._unpack_hook is not None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one pair of "
                "hooks is allowed at a time."
            )
        if self.released:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need "
                "to backward through the graph a second time or if you need to access saved variables after calling "
                "backward."
            )
        tensor = self.data
        if tensor is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        packed = _pack(hooks[0], tensor, self.version_counter)
        if not self.is_output and tensor._requires_grad:  # what the unpacked value is differentiated as
            self._history = edge_to(tensor)
        self._packed, self._unpack_hook = packed, hooks[1]
        self._tensor = self._data = None


def _pack(pack: Callable[[Tensor], Any], tensor: Tensor, counter: VersionCounter) -> Any:
    """pack(tensor), run without recording; a hook that writes its input in place is refused, as in PyTorch."""
    version = counter.value
    with grad_mode.no_grad():
        packed = pack(tensor)
    if counter.value != version:
        raise RuntimeError(
            "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook cannot "
            "be modified by in-place operations as this can lead to unexpected side-effects. Please open an "
            "issue if you need to perform in-place operations on the input to a pack hook."
        )
    return packed


def undefined_saved() -> SavedTensor:
    """The SavedTensor of a None that a custom Function saved: it unpacks to None and takes no hooks."""
    saved = SavedTensor.__new__(SavedTensor)
    saved.name, saved.is_output, saved.released, saved.requires_grad, saved.output_nr = "", False, False, False, 0
    saved.is_leaf = True
    saved.shape, saved.dtype, saved.tangent = (), None, None
    saved._tensor = saved._data = saved._packed = saved._unpack_hook = saved._history = None
    saved.version_counter, saved.saved_version = VersionCounter(), 0
    return saved


# The (pack, unpack) pairs of the saved_tensors_hooks in force, innermost last: a module global, as every saved
# tensor reads it (a class attribute is a lookup per read, compiled).
_hook_stack: list[tuple[Callable[..., Any], Callable[..., Any]]] = []


class saved_tensors_hooks:
    """Pack every tensor saved for backward with pack_hook and restore it with unpack_hook."""

    def __init__(self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Tensor]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        if _hooks_disabled[-1] is not None:
            raise RuntimeError(_hooks_disabled[-1])
        _hook_stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc: object) -> None:
        _hook_stack.pop()


# Why saved_tensors_hooks may not be entered now (None: they may), innermost last: disable_saved_tensors_hooks.
_hooks_disabled: list[str | None] = [None]


def saved_tensors_hooks_disabled_message() -> str | None:
    return _hooks_disabled[-1]


class disable_saved_tensors_hooks:
    """Entering saved_tensors_hooks inside raises RuntimeError(error_message); so does entering this inside them.
    (A decorator too.)"""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        if _hook_stack:
            raise RuntimeError(self.error_message)
        _hooks_disabled.append(self.error_message)

    def __exit__(self, *exc: object) -> None:
        _hooks_disabled.pop()

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def disabled(*args: Any, **kwargs: Any) -> Any:
            with disable_saved_tensors_hooks(self.error_message):
                return func(*args, **kwargs)

        return disabled


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are copied on pack; with one device this only shows the seam works."""

    def __init__(self, pin_memory: bool = False) -> None:
        super().__init__(lambda t: t.detach().clone(), lambda t: t)


def type_name(dtype: Any) -> str:
    """PyTorch's legacy type name ("torch.FloatTensor") of a glassgrad or NumPy dtype."""
    return f"torch.{(dtype if isinstance(dtype, Dtype) else _BY_NUMPY[dtype]).scalar_name}Tensor"


def describe_saved(saved: SavedTensor) -> str:
    return f"[{type_name(saved.dtype)} [{', '.join(map(str, saved.shape))}]]"


def explain_freed(node: Node, saved: SavedTensor | None) -> str:
    return FREED_MESSAGE + seams.explainer.freed(node, saved)


def explain_version(node: Node, saved: SavedTensor) -> str:
    tensor = None if saved.is_output else saved._tensor
    # A saved input is the tensor itself to PyTorch, so its shape is the one it has now (after t_, unsqueeze_, ...).
    what = describe_saved(saved) if tensor is None else f"[{type_name(saved.dtype)} [{', '.join(map(str, tensor.shape))}]]"
    # PyTorch names a saved output's own node, but a saved input's grad_fn as it is now (after the in-place
    # op), and it names the forward op: "Exp" for ExpBackward0, "Cube" for a Function Cube, "Elu1" for EluBackward1.
    producer = node if saved.is_output else tensor.grad_fn if tensor is not None else None
    if producer is not None:
        what += f", which is output {saved.output_nr} of {re.sub(r'Backward(0$|(?=[0-9]+$)|$)', '', producer.name())},"
    message = (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"{what} is at version {saved.version_counter.value}; expected version {saved.saved_version} instead. "
        "Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )
    return message + seams.explainer.version(node, saved)
