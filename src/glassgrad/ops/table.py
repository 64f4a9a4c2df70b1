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

Forward mode (the JVP column) follows derivatives.yaml's idea: most entries need no rule of their own. An
entry marked AUTO_ELEMENT_WISE gets its JVP by applying its VJP formulas to the tangents (PyTorch's
auto_element_wise); an entry may give an explicit `jvp` formula whose parameters name the inputs' tangents
(`self_t`, `other_t`) besides what a VJP formula may name; every other entry gets the JVP by transposing its
VJP (the VJP is linear in `grad` and differentiable: J v = d/du <vjp(u), v>), so an entry added without a
thought for forward mode has it anyway. The ops of a tangent rule run with tangent propagation off (they
compute with primals) and, in grad mode, record as any op does: forward-over-reverse and reverse-over-forward
both work.

Complex results follow PyTorch's convention: a formula maps the conjugate
Wirtinger gradient of the output to that of each input, and an input that is
real gets the real part (PyTorch's handle_r_to_c). A formula written for real
tensors holds for complex ones when the op is linear and its formula uses no
input values (LINEAR below). A holomorphic elementwise op (HOLOMORPHIC) gets
its complex formula from its real one by one rule: grad * conj(f'(z)). The
others need an entry of their own (`for_complex`), and an op with none of
these refuses to record a complex result rather than give a wrong gradient.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import Any

import numpy as np

from .. import _sites as sites
from .._dtype import is_floating, is_inexact
from ..autograd import grad_mode
from ..autograd.forward_ad import computing_tangents, set_tangent, tangent_of
from ..autograd.forward_ad import state as forward_state
from ..autograd.grad_mode import state as mode_state  # read by every op: one lookup fewer than grad_mode.state
from ..autograd.grad_mode import usage as mode_usage
from ..autograd.graph import Node, NodeBase, SavedTensor, saved_attributes
from ..tensor import Tensor, wrap_array

Formula = Callable[..., Any]


def _parameters(formula: Formula) -> tuple[str, ...]:
    """A formula's parameter names (read from its code: `inspect` is too slow to import for this)."""
    code = formula.__code__
    return code.co_varnames[: code.co_argcount]


class Derivative:
    """One row of the table; `record` turns a forward result into a graph node when needed."""

    def __init__(
        self, name: str, inputs: tuple[str, ...], formulas: dict[str, Formula], complex: bool = False, jvp: Any = None
    ) -> None:
        unknown = set(formulas) - set(inputs)
        assert not unknown, f"{name}: formulas for unknown inputs {unknown}"
        self.name = name
        self.inputs = inputs
        self.formulas = formulas
        per_input = tuple(formulas.get(i) for i in inputs)
        self.needs = tuple(_parameters(f)[1:] if f is not None else () for f in per_input)
        self.rows = tuple(zip(per_input, self.needs, strict=True))  # (formula, needs) per input: what apply walks
        needed = [name for needs in self.needs for name in needs]
        self.shared = len(needed) != len(set(needed))  # a name two formulas need: apply unpacks it once
        self._plans: dict[tuple[bool, ...], tuple[tuple[str, int], ...]] = {}
        self.node_class = self._node_class(ComplexOpNode if complex else OpNode)
        self.complex: Derivative | None = self if complex else None  # the entry a complex result records with
        self.jvp: Formula | str | None = jvp  # an explicit rule, AUTO_ELEMENT_WISE, or None: transpose the VJP
        self.jvp_needs = _parameters(jvp) if callable(jvp) else ()

    def _node_class(self, base: type[OpNode]) -> type[OpNode]:
        """The class of this op's nodes (`MulBackward0`), with PyTorch's `_saved_<name>` for what it may save."""
        names = dict.fromkeys(name for needs in self.needs for name in needs)
        return type(self.name, (base,), {"__slots__": (), "derivative": self, **saved_attributes(names)})

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
        return self._record(out, inputs, attrs)

    def record_onto(self, result: Tensor, inputs: tuple[Tensor, ...], **attrs: Any) -> Tensor:
        """`record` for a result the op built itself (a sparse tensor, which `record` would wrap as a dense one)."""
        kind = result._data.dtype.kind
        if kind == "f" or kind == "c":
            self._join_graph(result, inputs, attrs, kind == "c")
        return result

    def _record(self, out: Any, inputs: tuple[Tensor, ...], attrs: dict[str, Any]) -> Tensor:
        result = wrap_array(out)
        kind = result._data.dtype.kind
        if kind == "f" or kind == "c" or is_inexact(result._data.dtype):  # integer and bool results end the graph
            self._join_graph(result, inputs, attrs, kind == "c")
        return result

    def _record_real(self, out: np.ndarray, inputs: tuple[Tensor, ...], attrs: dict[str, Any]) -> Tensor:
        """`_record` for an array its caller knows to be real floating point (the elementwise ops' hot paths): the
        dtype is not read again."""
        result = wrap_array(out)
        self._join_graph(result, inputs, attrs, False)
        return result

    def _join_graph(self, result: Tensor, inputs: tuple[Tensor, ...], attrs: dict[str, Any], is_complex: bool) -> None:
        # While no thread has grad mode off, this one has it on: a set's size, where reading the mode is a lookup
        if not mode_usage.grad_disabled or mode_state.grad_enabled:
            for t in inputs:
                if t._requires_grad:
                    if mode_usage.inference and _all_inference(inputs):
                        break
                    entry = self.for_complex() if is_complex else self
                    entry._record_node(result, inputs, attrs)
                    break
        if forward_state.propagating:
            self._record_tangent(result, inputs, attrs)

    def _record_tangent(self, result: Tensor, inputs: tuple[Tensor, ...], attrs: dict[str, Any]) -> None:
        """Give the result its tangent, when an input has one."""
        tangents = [tangent_of(t) for t in inputs]
        if any(t is not None for t in tangents):
            entry = self if is_floating(result._data.dtype) else self.for_complex()
            tangent = entry.tangent(result, inputs, tangents, attrs)
            if tangent._data.dtype != result._data.dtype:  # a rule computing in its inputs' precision
                with computing_tangents():
                    tangent = tangent.to(result.dtype)
            set_tangent(result, tangent)
            keep_tangent_of_saved_result(result, tangent)

    def tangent(self, result: Tensor, inputs: tuple[Tensor, ...], tangents: list[Tensor | None], attrs: dict[str, Any]) -> Tensor:
        """The result's tangent from the inputs' (None: no tangent), by the entry's JVP rule."""
        if isinstance(self.jvp, NoForwardAD):
            raise self.jvp.error()
        with computing_tangents():
            if callable(self.jvp):
                values = self._values(self.jvp_needs, (result,), inputs, attrs, tangents)
                return self.jvp(*values)
            if self.jvp == AUTO_ELEMENT_WISE and is_floating(result._data.dtype):
                return _sum_terms(
                    formula(expand_to(t, result), *self._values(needs, (result,), inputs, attrs))
                    for (formula, needs), t in zip(self.rows, tangents, strict=True)
                    if formula is not None and t is not None
                )
            return transposed_jvp(self, (result,), inputs, tangents, attrs)[0]

    def _values(
        self, names: Sequence[str], results: tuple[Tensor, ...], inputs: tuple[Tensor, ...], attrs: dict[str, Any],
        tangents: list[Tensor | None] | None = None,
    ) -> list[Any]:
        """What a formula's parameters name, taken from the forward call (as `_record_node` saves them)."""
        outputs: tuple[str, ...] = getattr(self, "outputs", ("result",))
        values = []
        for name in names:
            if name in attrs:
                values.append(attrs[name])
            elif name in outputs:
                values.append(results[outputs.index(name)])
            elif name in self.inputs:
                values.append(inputs[self.inputs.index(name)])
            elif tangents is not None and name.endswith("_t") and name[:-2] in self.inputs:
                index = self.inputs.index(name[:-2])
                tangent = tangents[index]
                values.append(tangent if tangent is not None else _zeros_like(inputs[index]))
            else:  # the op left out an attribute because no input required grad: a rule cannot run without it
                raise forward_ad_unsupported(_op_name(self.name))
        return values

    def for_complex(self) -> Derivative:
        """The entry that records this op's complex results, or PyTorch-shaped refusal where glassgrad has none."""
        if self.complex is None:
            if self.name in LINEAR:
                formulas = self.formulas
            elif self.name in HOLOMORPHIC:
                formulas = {name: ConjugatedFormula(f) for name, f in self.formulas.items()}
            else:
                raise no_complex_derivative(self.name)
            self.complex = Derivative(self.name, self.inputs, formulas, complex=True)
        return self.complex

    def _record_node(self, result: Tensor, inputs: tuple[Tensor, ...], attrs: dict[str, Any]) -> None:
        # A recorded op's only input requires grad. Most ops have one or two inputs: no comprehension for them.
        count = len(inputs)
        if count == 1:
            requires = _ONLY_INPUT
        elif count == 2:
            first, second = inputs  # names table.pxd types: their fields are struct members
            requires = (first._requires_grad, second._requires_grad)
        else:
            requires = tuple([t._requires_grad for t in inputs])
        node_class = self.node_class  # a name table.pxd types as a type: compiled, the call below is its tp_new slot
        node = node_class.__new__(node_class)
        node._begin(inputs, sites.caller_position(_RECORDING_FRAMES))
        result.grad_fn = node
        result._requires_grad = True
        saved = node._saved
        plan = self._plans.get(requires)
        if plan is None:  # not `or`: an op that saves nothing has an empty plan, and that is an answer too
            plan = self._plan(requires)
        for name, index in plan:
            if index == _RESULT:
                saved[name] = _save(name, result, True)
                continue
            value = attrs[name] if index == _ATTRIBUTE or name in attrs else inputs[index]  # an attribute wins (clamp's max=None)
            saved[name] = _save(name, value, False) if isinstance(value, Tensor) else value


def _all_inference(inputs: tuple[Tensor, ...]) -> bool:
    """Whether autograd skips the op: PyTorch's inference tensors carry no autograd dispatch key, so an op whose
    tensors are all inference tensors records nothing, even where one requires grad (a Python scalar operand is
    wrapped as a normal tensor, so `inference * 2` still records)."""
    return all(t._is_inference for t in inputs)


def _save(name: str, tensor: Tensor, is_output: bool) -> SavedTensor:
    # SavedTensor(...) would go through a class call and __init__'s argument parsing: a tenth of a microsecond
    saved = SavedTensor.__new__(SavedTensor)
    saved._capture(name, tensor, is_output)
    return saved


_RESULT, _ATTRIBUTE = -1, -2
_RECORDING_FRAMES = 1  # Derivative._record, the frame above _record_node, is ours for sure; the site walk skips the rest
_ONLY_INPUT = (True,)


class OpNode(NodeBase):
    """A node of a built-in op; its class is made per table entry (`MulBackward0`)."""

    __slots__ = ()
    # `derivative`, the table entry, is a class attribute of each entry's node class (Derivative._node_class)
    _made_inside = 1  # above __init__, MultiOutput.record_all is ours for sure (single-output ops use _begin)

    def apply(self, grad_outputs: list[Tensor | None], needed: Container[Node] | None = None) -> tuple[Tensor | None, ...]:
        grad = grad_outputs[0]
        derivative = self.derivative
        if grad is None:
            return (None,) * len(derivative.inputs)
        saved = self._saved
        grads: list[Tensor | None] = []
        # As PyTorch's nodes do, a saved tensor is unpacked once per apply (a checkpoint hands each out once)
        unpacked: dict[str, Any] | None = {} if derivative.shared else None
        rows, edges = derivative.rows, self.next_functions  # one of each per input of the op
        # An input that does not require grad has no edge (child None). Indexed, not zipped: compiled, a zip costs
        # three tuples and two iterators, a C loop over the rows none.
        for i in range(len(rows)):
            formula, needs = rows[i]
            child = edges[i][0]
            if child is None or formula is None or (needed is not None and child not in needed):
                grads.append(None)
            elif unpacked is not None:
                grads.append(formula(grad, *[_unpacked_once(unpacked, saved, name, self) for name in needs]))
            elif len(needs) == 1:  # most formulas: called without building an argument list and tuple
                grads.append(formula(grad, _unpacked(saved[needs[0]], self)))
            elif needs:
                grads.append(formula(grad, *[_unpacked(saved[name], self) for name in needs]))
            else:
                grads.append(formula(grad))
        return tuple(grads)


def _unpacked(value: Any, node: Node) -> Any:
    """A saved value as a formula takes it: a SavedTensor unpacked, anything else as it is."""
    if type(value) is SavedTensor:
        saved_tensor = value  # a name table.pxd types, so the compiled call is a C call
        return saved_tensor.unpack(node)
    return value


def _unpacked_once(unpacked: dict[str, Any], saved: dict[str, Any], name: str, node: Node) -> Any:
    if name not in unpacked:
        unpacked[name] = _unpacked(saved[name], node)
    return unpacked[name]


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
    dtypes = node._input_meta[1::2]
    return tuple(
        g.real.contiguous() if g is not None and dtype is not None and dtype.kind != "c" and g._data.dtype.kind == "c"
        else g
        for g, dtype in zip(grads, dtypes, strict=True)
    )


def derivative(name: str, inputs: tuple[str, ...] = ("self",), *, jvp: Any = None, **formulas: Formula) -> Derivative:
    return Derivative(name, inputs, formulas, jvp=jvp)


# -- forward mode -----------------------------------------------------------------------------------------------
AUTO_ELEMENT_WISE = "auto_element_wise"  # the JVP is the VJP formulas applied to the tangents (real results)



class NoForwardAD:
    """An entry's jvp when PyTorch 2.13 refuses forward AD for the op: the op name its message gives."""

    def __init__(self, op: str) -> None:
        self.op = op

    def error(self) -> NotImplementedError:
        return forward_ad_unsupported(self.op)


def refuse_forward_ad(op: str, *inputs: Any) -> None:
    """PyTorch's refusal for an op glassgrad composes of others (so no entry of its own says it) when a dual
    reaches it."""
    if forward_state.propagating and any(isinstance(t, Tensor) and tangent_of(t) is not None for t in inputs):
        raise forward_ad_unsupported(op)


def keep_tangent_of_saved_result(result: Tensor, tangent: Tensor) -> None:
    """A node keeps its own output as an array (no cycle): its saved copy is told the tangent to rebuild it with."""
    node = result.grad_fn
    if node is None:
        return
    for saved in node._saved.values():
        if type(saved) is SavedTensor and saved.is_output and saved.output_nr == result._output_nr:
            saved.tangent = (forward_state.generation, tangent)


def formulas_record() -> bool:
    """Whether a formula's ops must be recorded ones: a graph is being built (grad mode), or tangents flow. When
    neither, a formula may take NumPy's shortcut for a value nobody differentiates."""
    return mode_state.grad_enabled or forward_state.propagating


def forward_ad_unsupported(op: str) -> NotImplementedError:
    if op.startswith("aten::"):  # an op with no derivative at all: PyTorch's shorter sentence
        return NotImplementedError(f"Trying to use forward AD with {op} that does not support it.")
    return NotImplementedError(
        f"Trying to use forward AD with {op} that does not support it because it has not been implemented yet."
    )


def _op_name(node_name: str) -> str:
    """The aten name PyTorch's messages use, from the node's: IndexPutBackward0 -> index_put."""
    import re

    return re.sub(r"(?<!^)(?=[A-Z])", "_", re.sub(r"Backward\d*$", "", node_name)).lower()


def _zeros_like(t: Tensor) -> Tensor:
    from .creation import zeros_like

    return zeros_like(t)


def expand_to(tangent: Tensor, result: Tensor) -> Tensor:
    """An input's tangent broadcast to the result's shape, as an elementwise VJP formula expects its `grad`."""
    if tangent._data.shape == result._data.shape:
        return tangent
    from .shape import expand

    return expand(tangent, result.shape)


def _sum_terms(terms: Any) -> Any:
    total = None
    for term in terms:
        if term is not None:
            total = term if total is None else total + term
    return total


def transposed_jvp(
    entry: Derivative, results: tuple[Tensor, ...], inputs: tuple[Tensor, ...], tangents: list[Tensor | None],
    attrs: dict[str, Any],
) -> tuple[Tensor, ...]:
    """The results' tangents by transposing the VJP: the gradient of <vjp(u), v> with respect to u (at any u).

    A formula whose value does not depend on u is either zero (the op is locally constant) or not
    differentiable; the second would give a wrong tangent, so it raises PyTorch's refusal instead.
    """
    from ..autograd.engine import grad as autograd_grad
    from .creation import ones_like

    outer_grad = grad_mode.state.grad_enabled
    with grad_mode.enable_grad():
        # Ones, not zeros: a formula may be linear in grad only piecewise (logcumsumexp takes the log of its parts)
        dummies = tuple(ones_like(r).requires_grad_() if r.dtype.is_floating_point or r.dtype.is_complex else None for r in results)
        grads_in = dummies[0] if len(results) == 1 and not isinstance(entry, MultiOutput) else dummies
        total = None
        for (formula, needs), t, x in zip(entry.rows, tangents, inputs, strict=True):
            if formula is None or t is None:
                continue
            g = formula(grads_in, *entry._values(needs, results, inputs, attrs))
            if g is None:
                continue
            if not g._requires_grad:
                if g._data.any():
                    raise forward_ad_unsupported(_op_name(entry.name))
                continue
            if g._data.shape != x._data.shape:
                g = g.sum_to_size(x.shape)
            term = (g.conj() * t).real.sum() if g.is_complex() or t.is_complex() else (g * t).sum()
            total = term if total is None else total + term
        wanted = [d for d in dummies if d is not None]
        if total is None:
            return tuple(_zeros_like(r) for r in results)
        create_graph = outer_grad and any(x is not None and x._requires_grad for x in (*tangents, *inputs))
        jvps = autograd_grad(total, wanted, create_graph=create_graph, allow_unused=True, materialize_grads=True)
    by_dummy = iter(jvps)
    return tuple(_zeros_like(r) if d is None else next(by_dummy) for r, d in zip(results, dummies, strict=True))


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
    "DiagonalBackward0", "DiagonalBackwardBackward0", "DiagEmbedBackward0", "TraceBackward0",
})


# Elementwise ops holomorphic in each input, whose formulas multiply grad by the derivative written with
# holomorphic ops that hold on the complex plane too: the conjugate Wirtinger gradient is grad * conj(f'(z)),
# which ConjugatedFormula makes of them. (acosh's real formula, rsqrt(z * z - 1), takes the wrong branch for
# complex z: it has an entry of its own.)
HOLOMORPHIC = frozenset({
    "MulBackward0", "DivBackward0", "PowBackward0", "PowBackward1", "PowBackward2", "ExpBackward0", "Exp2Backward0",
    "Expm1Backward0", "LogBackward0", "Log2Backward0", "Log10Backward0", "Log1PBackward0", "SqrtBackward0",
    "RsqrtBackward0", "ReciprocalBackward0", "SinBackward0", "CosBackward0", "TanBackward0", "AsinBackward0",
    "AcosBackward0", "AtanBackward0", "SinhBackward0", "CoshBackward0", "TanhBackward0", "AsinhBackward0",
    "AtanhBackward0", "SigmoidBackward0", "TanhBackwardBackward0", "SigmoidBackwardBackward0",
})


class ConjugatedFormula:
    """A holomorphic op's formula for complex tensors: conj(formula(conj(grad), ...)). The formula is linear in
    grad and its factor f'(z) is holomorphic, so this is grad * conj(f'(z)), PyTorch's convention. It needs what
    the formula needs: the table reads its parameters from `__code__`."""

    __slots__ = ("__code__", "formula")

    def __init__(self, formula: Formula) -> None:
        self.formula = formula
        self.__code__ = formula.__code__

    def __call__(self, grad: Tensor, *needs: Any) -> Tensor | None:
        result = self.formula(grad.conj(), *needs)
        return None if result is None else result.conj()


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
        self.node_class = self._node_class(base)

    def _differentiable(self, result: Tensor) -> bool:
        return result.dtype.is_floating_point or (self.complex_outputs and result.dtype.is_complex)

    def record_all(self, outs: Sequence[np.ndarray], inputs: tuple[Tensor, ...], **attrs: Any) -> tuple[Tensor, ...]:
        results = tuple(Tensor._wrap(np.asarray(o)) for o in outs)
        requires = tuple(t._requires_grad for t in inputs)
        if not grad_mode.state.grad_enabled or True not in requires or not self._differentiable(results[0]):
            if results[0].dtype.is_complex and grad_mode.state.grad_enabled and True in requires:
                raise no_complex_derivative(self.name)  # rather than drop the graph
            self._propagate_all(results, inputs, attrs)
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
        self._propagate_all(results, inputs, attrs)
        return results

    def _propagate_all(self, results: tuple[Tensor, ...], inputs: tuple[Tensor, ...], attrs: dict[str, Any]) -> None:
        if not forward_state.propagating or not (results[0].dtype.is_floating_point or results[0].dtype.is_complex):
            return
        tangents = [tangent_of(t) for t in inputs]
        if all(t is None for t in tangents):
            return
        if isinstance(self.jvp, NoForwardAD):
            raise self.jvp.error()
        with computing_tangents():
            result_tangents = transposed_jvp(self, results, inputs, tangents, attrs)
        for r, t in zip(results, result_tangents, strict=True):
            if r.dtype.is_floating_point or r.dtype.is_complex:
                set_tangent(r, t)
                keep_tangent_of_saved_result(r, t)
