"""The derivative table: one entry per built-in op.

An entry names the node class PyTorch shows (`MulBackward0`), the op's inputs,
and one formula per differentiable input. A formula's parameters after `grad`
name what it needs: an input (`self`, `other`), the op's `result`, or an
attribute the op recorded (`dim`, `self_shape`). As in PyTorch's
derivatives.yaml, a node saves exactly what the formulas of the inputs that
require grad need, and nothing else; tensors among those become SavedTensor
objects, everything else is kept as a plain value.

Formulas are written with glassgrad ops, so with create_graph=True they
record a graph of their own and higher derivatives come for free.

Complex results follow PyTorch's convention: a formula maps the conjugate
Wirtinger gradient of the output to that of each input, and an input that is
real gets the real part (PyTorch's handle_r_to_c). A formula written for real
tensors holds for complex ones only when the op is linear and its formula uses
no input values (LINEAR below); the others need an entry of their own
(`for_complex`), and an op with neither refuses to record a complex result
rather than give a wrong gradient.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import Any

import numpy as np

from ..autograd import grad_mode
from ..autograd.graph import Node, SavedTensor
from ..tensor import Tensor

Formula = Callable[..., Any]


def _parameters(formula: Formula) -> tuple[str, ...]:
    """A formula's parameter names (read from its code: `inspect` is too slow to import for this)."""
    code = formula.__code__
    return code.co_varnames[: code.co_argcount]


class Derivative:
    """One row of the table; `record` turns a forward result into a graph node when needed."""

    def __init__(self, name: str, inputs: tuple[str, ...], formulas: dict[str, Formula], complex: bool = False) -> None:
        unknown = set(formulas) - set(inputs)
        assert not unknown, f"{name}: formulas for unknown inputs {unknown}"
        self.name = name
        self.inputs = inputs
        self.formulas = formulas
        per_input = tuple(formulas.get(i) for i in inputs)
        self.needs = tuple(_parameters(f)[1:] if f is not None else () for f in per_input)
        self.rows = tuple(zip(per_input, self.needs, strict=True))  # (formula, needs) per input: what apply walks
        self._plans: dict[tuple[bool, ...], tuple[tuple[str, int], ...]] = {}
        self.node_class = type(name, (ComplexOpNode if complex else OpNode,), {"__slots__": (), "derivative": self})
        self.complex: Derivative | None = self if complex else None  # the entry a complex result records with

    def saves(self, requires: tuple[bool, ...]) -> tuple[str, ...]:
        """Names saved when the inputs' requires_grad flags are `requires`."""
        wanted: dict[str, None] = {}
        for needed, needs in zip(requires, self.needs, strict=True):
            if needed:
                wanted.update(dict.fromkeys(needs))
        return tuple(wanted)

    def _plan(self, requires: tuple[bool, ...]) -> tuple[tuple[str, int], ...]:
        """What to save for this requires_grad mask: (name, input index), the index _RESULT or _ATTRIBUTE otherwise."""
        plan = self._plans.get(requires)
        if plan is None:
            plan = self._plans[requires] = tuple(
                (name, _RESULT if name == "result" else self.inputs.index(name) if name in self.inputs else _ATTRIBUTE)
                for name in self.saves(requires)
            )
        return plan

    def record(self, out: Any, inputs: tuple[Tensor, ...], **attrs: Any) -> Tensor:
        """Wrap the forward array `out`; record a node if grad mode is on and an input requires grad."""
        result = Tensor._wrap(out)
        kind = result._data.dtype.kind
        if grad_mode.state.grad_enabled and (kind == "f" or kind == "c"):  # integer and bool results end the graph
            for t in inputs:
                if t._requires_grad:
                    (self if kind == "f" else self.for_complex())._record_node(result, inputs, attrs)
                    break
        return result

    def for_complex(self) -> Derivative:
        """The entry that records this op's complex results, or PyTorch-shaped refusal where glassgrad has none."""
        if self.complex is None:
            if self.name not in LINEAR:
                raise no_complex_derivative(self.name)
            self.complex = Derivative(self.name, self.inputs, self.formulas, complex=True)
        return self.complex

    def _record_node(self, result: Tensor, inputs: tuple[Tensor, ...], attrs: dict[str, Any]) -> None:
        # A recorded op's only input requires grad. Most ops have one or two inputs: no comprehension for them.
        count = len(inputs)
        if count == 1:
            requires = _ONLY_INPUT
        elif count == 2:
            requires = (inputs[0]._requires_grad, inputs[1]._requires_grad)
        else:
            requires = tuple([t._requires_grad for t in inputs])
        node = self.node_class(inputs)
        result.grad_fn = node
        result._requires_grad = True
        saved = node._saved
        plan = self._plans.get(requires)
        if plan is None:  # not `or`: an op that saves nothing has an empty plan, and that is an answer too
            plan = self._plan(requires)
        for name, index in plan:
            if index == _RESULT:
                saved[name] = SavedTensor(name, result, True)
                continue
            value = attrs[name] if index == _ATTRIBUTE or name in attrs else inputs[index]  # an attribute wins (clamp's max=None)
            saved[name] = SavedTensor(name, value, False) if isinstance(value, Tensor) else value


_RESULT, _ATTRIBUTE = -1, -2
_ONLY_INPUT = (True,)


class OpNode(Node):
    """A node of a built-in op; its class is made per table entry (`MulBackward0`)."""

    __slots__ = ()
    derivative: Derivative
    _made_inside = 2  # Derivative._record_node and Derivative.record

    def apply(self, grad_outputs: list[Tensor | None], needed: Container[Node] | None = None) -> tuple[Tensor | None, ...]:
        grad = grad_outputs[0]
        derivative = self.derivative
        if grad is None:
            return (None,) * len(derivative.inputs)
        saved = self._saved
        grads: list[Tensor | None] = []
        # An input that does not require grad has no edge (child None). No strict=: zip parses any keyword
        # through a dict, 0.2 us per node; the rows and the edges are the op's inputs, so they match anyway.
        for (formula, needs), (child, _) in zip(derivative.rows, self.next_functions):  # noqa: B905
            if child is None or formula is None or (needed is not None and child not in needed):
                grads.append(None)
            elif needs:
                args = []
                for name in needs:
                    value = saved[name]
                    args.append(value.unpack(self) if type(value) is SavedTensor else value)
                grads.append(formula(grad, *args))
            else:
                grads.append(formula(grad))
        return tuple(grads)


def no_complex_derivative(name: str) -> NotImplementedError:
    return NotImplementedError(
        f"{name}: glassgrad has no derivative of this op for complex tensors yet. Differentiate through "
        "torch.view_as_real (or .real and .imag) instead, or run the op under torch.no_grad()."
    )


class ComplexOpNode(OpNode):
    """A node whose output is complex, or whose input is: a real input takes the real part of its gradient
    (contiguous, as a gradient is, rather than a strided view holding the complex one)."""

    __slots__ = ()

    def apply(self, grad_outputs: list[Tensor | None], needed: Container[Node] | None = None) -> tuple[Tensor | None, ...]:
        return _real_parts_for_real_inputs(self, OpNode.apply(self, grad_outputs, needed))


def _real_parts_for_real_inputs(node: Node, grads: tuple[Tensor | None, ...]) -> tuple[Tensor | None, ...]:
    return tuple(
        g.real.contiguous() if g is not None and meta is not None and meta[1].kind != "c" and g._data.dtype.kind == "c"
        else g
        for g, meta in zip(grads, node._input_meta, strict=True)
    )


def derivative(name: str, inputs: tuple[str, ...] = ("self",), **formulas: Formula) -> Derivative:
    return Derivative(name, inputs, formulas)


def complex_derivative(name: str, inputs: tuple[str, ...] = ("self",), **formulas: Formula) -> Derivative:
    """An entry whose formulas hold for complex tensors (and real ones) as written."""
    return Derivative(name, inputs, formulas, complex=True)


def for_complex(entry: Derivative, **formulas: Formula) -> None:
    """Give a real op's entry the formulas its complex results record with (PyTorch's, with their conjugates)."""
    entry.complex = complex_derivative(entry.name, entry.inputs, **formulas)


# Ops linear in their inputs whose formulas use no input values: they hold for complex tensors as written.
LINEAR = frozenset({
    "AddBackward0", "SubBackward0", "RsubBackward1", "NegBackward0", "ToCopyBackward0", "CloneBackward0",
    "ViewBackward0", "UnsafeViewBackward0", "TransposeBackward0", "PermuteBackward0", "TBackward0", "ExpandBackward0",
    "UnsqueezeBackward0", "SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2", "CatBackward0", "StackBackward0",
    "SliceBackward0", "SelectBackward0", "SplitBackward0", "SplitWithSizesBackward0", "UnbindBackward0",
    "SliceBackwardBackward0", "AliasBackward0", "IndexBackward0", "IndexScatterBackward0", "BasicScatterBackward0",
    "SumBackward0", "SumBackward1", "MeanBackward0", "MeanBackward1", "CumsumBackward0", "ConstantPadNdBackward0", "RollBackward0",
    "FlipBackward0", "RepeatBackward0", "WhereBackward0", "CopyBackwards", "ZeroBackward0", "FillBackward2", "FillBackward3",
})


# -- ops with several differentiable outputs (decompositions) ---------------------------------
class _MultiOutputNode(OpNode):
    __slots__ = ()

    @property
    def num_outputs(self) -> int:
        return len(self.derivative.outputs)  # type: ignore[attr-defined]

    def apply(self, grad_outputs: list[Tensor | None], needed: Container[Node] | None = None) -> tuple[Tensor | None, ...]:
        if all(g is None for g in grad_outputs):
            return (None,) * len(self.derivative.inputs)
        return OpNode.apply(self, [tuple(grad_outputs)], needed)  # type: ignore[list-item]


class _ComplexMultiOutputNode(_MultiOutputNode):
    __slots__ = ()

    def apply(self, grad_outputs: list[Tensor | None], needed: Container[Node] | None = None) -> tuple[Tensor | None, ...]:
        return _real_parts_for_real_inputs(self, _MultiOutputNode.apply(self, grad_outputs, needed))


class MultiOutput(Derivative):
    """A table entry whose formulas take the tuple of output gradients and may name outputs to save; with
    complex=True its formulas hold for complex outputs (and real inputs take the real part of their gradient)."""

    def __init__(self, name: str, inputs: tuple[str, ...], outputs: tuple[str, ...], /, complex: bool = False,
                 **formulas: Callable[..., Any]) -> None:
        super().__init__(name, inputs, formulas)
        self.outputs = outputs
        self.complex_outputs = complex
        base = _ComplexMultiOutputNode if complex else _MultiOutputNode
        self.node_class = type(name, (base,), {"__slots__": (), "derivative": self})

    def _differentiable(self, result: Tensor) -> bool:
        return result.dtype.is_floating_point or (self.complex_outputs and result.dtype.is_complex)

    def record_all(self, outs: Sequence[np.ndarray], inputs: tuple[Tensor, ...], **attrs: Any) -> tuple[Tensor, ...]:
        results = tuple(Tensor._wrap(np.asarray(o)) for o in outs)
        requires = tuple(t._requires_grad for t in inputs)
        if not grad_mode.state.grad_enabled or True not in requires or not self._differentiable(results[0]):
            if results[0].dtype.is_complex and grad_mode.state.grad_enabled and True in requires:
                raise no_complex_derivative(self.name)  # rather than drop the graph
            return results
        node = self.node_class(inputs)
        for i, r in enumerate(results):
            if self._differentiable(r):
                r._with_history(node, i)
        for name in self.saves(requires):
            if name in self.outputs:
                value: Any = results[self.outputs.index(name)]
            else:
                value = attrs[name] if name in attrs else inputs[self.inputs.index(name)]
            node._saved[name] = SavedTensor(name, value, name in self.outputs) if isinstance(value, Tensor) else value
        return results
