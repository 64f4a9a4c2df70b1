"""gradcheck and gradgradcheck: analytical Jacobians against central differences, then PyTorch's further checks
of a backward (batched, multiplied by grad_output, undefined output grads) and of forward mode.

Each check is one function, run in PyTorch's order by _run_checks. Complex values follow PyTorch's convention:
backward mode checks the real and the imaginary part of each complex output as two real functions, forward mode
the real and the imaginary part of each complex input; a complex input's Jacobian column is the conjugate Wirtinger
derivative ds/dx + i ds/dy. The Jacobians compared are always those of PyTorch's slow mode (every element):
fast_mode is accepted and runs the same element-wise comparison. check_batched_forward_grad is accepted and not run
yet: PyTorch vmaps forward mode over a batch of tangents, and glassgrad's vmap cannot carry tangents through the ops'
forward formulas.
"""

from __future__ import annotations

import sys
import types
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._layout import strided
from ..tensor import Tensor
from . import forward_ad, grad_mode

Jacobians = list[list[np.ndarray]]  # [output][input] -> (output numel, input entries)


class GradcheckError(RuntimeError):
    pass


def _tuple(x: Any) -> tuple[Any, ...]:
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _outputs(func: Callable[..., Any], inputs: Sequence[Any], keep: list[int] | None = None) -> tuple[Tensor, ...]:
    """func's tensor outputs, or only those at the positions in `keep`."""
    outs = [o for o in _tuple(func(*inputs)) if isinstance(o, Tensor)]
    return tuple(outs if keep is None else [outs[i] for i in keep])


def _differentiable(outputs: Sequence[Tensor]) -> list[int]:
    """The positions of the outputs that have a Jacobian (a detached or integer output has none)."""
    return [i for i, o in enumerate(outputs) if o.requires_grad]


def _diff_positions(inputs: Sequence[Any]) -> list[int]:
    return [p for p, a in enumerate(inputs) if isinstance(a, Tensor) and a.requires_grad]


def _same_meta(reference: tuple[Tensor, ...], outs: tuple[Tensor, ...], eps: float) -> None:
    """PyTorch's check that perturbing an input changes no output's shape or dtype (a Jacobian needs both fixed)."""
    for ref, out in zip(reference, outs, strict=True):
        for what in ("shape", "dtype"):
            if getattr(ref, what) != getattr(out, what):
                raise AssertionError(
                    f"Expected `func` to return outputs with the same {what} when inputs are perturbed by {eps}, but "
                    f"got: {what}s {getattr(ref, what)} and {getattr(out, what)}."
                )


def _is_sparse(t: Tensor) -> bool:
    return t.layout is not strided


def _entries(t: Tensor) -> np.ndarray:
    """The array gradcheck perturbs: a tensor's elements; a sparse tensor's specified values (a view of its values
    its pattern keeps, in any sparse layout), as PyTorch's masked check has it (unspecified elements are not inputs)."""
    return t._data.parts[1] if _is_sparse(t) else t._data


def _dense(t: Tensor) -> np.ndarray:
    return t.to_dense()._data if _is_sparse(t) else t._data


def _flat(t: Tensor) -> np.ndarray:
    """A tensor's elements as one row of float64 (complex128 for a complex tensor)."""
    data = _dense(t)
    return data.astype(np.complex128 if np.iscomplexobj(data) else np.float64).ravel()


def _gradient_entries(g: Tensor, t: Tensor) -> np.ndarray:
    """A gradient for t, at the entries _entries(t) lists."""
    dense = _dense(g)
    return dense[tuple(t._data.parts[0])] if _is_sparse(t) else dense


def _jacobian(rows: int, t: Tensor) -> np.ndarray:
    return np.zeros((rows, _entries(t).size), dtype=np.complex128 if t.is_complex() else np.float64)


# -- what gradcheck is given --
def _check_inputs(inputs: tuple[Any, ...]) -> None:
    """At least one input requires grad; each one that does is double precision (else a warning) and has no
    dimension of stride 0 (perturbing one element would perturb several)."""
    positions = _diff_positions(inputs)
    if not positions:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True."
        )
    for p in positions:
        t = inputs[p]
        if t.dtype.name not in ("float64", "complex128"):
            warnings.warn(
                f"Input #{p} requires gradient and is not a double precision floating point or complex. This check "
                "will likely fail if all the inputs are not of double precision floating point or complex. ",
                UserWarning,
                stacklevel=4,
            )
        content = (t._values() if t.is_sparse else t.values()) if _is_sparse(t) else t  # COO, compressed, strided
        # numel: NumPy gives an empty array zero strides, where PyTorch's are a contiguous tensor's
        overlapping = content.numel() > 0 and any(s == 0 and n > 1 for s, n in zip(content.stride(), content.shape, strict=True))
        if overlapping:
            raise RuntimeError(
                f"The {p}th input has a dimension with stride 0. gradcheck only supports inputs that are "
                "non-overlapping to be able to compute the numerical gradients correctly. You should call "
                ".contiguous on the input before passing it to gradcheck."
            )


def _check_outputs(outputs: Sequence[Tensor]) -> None:
    if any(_is_sparse(o) for o in outputs):
        raise ValueError(
            "Sparse output is not supported at gradcheck yet. Please call to_dense(masked_grad=...) on the output "
            "of fn for gradcheck."
        )


# -- the Jacobians --
def _central_difference(func: Callable[..., Any], inputs: Sequence[Any], keep: list[int], array: np.ndarray,
                        index: tuple[int, ...], step: complex, reference: tuple[Tensor, ...]) -> list[np.ndarray]:
    """d outputs / d array[index] along `step` (eps, or eps*1j for an imaginary part), one column per output."""
    original = array[index].copy()
    evaluations = []
    for value in (original + step, original - step):
        array[index] = value  # in place, with no version bump: func sees the perturbed input
        perturbed = _outputs(func, inputs, keep)
        _same_meta(reference, perturbed, abs(step))
        evaluations.append([_flat(o).copy() for o in perturbed])
    array[index] = original
    plus, minus = evaluations
    return [(a - b) / (2 * abs(step)) for a, b in zip(plus, minus, strict=True)]


def _numerical_jacobians(func: Callable[..., Any], inputs: Sequence[Any], targets: list[Tensor], eps: float, keep: list[int]) -> Jacobians:
    """Central differences on each entry of each target (the inputs that require grad, or tensors they read). func
    runs in grad mode, as PyTorch's gradcheck runs it: it may register hooks on what it computes."""
    reference = _outputs(func, inputs, keep)
    jacobians = [[_jacobian(o.numel(), t) for t in targets] for o in reference]
    for k, t in enumerate(targets):
        array = _entries(t)
        for column, index in enumerate(np.ndindex(array.shape)):
            ds = _central_difference(func, inputs, keep, array, index, eps, reference)
            if t.is_complex():
                ds_dy = _central_difference(func, inputs, keep, array, index, eps * 1j, reference)
                ds = [dx + 1j * dy for dx, dy in zip(ds, ds_dy, strict=True)]
            for i, d in enumerate(ds):
                if np.iscomplexobj(d) and not np.iscomplexobj(jacobians[i][k]):
                    jacobians[i][k] = jacobians[i][k].astype(np.complex128)
                jacobians[i][k][:, column] = d
    return jacobians


def _backward_jacobians(func: Callable[..., Any], inputs: Sequence[Any], targets: list[Tensor], keep: list[int], check_grad_dtypes: bool) -> Jacobians:
    """The Jacobians backward gives, one row per output element, from a one-hot grad_output on it."""
    from .engine import grad

    outs = _outputs(func, inputs, keep)
    jacobians = [[_jacobian(o.numel(), t) for t in targets] for o in outs]
    for i, out in enumerate(outs):
        for row in range(out.numel()):
            seed = np.zeros(out.numel(), dtype=out.dtype.np)
            seed[row] = 1
            grads = grad(out, targets, Tensor._wrap(seed.reshape(out.shape)), retain_graph=True, allow_unused=True)
            for k, (g, t) in enumerate(zip(grads, targets, strict=True)):
                if g is None:
                    continue
                if check_grad_dtypes and g.dtype != t.dtype:
                    raise GradcheckError("Gradient has dtype mismatch")
                jacobians[i][k][row] = _gradient_entries(g, t).ravel()
    return jacobians


def _dual_inputs(inputs: Sequence[Any], tangents: dict[int, Tensor]) -> list[Any]:
    """The inputs as forward mode sees them: each that requires grad a dual of its detached value (so the function
    sees no input that requires grad) with the tangent given for its position, or zeros."""
    from ..ops.creation import zeros_like

    duals = list(inputs)
    for p in _diff_positions(inputs):
        tangent = tangents.get(p, zeros_like(inputs[p]))
        duals[p] = forward_ad.make_dual(inputs[p].detach(), tangent)
    return duals


def _tangents(outs: Sequence[Tensor]) -> list[np.ndarray]:
    """The outputs' tangents, zeros where an output has none."""
    result = []
    for out in outs:
        tangent = forward_ad.unpack_dual(out).tangent
        result.append(np.zeros(out.numel()) if tangent is None else _flat(tangent))
    return result


def _forward_jacobians(func: Callable[..., Any], inputs: Sequence[Any], keep: list[int]) -> Jacobians:
    """The Jacobians forward mode gives: one column per input element, from a one-hot tangent on it."""
    positions = _diff_positions(inputs)
    # sized from the outputs, not from the tangents: an input with no elements gives no column
    jacobians: Jacobians = [[np.zeros((o.numel(), inputs[q].numel())) for q in positions] for o in _outputs(func, inputs, keep)]
    for k, p in enumerate(positions):
        t = inputs[p]
        for column in range(t.numel()):
            one_hot = np.zeros(t.numel(), dtype=t._data.dtype)
            one_hot[column] = 1
            with forward_ad.dual_level():
                duals = _dual_inputs(inputs, {p: Tensor._wrap(one_hot.reshape(t.shape))})
                for i, tangent in enumerate(_tangents(_outputs(func, duals, keep))):
                    if np.iscomplexobj(tangent) and not np.iscomplexobj(jacobians[i][k]):
                        jacobians[i][k] = jacobians[i][k].astype(np.complex128)
                    jacobians[i][k][:, column] = tangent
    return jacobians


def _mismatch(i: int, k: int, numerical: np.ndarray, analytical: np.ndarray, forward: bool,
              complex_indices: Sequence[int], imag: bool) -> str:
    """PyTorch's message, which says which part of a complex output (backward) or input (forward) was checked."""
    prefix = ""
    if (k if forward else i) in complex_indices:
        prefix = f"While considering the {'imaginary' if imag else 'real'} part of complex {'inputs' if forward else 'outputs'} only, "
    mode = "computed with forward mode " if forward else ""
    return f"{prefix}Jacobian {mode}mismatch for output {i} with respect to input {k},\nnumerical:{numerical}\nanalytical:{analytical}\n"


def _check_reentrant(first: Jacobians, second: Jacobians, nondet_tol: float) -> None:
    """Two backward passes with the same input and grad_output must agree (within nondet_tol), as PyTorch checks."""
    for row1, row2 in zip(first, second, strict=True):
        for a, b in zip(row1, row2, strict=True):
            if a.size and np.abs(a - b).max() > nondet_tol:
                raise GradcheckError(
                    "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
                    "gives different values, although analytical gradient matches numerical gradient.The tolerance "
                    f"for nondeterminism was {nondet_tol}."
                )


def _check_jacobians(
    func: Callable[..., Any], inputs: Sequence[Any], eps: float, atol: float, rtol: float, nondet_tol: float,
    check_grad_dtypes: bool, *, forward: bool = False, complex_indices: Sequence[int] = (), imag: bool = False,
) -> None:
    """Every element of the numerical Jacobians against backward's (or forward mode's), of real outputs (backward)
    or real inputs (forward)."""
    targets = [inputs[p] for p in _diff_positions(inputs)]
    with grad_mode.enable_grad():
        outputs = _outputs(func, inputs)
    keep = _differentiable(outputs)
    if not keep:
        for row in _numerical_jacobians(func, inputs, targets, eps, list(range(len(outputs)))):
            if any(np.any(jacobian != 0) for jacobian in row):
                raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    numerical = _numerical_jacobians(func, inputs, targets, eps, keep)
    if forward:
        analytical = _forward_jacobians(func, inputs, keep)
    else:
        first, second = (_backward_jacobians(func, inputs, targets, keep, check_grad_dtypes) for _ in range(2))
        _check_reentrant(first, second, nondet_tol)
        analytical = first
    for i, (num_row, ana_row) in enumerate(zip(numerical, analytical, strict=True)):
        for k, (num, ana) in enumerate(zip(num_row, ana_row, strict=True)):
            if not np.allclose(ana, num, rtol=rtol, atol=atol, equal_nan=True):
                raise GradcheckError(_mismatch(i, k, num, ana, forward, complex_indices, imag))


# -- complex functions as pairs of real ones --
def _parts_of_outputs(func: Callable[..., Any]) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """func with torch.real, and with torch.imag, applied to its complex outputs."""
    def part(which: str) -> Callable[..., Any]:
        return lambda *args: tuple(getattr(o, which) if isinstance(o, Tensor) and o.is_complex() else o for o in _tuple(func(*args)))

    return part("real"), part("imag")


def _parts_of_inputs(func: Callable[..., Any], inputs: Sequence[Any], positions: list[int]) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """func of the real parts of its complex inputs (their imaginary parts fixed), and of the imaginary parts."""
    def part(rebuild: Callable[[Any, Tensor], Any]) -> Callable[..., Any]:
        def wrapped(*args: Any) -> tuple[Any, ...]:
            args = tuple(rebuild(a, inputs[p]) if p in positions else a for p, a in enumerate(args))
            return _tuple(func(*args))

        return wrapped

    return part(lambda x, z: x + z.imag.detach() * 1j), part(lambda y, z: z.real.detach() + y * 1j)


def _part_inputs(inputs: Sequence[Any], positions: list[int], which: str) -> list[Any]:
    """The real (or imaginary) parts of the complex inputs, as new leaves that require grad like them."""
    return [
        getattr(a, which).detach().clone().requires_grad_(a.requires_grad) if p in positions else a
        for p, a in enumerate(inputs)
    ]


def _check_backward_jacobians(func: Callable[..., Any], inputs: Sequence[Any], eps: float, atol: float, rtol: float,
                              nondet_tol: float, check_grad_dtypes: bool) -> None:
    outputs = _outputs(func, inputs)
    complex_indices = [i for i, o in enumerate(o for o in outputs if o.requires_grad) if o.is_complex()]
    if not any(o.is_complex() for o in outputs):
        _check_jacobians(func, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes)
        return
    real_fn, imag_fn = _parts_of_outputs(func)
    for fn, imag in ((imag_fn, True), (real_fn, False)):
        _check_jacobians(fn, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes, complex_indices=complex_indices, imag=imag)


def _check_forward_jacobians(func: Callable[..., Any], inputs: Sequence[Any], eps: float, atol: float, rtol: float,
                             nondet_tol: float, check_grad_dtypes: bool, check_undefined_grad: bool) -> None:
    positions = [p for p in _diff_positions(inputs) if inputs[p].is_complex()]
    if not positions:
        _check_jacobians(func, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes, forward=True)
        if check_undefined_grad:
            _test_undefined_forward_mode(func, inputs)
        return
    real_fn, imag_fn = _parts_of_inputs(func, inputs, positions)
    parts = ((imag_fn, _part_inputs(inputs, positions, "imag"), True), (real_fn, _part_inputs(inputs, positions, "real"), False))
    for fn, part_inputs, imag in parts:
        _check_jacobians(fn, part_inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes, forward=True,
                         complex_indices=positions, imag=imag)
    if check_undefined_grad:
        for fn, part_inputs, _ in parts:
            _test_undefined_forward_mode(fn, part_inputs)


# -- the checks beyond the Jacobians --
def _test_undefined_forward_mode(func: Callable[..., Any], inputs: Sequence[Any]) -> None:
    """An input given no tangent must give the same output tangents as one given a zero tangent."""
    positions = _diff_positions(inputs)
    rng = np.random.default_rng(0)
    tangents = {p: Tensor._wrap(rng.random(inputs[p].shape).astype(inputs[p]._data.dtype)) for p in positions}
    for p in positions:
        with forward_ad.dual_level():
            zero = _tangents(_outputs(func, _dual_inputs(inputs, {**tangents, p: inputs[p].detach() * 0})))
            duals = _dual_inputs(inputs, tangents)
            duals[p] = inputs[p].detach()
            missing = _tangents(_outputs(func, duals))
        for index, (a, b) in enumerate(zip(zero, missing, strict=True)):
            if not np.allclose(a, b):
                raise GradcheckError(
                    f"Mismatch in tangent values for output with index: {index} when input: {inputs[p]} has an "
                    f"undefined tangent value. Got: {a} but expected: {b}"
                )


_BATCHED_GRAD_HELP = (
    "gradcheck or gradgradcheck failed while testing batched gradient computation.\n"
    "If you are adding a new operator, call gradcheck/gradgradcheck with `check_batched_grad=False` (or set "
    "`check_batched_grad=False` / `check_batched_gradgrad=False` on its OpInfo) until its backward formula can be "
    "computed for a batch of grad_outputs at once."
)
def _batch_mismatch(output: int, input: int, got: Tensor | None, expected: np.ndarray) -> GradcheckError:
    return GradcheckError(f"For output {output} and input {input}:\n\n{_BATCHED_GRAD_HELP}\n\nGot:\n{got}\n\nExpected:\n{expected}")


def _test_batched_grad(inputs: Sequence[Any], output: Tensor, output_index: int) -> None:
    """Backward for a batch of two grad_outputs at once (grad's is_grads_batched) must equal two backwards."""
    from ..ops.creation import randn_like
    from ..ops.shape import stack
    from .engine import grad

    targets = [inputs[p] for p in _diff_positions(inputs)]

    def vjp(v: Tensor, batched: bool) -> tuple[Tensor | None, ...]:
        return grad(output, targets, v, retain_graph=True, allow_unused=True, is_grads_batched=batched)

    grad_outputs = [randn_like(output) for _ in range(2)]
    expected = list(zip(*(vjp(v, False) for v in grad_outputs), strict=True))
    try:
        result = vjp(stack(grad_outputs), True)
    except RuntimeError as err:
        raise GradcheckError(f"While computing batched gradients, got: {err}\n\n{_BATCHED_GRAD_HELP}") from err
    for k, (got, want) in enumerate(zip(result, expected, strict=True)):
        rows = np.stack([np.zeros(targets[k].shape) if w is None else _dense(w) for w in want])
        if not np.allclose(np.zeros_like(rows) if got is None else _dense(got), rows):
            raise _batch_mismatch(output_index, k, got, rows)


def _test_backward_mul_by_grad_output(outputs: Sequence[Tensor], inputs: Sequence[Any], masked: bool) -> None:
    """Zero grad_outputs must give zero gradients of each input's dtype and size (and a sparse one its layout and
    sparse dims)."""
    from ..ops.creation import zeros_like
    from .engine import grad

    targets = [inputs[p] for p in _diff_positions(inputs)]
    grads = grad(list(outputs), targets, [zeros_like(o) for o in outputs], allow_unused=True)
    for g, t in zip(grads, targets, strict=True):
        if g is None:
            continue
        if g.is_sparse and not t.is_sparse:  # a dense gradient for a sparse input is fine, as in PyTorch
            raise GradcheckError(f"grad is incorrect layout ({g.layout} is not {t.layout})")
        if g.is_sparse:
            for what in ("sparse_dim", "dense_dim"):
                if getattr(g, what)() != getattr(t, what)():
                    raise GradcheckError(
                        f"grad is sparse tensor, but has incorrect {what} {getattr(g, what)()}, expected "
                        f"{getattr(t, what)()}"
                    )
        values = _dense(g)
        if not (np.allclose(values, 0) if masked else np.all(values == 0)):
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype != t.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.shape != t.shape:
            raise GradcheckError("grad is incorrect size")


def _test_undefined_backward_mode(func: Callable[..., Any], inputs: Sequence[Any]) -> None:
    """Backward must accept undefined (None) gradients for all outputs at once, and for each one alone, and then
    give no gradient or zeros."""
    from .._C._functions import UndefinedGrad
    from ..ops.creation import zeros_like
    from .engine import grad

    targets = [inputs[p] for p in _diff_positions(inputs)]

    def undefined(keep: Callable[[int], bool]) -> list[Tensor]:
        outs = [o for o in _outputs(func, inputs) if o.requires_grad]
        return [o if keep(i) else UndefinedGrad()(o) for i, o in enumerate(outs)]

    cases = [undefined(lambda i: False)]
    if len(cases[0]) > 1:
        cases += [undefined(lambda i, j=j: i != j) for j in range(len(cases[0]))]
    for outs in cases:
        try:
            grads = grad(outs, targets, [zeros_like(o) for o in outs], allow_unused=True)
        except RuntimeError as err:
            _warn_undefined_grad_check()
            raise GradcheckError(
                'Expected backward function to handle undefined output grads. Please look at "Notes about undefined '
                'output gradients" in "tools/autograd/derivatives.yaml"'
            ) from err
        if any(g is not None and np.any(_dense(g) != 0) for g in grads):
            _warn_undefined_grad_check()
            raise GradcheckError(
                "Expected all input grads to be undefined or zero when all output grads are undefined or zero. Please "
                'look at "Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
            )


def _warn_undefined_grad_check() -> None:
    warnings.warn(
        "Backwards compatibility: New undefined gradient support checking feature is enabled by default, but it may "
        "break existing callers of this function. If this is true for you, you can call this function with "
        '"check_undefined_grad=False" to disable the feature',
        UserWarning,
        stacklevel=5,
    )


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """True if every analytical Jacobian (backward mode, and forward mode when asked) matches central differences
    within atol + rtol * |numerical| and the further checks asked for pass; a failure raises GradcheckError, or
    gives False when raise_exception is off (other errors always raise)."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    inputs = _tuple(inputs)
    _check_inputs(inputs)
    try:
        _run_checks(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
                    check_batched_grad, check_forward_ad, check_backward_ad, bool(masked))
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _run_checks(
    func: Callable[..., Any], inputs: tuple[Any, ...], eps: float, atol: float, rtol: float, nondet_tol: float,
    check_undefined_grad: bool, check_grad_dtypes: bool, check_batched_grad: bool, check_forward_ad: bool,
    check_backward_ad: bool, masked: bool,
) -> None:
    """PyTorch's checks in PyTorch's order."""
    with grad_mode.enable_grad():
        outputs = [o for o in _outputs(func, inputs) if o.requires_grad]
    _check_outputs(outputs)
    if check_backward_ad:
        _check_backward_jacobians(func, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes)
    if check_forward_ad:
        _check_forward_jacobians(func, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes, check_undefined_grad)
    if not check_backward_ad or not outputs:
        return
    if check_batched_grad:
        for i, output in enumerate(outputs):
            _test_batched_grad(inputs, output, i)
    _test_backward_mul_by_grad_output(outputs, inputs, masked)
    if check_undefined_grad:
        _test_undefined_backward_mode(func, inputs)


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Sequence[Tensor] | Tensor | None = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """gradcheck of the function (inputs, grad_outputs) -> d<func, grad_outputs>/d inputs."""
    from ..ops.creation import zeros_like
    from .engine import grad

    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    for flag, name in ((check_undefined_grad, "check_undefined_grad"), (check_batched_grad, "check_batched_grad")):
        if flag and not check_rev_over_rev:
            raise AssertionError(f"Setting {name}=True requires check_rev_over_rev to be True")
    inputs = _tuple(inputs)
    n_inputs = len(inputs)

    def differentiable_outputs(ins: tuple[Any, ...]) -> list[Tensor]:
        return [o for o in _outputs(func, ins) if o._requires_grad]

    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            Tensor._wrap(rng.standard_normal(o.shape).astype(o._data.dtype)).requires_grad_(True)
            for o in differentiable_outputs(inputs)
        )
    else:
        grad_outputs = _tuple(grad_outputs)

    def first_derivative(*args: Any) -> tuple[Tensor, ...]:
        ins, gouts = args[:n_inputs], args[n_inputs:]
        diff_ins = [t for t in ins if isinstance(t, Tensor) and t._requires_grad]
        with grad_mode.enable_grad():  # gradcheck's finite differences call this under no_grad
            grads = grad(differentiable_outputs(ins), diff_ins, gouts, create_graph=True, allow_unused=True)
        return tuple(g if g is not None else zeros_like(t) for g, t in zip(grads, diff_ins, strict=True))

    return gradcheck(
        first_derivative, (*inputs, *grad_outputs), eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception,
        nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad, check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev,
        fast_mode=fast_mode, masked=masked,
    )


# -- the deprecated Jacobian helpers PyTorch still exports: each Jacobian is (input numel, output numel) there --
def _deprecated_helper(name: str, grad_out: float) -> None:
    warnings.warn(
        f"`{name}` was part of PyTorch's private API and not meant to be exposed. We are deprecating it and it will "
        "be removed in a future version of PyTorch. If you have a specific use for this or feature request for this "
        "to be a stable API, please file us an issue at https://github.com/pytorch/pytorch/issues/new",
        FutureWarning,
        stacklevel=3,
    )
    if grad_out != 1.0:  # kept in the signature for old callers only
        raise ValueError(f"Expected grad_out to be 1.0. {name} no longer supports values of grad_out != 1.0.")


def _as_tensors(jacobians: list[np.ndarray], targets: list[Tensor]) -> tuple[Tensor, ...]:
    return tuple(Tensor._wrap(j.T.astype(t._data.dtype)) for j, t in zip(jacobians, targets, strict=True))


def get_numerical_jacobian(
    fn: Callable[[tuple[Any, ...]], Any], inputs: Any, target: Any = None, eps: float = 1e-3, grad_out: float = 1.0
) -> tuple[Tensor, ...]:
    """Central-difference Jacobians of fn(inputs)'s first output, one per target (by default the inputs that
    require grad)."""
    _deprecated_helper("get_numerical_jacobian", grad_out)
    inputs = _tuple(inputs)
    targets = [t for t in (inputs if target is None else _tuple(target)) if isinstance(t, Tensor) and t.requires_grad]
    jacobians = _numerical_jacobians(lambda *args: fn(args), inputs, targets, eps, [0])[0]
    return _as_tensors(jacobians, targets)


def get_analytical_jacobian(
    inputs: Any, output: Tensor, nondet_tol: float = 0.0, grad_out: float = 1.0
) -> tuple[tuple[Tensor, ...], bool, bool, bool]:
    """Backward's Jacobians of `output`, one per input that requires grad; whether two runs agree within nondet_tol
    (reentrant); and that the gradients' sizes and dtypes were right (the engine checks those itself)."""
    _deprecated_helper("get_analytical_jacobian", grad_out)
    targets = [t for t in _tuple(inputs) if isinstance(t, Tensor) and t.requires_grad]
    first, second = (_backward_jacobians(lambda: output, (), targets, [0], False)[0] for _ in range(2))
    reentrant = all(np.abs(a - b).max(initial=0.0) <= nondet_tol for a, b in zip(first, second, strict=True))
    return _as_tensors(first, targets), reentrant, True, True


class _CallableModule(types.ModuleType):
    """In PyTorch, torch.autograd.gradcheck names both this module and the function. An importer that aliases torch to
    glassgrad module by module, as the acceptance shim that runs PyTorch's own tests does, loads this module a second
    time under its torch name on `from torch.autograd.gradcheck import GradcheckError`, and the import system then
    rebinds the package's attribute to the module; so the module calls the function, as the attribute must.
    (glassgrad's own alias, torch_alias.py, registers loaded modules under their torch names and rebinds nothing.)"""

    def __call__(self, *args: Any, **kwargs: Any) -> bool:
        return gradcheck(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
