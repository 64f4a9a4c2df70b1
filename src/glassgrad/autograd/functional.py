"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp and hvp of a Python function of tensors.

Everything is built on the reverse-mode engine, as PyTorch's reverse-mode implementation is: jvp and hvp
use the double-backward trick (the backward of a backward is linear in its grad_outputs, so
differentiating it with respect to them gives the forward product), and a Jacobian is one backward
per output element. Each function prepares its inputs the way PyTorch does (a fresh tensor per input,
detached unless create_graph asks for history), so a function that also captures one of its inputs
from outside is differentiated only through the argument.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from typing import Any

import numpy as np

from ..ops.creation import zeros, zeros_like
from ..ops.shape import stack
from ..tensor import Tensor
from . import engine, forward_ad, grad_mode
from .transform_calls import transform

Tensors = Tensor | tuple[Tensor, ...]

# -- shared steps ------------------------------------------------------------------------------------------------


def _as_tuple(value: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple[Tensor, ...]]:
    """(whether `value` was a tuple, `value` as a tuple of tensors)."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = f"the value at index {i} has type" if is_tuple else f"the given {arg_name} has type"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but {where} {type(item)}."
            )
    return is_tuple, items


def _prepare(tensors: tuple[Tensor, ...], create_graph: bool, need_graph: bool) -> tuple[Tensor, ...]:
    # Always a new tensor object, so that the function's arguments differ from the same tensors captured
    # from outside (PyTorch issue 32576); a view keeps the caller's history when create_graph asks for it.
    return tuple(
        t.view_as(t) if create_graph and t.requires_grad else forward_ad.keeping_tangent(t, t.detach().requires_grad_(need_graph))
        for t in tensors
    )


def _finish(results: Any, create_graph: bool) -> Any:
    """Results without history unless create_graph asked for it (tuples of tensors, or tuples of those)."""
    if isinstance(results, Tensor):
        return results if create_graph else results.detach()
    return tuple(_finish(r, create_graph) for r in results)


def _unpack(results: Any, was_tuple: bool | tuple[bool, bool]) -> Any:
    """Undo _as_tuple on results: one level per flag, the outer flag first."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            results = tuple(r[0] for r in results)
        return results if outer else results[0]
    return results if was_tuple else results[0]


def _outputs(value: Any, fn_name: str, strict: bool) -> tuple[bool, tuple[Tensor, ...]]:
    is_tuple, outputs = _as_tuple(value, "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    return is_tuple, outputs


def _scalar_output(value: Any, fn_name: str, strict: bool) -> Tensor:
    """The single one-element tensor that hessian, vhp and hvp need from the function."""
    is_tuple, outputs = _outputs(value, fn_name, strict)
    if is_tuple or not isinstance(value, Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if value.nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")
    return outputs[0]


def _vector(
    v: Any, reference: tuple[Tensor, ...], is_reference_tuple: bool, create_graph: bool, fn_name: str, of_outputs: bool
) -> tuple[Tensor, ...] | None:
    """`v` as a tuple shaped like `reference` (the function's outputs, or its inputs)."""
    if v is None:
        if len(reference) != 1 or reference[0].nelement() != 1:
            what = "user-provided function returns" if of_outputs else "input to the user-provided function is"
            raise RuntimeError(f"The vector v can only be None if the {what} a single Tensor with a single element.")
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _prepare(v, create_graph, need_graph=False)
    if len(v) != len(reference):
        if is_reference_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(reference)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (given, ref) in enumerate(zip(v, reference, strict=True)):
        if given.size() != ref.size():
            entry = f"Entry {i} in " if is_reference_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {ref.size()} but got {given.size()}.")
    return v


_NOT_REQUIRING_GRAD = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be computed in "
    "a differentiable manner from the input when running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided "
    "function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with respect to "
    "input {i} is independent of the input. This is not allowed in strict mode. You should ensure that your function "
    "is twice differentiable and that the jacobian depends on the inputs (this would be violated by a linear function "
    "for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the input. "
    "This is not allowed in strict mode. You should ensure that your function is thrice differentiable and that the "
    "hessian depends on the inputs.",
}


def _check_requires_grad(tensors: Sequence[Tensor | None], kind: str, strict: bool) -> None:
    """strict mode: every tensor must exist and carry history (`kind` says what they are, for the error)."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is not allowed in strict mode."
            )
        if not t.requires_grad:
            raise RuntimeError(_NOT_REQUIRING_GRAD[kind].format(i=i))


def _grad(
    outputs: Sequence[Tensor | None],
    inputs: Sequence[Tensor],
    grad_outputs: Sequence[Tensor] | None = None,
    create_graph: bool = False,
    retain_graph: bool | None = None,
) -> tuple[Tensor | None, ...]:
    """autograd.grad over the outputs that have history; None for every input when none has."""
    pairs = [
        (out, None if grad_outputs is None else grad_outputs[i])
        for i, out in enumerate(outputs)
        if out is not None and out.requires_grad
    ]
    if not pairs:
        return (None,) * len(inputs)
    outs, grads = zip(*pairs, strict=True)
    return engine.grad(
        outs,
        inputs,
        None if grad_outputs is None else grads,
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when using "
    "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
    "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the grad_jacobian. "
    "This is not allowed in strict mode as it prevents from using the double backward trick to replace forward mode AD.",
}


def _zeros_for_none(
    grads: Sequence[Tensor | None], refs: Sequence[Tensor], strict: bool, create_graph: bool, stage: str
) -> tuple[Tensor, ...]:
    """A missing gradient is zeros shaped like its reference, or, in strict mode, an error naming the stage."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is not allowed in "
                "strict mode when create_graph=True."
            )
        out.append(g)
    return tuple(out)


def _second_pass(create_graph: bool) -> Any:
    """Grad mode for the pass that makes the returned products: on for create_graph, else as the caller had it."""
    return grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled())


def _construct_standard_basis_for(tensors: Sequence[Tensor], tensor_numels: Sequence[int]) -> tuple[Tensor, ...]:
    """The N x N identity (N the sum of the numels) split by columns into one block per tensor, each of that
    tensor's dtype: row i is the i-th basis vector of the flattened inputs, as vectorized jacobians feed them."""
    total = sum(tensor_numels)
    blocks = []
    start = 0
    for tensor, numel in zip(tensors, tensor_numels, strict=True):
        block = zeros(total, numel, dtype=tensor.dtype)
        block._data[start:start + numel] = np.eye(numel, dtype=block._data.dtype)
        blocks.append(block)
        start += numel
    return tuple(blocks)


def jacobian_blocks(
    outputs: Sequence[Tensor],
    inputs: Sequence[Tensor],
    row: Callable[[int, Tensor, bool], Sequence[Tensor]],
) -> list[tuple[Tensor, ...]]:
    """For each output, the Jacobian blocks against each input, shaped output.shape + input.shape.

    `row(i, element, last)` gives the gradients of one element of output i with respect to every input; `last`
    says no later row needs the graph. Shared by autograd.functional.jacobian and torch.func.jacrev.
    """
    total = sum(out.nelement() for out in outputs)
    done = 0
    blocks = []
    for i, out in enumerate(outputs):
        flat = out.reshape(-1)
        rows: list[list[Tensor]] = [[] for _ in inputs]
        for j in range(flat.nelement()):
            done += 1
            for per_input, g in zip(rows, row(i, flat[j], done == total), strict=True):
                per_input.append(g)
        blocks.append(
            tuple(
                stack(r, 0).view(out.shape + x.shape) if r else zeros(out.shape + x.shape, dtype=x.dtype)
                for r, x in zip(rows, inputs, strict=True)
            )
        )
    return blocks


# -- the public functions ----------------------------------------------------------------------------------------


@transform
def vjp(
    func: Callable[..., Any],
    inputs: Tensors,
    v: Tensors | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), v^T J): the vector-Jacobian product at `inputs`, shaped like the inputs."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _outputs(func(*inputs), "vjp", strict)
        vector = _vector(v, outputs, is_outputs_tuple, create_graph, "vjp", of_outputs=True)
    with _second_pass(create_graph):
        grads = _grad(outputs, inputs, vector, create_graph=create_graph)
        result = _zeros_for_none(grads, inputs, strict, create_graph, "back")
    return _unpack(_finish(outputs, create_graph), is_outputs_tuple), _unpack(
        _finish(result, create_graph), is_inputs_tuple
    )


@transform
def jvp(
    func: Callable[..., Any],
    inputs: Tensors,
    v: Tensors | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), J v): the Jacobian-vector product at `inputs`, shaped like the outputs.

    Computed with the double-backward trick, as PyTorch's autograd.functional.jvp is: two reverse passes.
    """
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        vector = _vector(v, inputs, is_inputs_tuple, create_graph, "jvp", of_outputs=False)
        is_outputs_tuple, outputs = _outputs(func(*inputs), "jvp", strict)
        # The first backward is linear in these, so their value never reaches the result; zeros keep inf/nan out.
        grad_outputs = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with grad_mode.enable_grad() if create_graph else nullcontext():
        grads = _grad(grad_inputs, grad_outputs, vector, create_graph=create_graph)
        result = _zeros_for_none(grads, outputs, strict, create_graph, "back_trick")
    return _unpack(_finish(outputs, create_graph), is_outputs_tuple), _unpack(
        _finish(result, create_graph), is_outputs_tuple
    )


def _forward_mode(create_graph: bool, strict: bool, vectorize: bool) -> None:
    """strategy="forward-mode": PyTorch's refusals first, in its order, then glassgrad's own."""
    if create_graph:
        raise NotImplementedError(
            'torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` are not supported '
            'together (yet). Please either set `create_graph=False` or `strategy="reverse-mode"`.'
        )
    if strict:
        raise RuntimeError(
            'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not supported together '
            '(yet). Please either set `strict=False` or `strategy="reverse-mode"`.'
        )
    if not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented for `vectorize=True`."
        )


def forward_jacobian_blocks(
    run: Callable[[list[Tensor]], Sequence[Tensor]], inputs: Sequence[Tensor]
) -> list[tuple[Tensor, ...]]:
    """For each output of run(inputs), its Jacobian blocks against each input (output.shape + input.shape), by
    forward mode: one run per input element, that element's basis vector as the input's tangent (functorch vmaps
    these runs; glassgrad loops). Shared by jacobian(strategy="forward-mode") and torch.func.jacfwd."""
    if forward_ad.state.level >= 0:
        raise RuntimeError(NESTED_FORWARD_MODE)
    columns: list[list[list[Tensor]]] | None = None  # [output][input] -> one tangent per input element
    outputs: Sequence[Tensor] = ()
    for k, x in enumerate(inputs):
        for j in range(max(x.numel(), 1) if columns is None else x.numel()):
            with forward_ad.dual_level():
                args = list(inputs)
                if x.numel():
                    basis = zeros(x.numel(), dtype=x.dtype)
                    basis._data[j] = 1
                    args[k] = forward_ad.make_dual(x, basis.view(x.shape))
                outputs = run(args)
                tangents = [forward_ad.unpack_dual(o).tangent for o in outputs]
            if columns is None:
                columns = [[[] for _ in inputs] for _ in outputs]
            if x.numel():
                for per_output, out, t in zip(columns, outputs, tangents, strict=True):
                    per_output[k].append(zeros_like(out) if t is None else t)
    assert columns is not None, "a Jacobian needs at least one input"
    return [
        tuple(
            stack(cols, -1).view(out.shape + x.shape) if cols else zeros(out.shape + x.shape, dtype=out.dtype)
            for cols, x in zip(per_output, inputs, strict=True)
        )
        for per_output, out in zip(columns, outputs, strict=True)
    ]


NESTED_FORWARD_MODE = (
    f"{forward_ad.NESTED_MESSAGE}\nglassgrad's forward mode has the single dual level of torch.autograd.forward_ad: "
    "forward mode inside forward mode (jvp of jvp, jacfwd of jacfwd) is not supported yet. Put reverse mode inside "
    "instead (jacfwd(jacrev(f)))."
)


@transform
def jacobian(
    func: Callable[..., Any],
    inputs: Tensors,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of func at `inputs`: block [i][j] is shaped outputs[i].shape + inputs[j].shape.

    vectorize=True is accepted and gives the same result; glassgrad has no batched gradients, so it still runs
    one backward per output element (PyTorch would run them as one vmapped backward). It refuses strict=True
    as PyTorch does. strategy="forward-mode" runs func once per input element with forward-mode AD, after
    PyTorch's own refusals of create_graph, strict and vectorize=False with it.
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more outputs '
            'than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        _forward_mode(create_graph, strict, vectorize)
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        is_outputs_tuple = True

        def run(args: list[Tensor]) -> Sequence[Tensor]:
            nonlocal is_outputs_tuple
            is_outputs_tuple, outputs = _outputs(func(*args), "jacobian", strict)
            return outputs

        blocks = forward_jacobian_blocks(run, inputs)
        return _unpack(_finish(tuple(blocks), False), (is_outputs_tuple, is_inputs_tuple))
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _outputs(func(*inputs), "jacobian", strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported together. "
                "Please either set `strict=False` or `vectorize=False`."
            )

        def row(i: int, element: Tensor, last: bool) -> list[Tensor]:
            # PyTorch retains the graph for every row; the last one may free it unless create_graph still needs it.
            grads = _grad((element,), inputs, retain_graph=create_graph or not last, create_graph=create_graph)
            if strict:
                for k, g in enumerate(grads):
                    if g is None:
                        raise RuntimeError(
                            f"Output {i} of the user-provided function is independent of input {k}. This is not "
                            "allowed in strict mode."
                        )
                    if create_graph and not g.requires_grad:
                        # PyTorch names the output's index here as "input": kept, so the message stays PyTorch's.
                        raise RuntimeError(
                            f"The jacobian of the user-provided function is independent of input {i}. This is not "
                            "allowed in strict mode when create_graph=True."
                        )
            return list(_zeros_for_none(grads, inputs, False, create_graph, "back"))

        blocks = jacobian_blocks(outputs, inputs, row)
        return _unpack(_finish(tuple(blocks), create_graph), (is_outputs_tuple, is_inputs_tuple))


@transform
def hessian(
    func: Callable[..., Any],
    inputs: Tensors,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar func at `inputs`: block [i][j] is shaped inputs[i].shape + inputs[j].shape.

    A Jacobian of the Jacobian, the inner one in reverse mode; vectorize and outer_jacobian_strategy are passed to
    the outer one (forward-mode: forward over reverse, as in PyTorch).
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar(*args: Tensor) -> Tensor:
        return _scalar_output(func(*args), "hessian", strict).squeeze()

    def gradient(*args: Tensor) -> Any:
        jac = jacobian(scalar, args, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    result = jacobian(gradient, inputs, create_graph, strict, vectorize, strategy=outer_jacobian_strategy)
    return _unpack(result, (is_inputs_tuple, is_inputs_tuple))


def _hessian_product(
    func: Callable[..., Any], inputs: Tensors, v: Tensors | None, create_graph: bool, strict: bool, fn_name: str
) -> tuple[Any, Any]:
    """vhp and hvp: the same first pass; hvp then adds the double-backward trick (see jvp)."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
        inputs = _prepare(inputs, create_graph, need_graph=True)
        vector = _vector(v, inputs, is_inputs_tuple, create_graph, fn_name, of_outputs=False)
        output = _scalar_output(func(*inputs), fn_name, strict)
        jac = _grad((output,), inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        if fn_name == "hvp":
            grad_jac = tuple(zeros_like(x, requires_grad=True) for x in inputs)
            double_back = _grad(jac, inputs, grad_jac, create_graph=True)
            _check_requires_grad(jac, "hessian", strict)
    with _second_pass(create_graph):
        if fn_name == "hvp":
            grads = _grad(double_back, grad_jac, vector, create_graph=create_graph)
            result = _zeros_for_none(grads, inputs, strict, create_graph, "double_back_trick")
        else:
            grads = _grad(jac, inputs, vector, create_graph=create_graph)
            result = _zeros_for_none(grads, inputs, strict, create_graph, "double_back")
    return _finish(output, create_graph), _unpack(_finish(result, create_graph), is_inputs_tuple)


@transform
def vhp(
    func: Callable[..., Any],
    inputs: Tensors,
    v: Tensors | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), v^T H): the vector-Hessian product of a scalar function, shaped like the inputs."""
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


@transform
def hvp(
    func: Callable[..., Any],
    inputs: Tensors,
    v: Tensors | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), H v): the Hessian-vector product of a scalar function, by the double-backward trick.

    Equal to vhp for twice continuously differentiable functions, and about twice as slow, as in PyTorch.
    """
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]
