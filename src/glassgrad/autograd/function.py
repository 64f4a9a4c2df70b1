"""autograd.Function: user-defined ops whose node is the `ctx` their methods receive."""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Container
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import forward_ad, grad_mode
from .graph import FreedBy, Node, NodeBase, SavedTensor, edge_to, explain_freed, undefined_saved
from .inplace import bump_version, check_inplace, mark_custom_function_view, rebase_view


class FunctionCtx:
    """What forward/setup_context may call on ctx (the node implements the rest)."""

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {tensors.index(t)} is not a Variable")
        self.to_save = tensors

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        """Tensors for jvp, where ctx.saved_tensors gives them."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_forward expects all arguments to be tensors; but got {type(t).__name__}")
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors: Tensor) -> None:
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class _Cleared(tuple):  # type: ignore[type-arg]
    """A Function's saved tensors after their one access, with clear_saved_tensors_on_access: empty, and not ()."""


_CLEARED = _Cleared()


class BackwardCFunction(NodeBase, FunctionCtx):
    """The node of one Function call; it is also the `ctx` the user's methods see."""

    _function: type[Function]

    def __init__(self, args: tuple[Any, ...]) -> None:
        NodeBase.__init__(self, tuple(a for a in args if isinstance(a, Tensor)))
        self.to_save: tuple[Tensor | None, ...] = ()
        self.saved_for_forward: tuple[Tensor | None, ...] | None = None  # while jvp runs: what saved_tensors gives
        self.dirty_tensors: tuple[Tensor, ...] = ()
        self.non_differentiable: tuple[Tensor, ...] = ()
        self.materialize_grads = True
        # As in PyTorch, one flag and one returned gradient per forward argument, tensor or not.
        self.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        self._tensor_positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
        self._output_meta: list[tuple[Any, Any] | None] = []
        self._non_differentiable_outputs: list[int] = []

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        if self.saved_for_forward is not None:
            return self.saved_for_forward
        saved = self._saved.get("saved_tensors", ())
        if self._function.clear_saved_tensors_on_access:
            if saved is _CLEARED:
                raise RuntimeError(
                    "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set on the "
                    "autograd.Function. Either access saved_tensors only once, or set clear_saved_tensors_on_access=False."
                )
            self._saved["saved_tensors"] = _CLEARED  # the caller's references are then the only ones
        return tuple(None if s is None else s.unpack(self) if isinstance(s, SavedTensor) else s for s in saved)

    @property
    def saved_variables(self) -> tuple[Tensor | None, ...]:
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    @property
    def _raw_saved_tensors(self) -> tuple[SavedTensor, ...]:
        """The SavedTensor objects themselves (a saved None is an undefined one), as PyTorch's node gives them."""
        saved = self._saved.get("saved_tensors", ())
        if any(isinstance(s, SavedTensor) and s.released for s in saved):
            raise RuntimeError(explain_freed(self, None))
        return tuple(undefined_saved() if s is None else s for s in saved)

    @property
    def num_outputs(self) -> int:
        return len(self._output_meta)

    def saved_tensors_list(self) -> list[SavedTensor]:
        return [s for s in self._saved.get("saved_tensors", ()) if isinstance(s, SavedTensor)]

    def release(self, freed_by: FreedBy) -> None:
        for saved in self.saved_tensors_list():  # kept as one tuple, which NodeBase.release does not look into
            saved.release()
        super().release(freed_by)

    def apply(self, grad_outputs: list[Tensor | None], needed: Container[Node] | None = None) -> tuple[Tensor | None, ...]:
        if self.materialize_grads:
            # PyTorch's private switch: the gradients of outputs marked non-differentiable may stay None
            skip = () if getattr(self, "_materialize_non_diff_grads", True) else self._non_differentiable_outputs
            grad_outputs = [
                Tensor._wrap(np.zeros(meta[0], meta[1].np)) if g is None and meta is not None and i not in skip else g
                for i, (g, meta) in enumerate(zip(grad_outputs, self._output_meta, strict=True))
            ]
        result = _user_backward(self._function)(self, *grad_outputs)
        grads = result if isinstance(result, tuple) else (result,)
        expected = len(self.needs_input_grad)
        if len(grads) > expected and all(g is None for g in grads[expected:]):
            grads = grads[:expected]
        if len(grads) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected {expected}, got {len(grads)})"
            )
        for i, g in enumerate(grads):
            if g is None:
                continue
            if i not in self._tensor_positions:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at position {i + 1}, but the "
                    "corresponding forward input was not a Variable"
                )
            if not isinstance(g, Tensor):  # checked here, where PyTorch checks it, before the engine reads it
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
        return tuple(grads[i] if self.needs_input_grad[i] else None for i in self._tensor_positions)


def _user_backward(function: type[Function]) -> Callable[..., Any]:
    """The Function's backward, or its vjp (the other name PyTorch takes for it)."""
    backward, vjp = function.backward, function.vjp
    if vjp is Function.vjp:
        return backward
    if backward is not Function.backward:
        raise RuntimeError(
            "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should only implement "
            "one of them."
        )
    return vjp


class _FunctionMeta(type):
    def __init__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> None:
        super().__init__(name, bases, namespace)
        cls._backward_cls = type(f"{name}Backward", (BackwardCFunction,), {"_function": cls})


class Function(metaclass=_FunctionMeta):
    """Subclass with static forward(ctx, *args) and backward(ctx, *grads), or forward(*args) plus setup_context."""

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        return _NOT_OVERRIDDEN

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use it with "
            "backward mode AD."
        )

    vjp = backward
    clear_saved_tensors_on_access = False  # True: ctx.saved_tensors lets go of them on its one allowed access

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style autograd "
            "function with static forward method. (Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
        )

    # PyTorch's switches for running a Function under torch.func.vmap. glassgrad's vmap batches a Function by running
    # it once per batch element whatever they say; they are here for code that reads or sets them.
    generate_vmap_rule = False

    @staticmethod
    def vmap(info: Any, in_dims: Any, *args: Any) -> Any:
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap staticmethod or set "
            "generate_vmap_rule=True."
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        uses_setup_context = cls.setup_context is not Function.setup_context
        if uses_setup_context:  # setup_context sees every argument of forward, its defaults included, as in PyTorch
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        ctx = cls._backward_cls(args)
        # forward computes with primals: its tangents are jvp's to give
        with grad_mode.no_grad(), forward_ad.computing_tangents():
            outputs = cls.forward(*args, **kwargs) if uses_setup_context else cls.forward(ctx, *args, **kwargs)
            if uses_setup_context:
                cls.setup_context(ctx, args, outputs)
        saved_for_forward, ctx.saved_for_forward = ctx.saved_for_forward, None
        returned = outputs if isinstance(outputs, tuple) else (outputs,)  # before wiring: which are inputs or views
        try:
            outputs = _wire_outputs(ctx, tuple(a for a in args if isinstance(a, Tensor)), outputs)
            if forward_ad.state.propagating:
                _forward_tangents(cls, ctx, args, outputs, returned, saved_for_forward)
        finally:  # they hold outputs, whose grad_fn is ctx: kept, they would be a cycle only the collector frees
            ctx.dirty_tensors = ctx.non_differentiable = ()
        return outputs


def _forward_tangents(
    cls: type[Function], ctx: BackwardCFunction, args: tuple[Any, ...], outputs: Any, returned: tuple[Any, ...],
    saved: tuple[Any, ...] | None,
) -> None:
    """The outputs' tangents from cls.jvp(ctx, *input tangents), as PyTorch gives them: zeros for a tensor input
    without one, None for an argument that is not a differentiable tensor."""
    tangents = [forward_ad.tangent_of(a) if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents):
        return
    grad_inputs = [
        Tensor._wrap(np.zeros_like(a._data)) if t is None and _differentiable_type(a) else t
        for a, t in zip(args, tangents, strict=True)
    ]
    ctx.saved_for_forward = () if saved is None else saved
    versions = [g._version_counter.value if isinstance(g, Tensor) else None for g in grad_inputs]
    try:
        with forward_ad.computing_tangents():
            result = cls.jvp(ctx, *grad_inputs)
    finally:
        ctx.saved_for_forward = None
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    results = result if isinstance(result, tuple) else (result,)
    if len(results) != len(outs):
        raise RuntimeError(
            f"Function's jvp returned an invalid number of forward gradients (expected {len(outs)} but got {len(results)})"
        )
    non_differentiable = {id(t) for t in ctx.non_differentiable}
    for i, (out, raw, tangent) in enumerate(zip(outs, returned, results, strict=True)):
        if not isinstance(out, Tensor) or tangent is None:
            continue
        if id(raw) in non_differentiable or not _differentiable_type(out):
            raise RuntimeError(
                f"Function's jvp returned a gradient at position {i}, but  the corresponding forward output is not a "
                "differentiable Tensor.You should return None at that position instead."
            )
        if isinstance(tangent, Tensor):
            _check_tangent_aliasing(ctx, args, grad_inputs, versions, raw, tangent)
            if tangent.shape != out.shape:
                raise RuntimeError(
                    "Trying to set a forward gradient that has a different size than that of the original Tensor, "
                    f"this is not supported. Tensor is of size [{', '.join(map(str, out.shape))}] while the given "
                    f"forward gradient is of size [{', '.join(map(str, tangent.shape))}]."
                )
            forward_ad.set_tangent(out, tangent)


def _root(t: Tensor) -> Tensor:
    return t._base if t._base is not None else t


def _differentiable_type(t: Any) -> bool:
    return isinstance(t, Tensor) and (t.dtype.is_floating_point or t.dtype.is_complex)


def _check_tangent_aliasing(
    ctx: BackwardCFunction, args: tuple[Any, ...], grad_inputs: list[Any], versions: list[int | None], raw: Tensor,
    tangent: Tensor,
) -> None:
    """PyTorch's rules for the tangent of an output that aliases an input: an input modified in place gets its own
    tangent modified in place (the same tensor, its version moved on during jvp); a view of an input (or the input
    itself, returned as is) gets a view of that input's tangent."""
    if any(raw is t for t in ctx.dirty_tensors):
        if not any(
            raw is a and tangent is g and g._version_counter.value != v
            for a, g, v in zip(args, grad_inputs, versions, strict=True)
        ):
            raise RuntimeError(
                "An inplace custom Function is not modifying the forward mode gradients inplace. If the forward is "
                "modifying an input inplace, then the jvp function must modify the corresponding gradient inplace."
            )
        return
    def aliases(a: Any) -> bool:  # raw is a, or a view of a's storage
        return isinstance(a, Tensor) and (a is raw or (raw._base is not None and _root(a) is _root(raw)))

    source = next((i for i, a in enumerate(args) if aliases(a)), None)
    if source is None:
        return
    if tangent._base is None:
        raise RuntimeError(
            "A custom Function's forward is returning a view (or an input as-is) but the jvp is not returning a view."
        )
    given = grad_inputs[source]
    if given is None or tangent._base is _root(given):
        return
    if given._base is not None:
        raise RuntimeError(
            "A custom Function is returning a view but the jvp is not returning a view of the same base as the given "
            "grad input."
        )
    raise RuntimeError("A custom Function is returning a view but the jvp is not returning a view of the given grad input.")


_NOT_OVERRIDDEN = object()
_NOT_AN_INPUT = (
    "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been mutated should be "
    "passed to ctx.mark_dirty()."
)


def _wire_outputs(ctx: BackwardCFunction, inputs: tuple[Tensor, ...], outputs: Any) -> Any:
    is_tuple = isinstance(outputs, tuple)
    outs = list(outputs) if is_tuple else [outputs]
    records = grad_mode.state.grad_enabled and any(ctx.needs_input_grad)
    non_diff = {id(t) for t in ctx.non_differentiable}
    dirty = {id(t) for t in ctx.dirty_tensors}
    input_ids = {id(t) for t in inputs}
    _check_dirty(ctx, input_ids, outs, records)
    for i, out in enumerate(outs):
        if not isinstance(out, Tensor):
            ctx._output_meta.append(None)
            continue
        differentiable = id(out) not in non_diff  # decided on the object forward returned, before aliasing
        if id(out) in input_ids and id(out) not in dirty:
            with grad_mode.no_grad():  # an input returned as is becomes a view of it, as in PyTorch
                out = outs[i] = out.view_as(out)
        if out._base is not None and id(out) not in dirty:
            mark_custom_function_view(out)  # PyTorch forbids writing it in place in grad mode
        ctx._output_meta.append((out.shape, out.dtype))
        if not differentiable:
            ctx._non_differentiable_outputs.append(i)
        if records and differentiable and (out.dtype.is_floating_point or out.dtype.is_complex):
            if id(out) in dirty and out._base is not None and inputs[0] is out:
                rebase_view(out, ctx)  # the base's history moves onto a CopySlices around ctx, as in PyTorch
            else:
                out._with_history(ctx, i)
        elif not differentiable:
            out._requires_grad = False
    try:
        if records:
            output_ids = {id(o): i for i, o in enumerate(outs) if isinstance(o, Tensor)}
            ctx._saved["saved_tensors"] = tuple(
                None if t is None else SavedTensor(f"saved_tensors[{k}]", t, id(t) in output_ids)
                for k, t in enumerate(ctx.to_save)
            )
        else:
            ctx._saved["saved_tensors"] = ctx.to_save
    finally:  # even when a pack hook raises (a checkpoint stopping its recomputation early): the outputs to save
        ctx.to_save = ()  # would otherwise hold ctx through their grad_fn, a cycle only the collector frees
    return tuple(outs) if is_tuple else outs[0]


def _check_dirty(ctx: BackwardCFunction, input_ids: set[int], outs: list[Any], records: bool) -> None:
    """PyTorch's checks on the tensors forward marked dirty, and their version bump (mark_dirty is the write)."""
    output_ids = {id(o) for o in outs if isinstance(o, Tensor)}
    if any(id(t) not in output_ids for t in ctx.dirty_tensors):
        raise RuntimeError(
            "Some elements marked as dirty during the forward method were not returned as output. The inputs that "
            "are modified inplace must all be outputs of the Function."
        )
    for t in ctx.dirty_tensors:
        if id(t) not in input_ids:  # PyTorch warns, and refuses a view (it would rebase the view's base)
            if t._base is not None:
                raise RuntimeError(_NOT_AN_INPUT)
            warnings.warn(_NOT_AN_INPUT, UserWarning, stacklevel=4)
        if records and t._base is not None:
            check_inplace(t)  # a view written in place: the checks of a built-in in-place op on it
            if len(output_ids) > 1:
                raise RuntimeError(_DIRTY_VIEW_OF_MANY)
        elif records and t.grad_fn is None and t._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
        bump_version(t)


_DIRTY_VIEW_OF_MANY = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot return more "
    "than one Tensor. This is not supported by the current autograd engine. You should either make sure the input is "
    "not a view (using .clone() for example) or make your Function only return one Tensor (potentially splitting it "
    "into two Functions: one doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do this change."
)


def once_differentiable(backward: Callable[..., Any]) -> Callable[..., Any]:
    """Run backward without recording; differentiating its result again raises."""

    @functools.wraps(backward)
    def wrapper(ctx: Any, *grads: Any) -> Any:
        with grad_mode.no_grad():
            result = backward(ctx, *grads)
        if not grad_mode.state.grad_enabled or not any(isinstance(g, Tensor) and g._requires_grad for g in grads):
            return result
        results = result if isinstance(result, tuple) else (result,)
        wrapped = Error.wrap(results)
        return wrapped if isinstance(result, tuple) else wrapped[0]

    return wrapper


class Error(NodeBase):
    """PyTorch's DelayedError node (its type is named Error): what a once_differentiable backward returned, made to
    require grad through it, so that differentiating it again raises. Its edges lead to new leaves, one per value."""

    __slots__ = ("_count",)

    @classmethod
    def wrap(cls, values: tuple[Any, ...]) -> tuple[Any, ...]:
        node = cls()
        node._count = len(values)
        leaves = [v.detach().requires_grad_() if isinstance(v, Tensor) else None for v in values]
        node.next_functions = tuple((None, 0) if leaf is None else edge_to(leaf) for leaf in leaves)
        node._input_meta = tuple(
            meta for leaf in leaves for meta in ((None, None) if leaf is None else (leaf._data.shape, leaf._data.dtype))
        )
        return tuple(
            Tensor._wrap(v._data)._with_history(node, i) if isinstance(v, Tensor) else v for i, v in enumerate(values)
        )

    @property
    def num_outputs(self) -> int:
        return self._count

    def apply(self, grad_outputs: list[Tensor | None], needed: Container[Node] | None = None) -> tuple[Tensor | None, ...]:
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")


class InplaceFunction(Function):
    def __init__(self, inplace: bool = False) -> None:
        self.inplace = inplace


class NestedIOFunction(Function):
    pass
