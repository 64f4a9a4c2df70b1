"""autograd.Function: user-defined ops whose node is the `ctx` their methods receive."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Container
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import forward_ad, grad_mode
from .graph import FreedBy, Node, SavedTensor
from .inplace import bump_version


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


class BackwardCFunction(Node, FunctionCtx):
    """The node of one Function call; it is also the `ctx` the user's methods see."""

    _function: type[Function]

    def __init__(self, args: tuple[Any, ...]) -> None:
        Node.__init__(self, tuple(a for a in args if isinstance(a, Tensor)))
        self.to_save: tuple[Tensor | None, ...] = ()
        self.saved_for_forward: tuple[Tensor | None, ...] | None = None  # while jvp runs: what saved_tensors gives
        self.dirty_tensors: tuple[Tensor, ...] = ()
        self.non_differentiable: tuple[Tensor, ...] = ()
        self.materialize_grads = True
        # As in PyTorch, one flag and one returned gradient per forward argument, tensor or not.
        self.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        self._tensor_positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
        self._output_meta: list[tuple[Any, Any] | None] = []

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        if self.saved_for_forward is not None:
            return self.saved_for_forward
        return tuple(
            None if s is None else s.unpack(self) if isinstance(s, SavedTensor) else s
            for s in self._saved.get("saved_tensors", ())
        )

    @property
    def num_outputs(self) -> int:
        return len(self._output_meta)

    def saved_tensors_list(self) -> list[SavedTensor]:
        return [s for s in self._saved.get("saved_tensors", ()) if isinstance(s, SavedTensor)]

    def release(self, freed_by: FreedBy) -> None:
        for saved in self.saved_tensors_list():  # kept as one tuple, which Node.release does not look into
            saved.release()
        super().release(freed_by)

    def apply(self, grad_outputs: list[Tensor | None], needed: Container[Node] | None = None) -> tuple[Tensor | None, ...]:
        if self.materialize_grads:
            grad_outputs = [
                Tensor._wrap(np.zeros(meta[0], meta[1].np)) if g is None and meta is not None else g
                for g, meta in zip(grad_outputs, self._output_meta, strict=True)
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
        outputs = _wire_outputs(ctx, tuple(a for a in args if isinstance(a, Tensor)), outputs)
        if forward_ad.state.propagating:
            _forward_tangents(cls, ctx, args, outputs, saved_for_forward)
        return outputs


def _forward_tangents(
    cls: type[Function], ctx: BackwardCFunction, args: tuple[Any, ...], outputs: Any, saved: tuple[Any, ...] | None
) -> None:
    """The outputs' tangents from cls.jvp(ctx, *input tangents), as PyTorch gives them: zeros for a tensor input
    without one, None for an argument that is not a tensor."""
    tangents = [forward_ad.tangent_of(a) if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents):
        return
    grad_inputs = [Tensor._wrap(np.zeros_like(a._data)) if t is None and isinstance(a, Tensor) else t for a, t in zip(args, tangents, strict=True)]
    ctx.saved_for_forward = () if saved is None else saved
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
    for out, tangent in zip(outs, results, strict=True):
        if isinstance(out, Tensor) and isinstance(tangent, Tensor):
            if tangent.shape != out.shape:
                raise RuntimeError(
                    "Trying to set a forward gradient that has a different size than that of the original Tensor, "
                    f"this is not supported. Tensor is of size [{', '.join(map(str, out.shape))}] while the given "
                    f"forward gradient is of size [{', '.join(map(str, tangent.shape))}]."
                )
            forward_ad.set_tangent(out, tangent)


_NOT_OVERRIDDEN = object()


def _wire_outputs(ctx: BackwardCFunction, inputs: tuple[Tensor, ...], outputs: Any) -> Any:
    is_tuple = isinstance(outputs, tuple)
    outs = list(outputs) if is_tuple else [outputs]
    records = grad_mode.state.grad_enabled and any(ctx.needs_input_grad)
    non_diff = {id(t) for t in ctx.non_differentiable}
    dirty = {id(t) for t in ctx.dirty_tensors}
    for t in ctx.dirty_tensors:
        if records and t.grad_fn is None and t._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
        bump_version(t)  # PyTorch counts mark_dirty as the in-place write, even if forward already bumped
    input_ids = {id(t) for t in inputs}
    for i, out in enumerate(outs):
        if not isinstance(out, Tensor):
            ctx._output_meta.append(None)
            continue
        differentiable = id(out) not in non_diff  # decided on the object forward returned, before aliasing
        if id(out) in input_ids and id(out) not in dirty:
            out = outs[i] = out.detach()  # an input returned as is becomes a new alias of it
        ctx._output_meta.append((out.shape, out.dtype))
        if records and differentiable and (out.dtype.is_floating_point or out.dtype.is_complex):
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


def once_differentiable(backward: Callable[..., Any]) -> Callable[..., Any]:
    """Run backward without recording; differentiating its result again raises."""

    @functools.wraps(backward)
    def wrapper(ctx: Any, *grads: Any) -> Any:
        with grad_mode.no_grad():
            result = backward(ctx, *grads)
        if not grad_mode.state.grad_enabled or not any(isinstance(g, Tensor) and g._requires_grad for g in grads):
            return result
        results = result if isinstance(result, tuple) else (result,)
        wrapped = tuple(
            _DelayedError.apply(r, *[g for g in grads if isinstance(g, Tensor)]) if isinstance(r, Tensor) else r
            for r in results
        )
        return wrapped if isinstance(result, tuple) else wrapped[0]

    return wrapper


class _DelayedError(Function):
    @staticmethod
    def forward(ctx: Any, value: Tensor, *grads: Tensor) -> Tensor:
        return value.clone()

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")


class InplaceFunction(Function):
    def __init__(self, inplace: bool = False) -> None:
        self.inplace = inplace


class NestedIOFunction(Function):
    pass
