"""gradcheck and gradgradcheck: analytical Jacobians against central differences."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import forward_ad, grad_mode


class GradcheckError(RuntimeError):
    pass


def _tuple(x: Any) -> tuple[Any, ...]:
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _outputs(func: Callable[..., Any], inputs: tuple[Any, ...], keep: list[int] | None = None) -> tuple[Tensor, ...]:
    """func's tensor outputs, or only those at the positions in `keep`."""
    outs = [o for o in _tuple(func(*inputs)) if isinstance(o, Tensor)]
    return tuple(outs if keep is None else [outs[i] for i in keep])


def _same_meta(reference: tuple[Tensor, ...], outs: tuple[Tensor, ...], eps: float) -> None:
    """PyTorch's check that perturbing an input changes no output's shape or dtype (a Jacobian needs both fixed)."""
    for ref, out in zip(reference, outs, strict=True):
        for what in ("shape", "dtype"):
            if getattr(ref, what) != getattr(out, what):
                raise AssertionError(
                    f"Expected `func` to return outputs with the same {what} when inputs are perturbed by {eps}, but "
                    f"got: {what}s {getattr(ref, what)} and {getattr(out, what)}."
                )


def _entries(t: Tensor) -> np.ndarray:
    """The array gradcheck perturbs: a tensor's elements; a sparse tensor's specified values, as PyTorch's masked
    check has it (the unspecified elements are not inputs)."""
    return t._values()._data if t.is_sparse else t._data


def _dense(t: Tensor) -> np.ndarray:
    return t.to_dense()._data if t.is_sparse else t._data


def _gradient_entries(g: Tensor, t: Tensor) -> np.ndarray:
    """A gradient for t, at the entries _entries(t) lists."""
    dense = _dense(g)
    return dense[tuple(t._indices()._data)] if t.is_sparse else dense


def _numerical_jacobians(func: Callable[..., Any], inputs: tuple[Any, ...], targets: list[Tensor], eps: float, keep: list[int] | None) -> list[list[np.ndarray]]:
    """[output][input] -> (out.numel(), in.numel()) by central differences on each input element.

    func runs in grad mode, as PyTorch's gradcheck runs it: it may register hooks on what it computes."""
    outs = _outputs(func, inputs, keep)
    columns: list[list[list[np.ndarray]]] = [[[] for _ in targets] for _ in outs]
    for k, t in enumerate(targets):
        flat = _entries(t).reshape(-1)  # a view: perturbing it perturbs the input, with no version bump
        for j in range(flat.size):
            original = flat[j].copy()
            evaluations = []
            for value in (original + eps, original - eps):
                flat[j] = value
                perturbed = _outputs(func, inputs, keep)
                _same_meta(outs, perturbed, eps)
                evaluations.append([_dense(o).astype(np.float64).ravel().copy() for o in perturbed])
            flat[j] = original
            plus, minus = evaluations
            for i in range(len(outs)):
                columns[i][k].append((plus[i] - minus[i]) / (2 * eps))
    return [
        [np.stack(col, axis=1) if col else np.zeros((outs[i].numel(), 0)) for col in columns[i]]
        for i in range(len(outs))
    ]


def _analytical_jacobians(func: Callable[..., Any], inputs: tuple[Any, ...], targets: list[Tensor], keep: list[int]) -> list[list[np.ndarray]]:
    from .engine import grad

    outs = _outputs(func, inputs, keep)
    jacobians = [[np.zeros((o.numel(), _entries(t).size)) for t in targets] for o in outs]
    for i, out in enumerate(outs):
        for row in range(out.numel()):
            seed = np.zeros(out.numel(), dtype=out.dtype.np)
            seed[row] = 1
            grads = grad(out, targets, Tensor._wrap(seed.reshape(out.shape)), retain_graph=True, allow_unused=True)
            for k, g in enumerate(grads):
                if g is not None:
                    jacobians[i][k][row] = _gradient_entries(g, targets[k]).astype(np.float64).ravel()
    return jacobians


def _forward_jacobians(func: Callable[..., Any], inputs: tuple[Any, ...], targets: list[Tensor], keep: list[int]) -> list[list[np.ndarray]]:
    """The Jacobians forward-mode AD gives: one column per input element, from a one-hot tangent on it."""
    positions = [next(p for p, a in enumerate(inputs) if a is t) for t in targets]
    shapes = [o.numel() for o in _outputs(func, inputs, keep)]
    jacobians = [[np.zeros((n, t.numel())) for t in targets] for n in shapes]
    for k, (t, position) in enumerate(zip(targets, positions, strict=True)):
        for j in range(t.numel()):
            tangent = np.zeros(t.numel(), dtype=t._data.dtype)
            tangent[j] = 1
            with forward_ad.dual_level():
                duals = list(inputs)
                duals[position] = forward_ad.make_dual(t.detach(), Tensor._wrap(tangent.reshape(t.shape)))
                for i, out in enumerate(_outputs(func, tuple(duals), keep)):
                    column = forward_ad.unpack_dual(out).tangent
                    if column is not None:
                        jacobians[i][k][:, j] = column._data.astype(np.float64).ravel()
    return jacobians


def _compare(numerical: list[list[np.ndarray]], analytical: list[list[np.ndarray]], rtol: float, atol: float, mode: str) -> None:
    for i, (num_row, ana_row) in enumerate(zip(numerical, analytical, strict=True)):
        for k, (num, ana) in enumerate(zip(num_row, ana_row, strict=True)):
            if not np.allclose(ana, num, rtol=rtol, atol=atol, equal_nan=True):
                raise GradcheckError(
                    f"Jacobian {mode}mismatch for output {i} with respect to input {k},\n"
                    f"numerical:{num}\nanalytical:{ana}\n"
                )


def _check_reentrant(first: list[list[np.ndarray]], second: list[list[np.ndarray]], nondet_tol: float) -> None:
    """Two backward passes with the same input and grad_output must agree (within nondet_tol), as PyTorch checks."""
    for row1, row2 in zip(first, second, strict=True):
        for a, b in zip(row1, row2, strict=True):
            if a.size and np.abs(a - b).max() > nondet_tol:
                raise GradcheckError(
                    "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
                    "gives different values, although analytical gradient matches numerical gradient.The tolerance "
                    f"for nondeterminism was {nondet_tol}."
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
    within atol + rtol * |numerical|; a mismatch raises GradcheckError, or gives False when raise_exception is off."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    inputs = _tuple(inputs)
    targets = [t for t in inputs if isinstance(t, Tensor) and t._requires_grad]
    if not targets:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them have requires_grad=True.")
    for index, t in enumerate(inputs):  # by position: list.index would compare tensors with ==
        if isinstance(t, Tensor) and t._requires_grad and t.dtype.name not in ("float64", "complex128"):
            warnings.warn(
                f"Input #{index} requires gradient and is not a double precision floating point or complex. "
                "This check will likely fail if all the inputs are not of double precision floating point or complex. ",
                UserWarning,
                stacklevel=2,
            )
    try:
        _check(func, inputs, targets, eps, atol, rtol, nondet_tol, check_forward_ad, check_backward_ad)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _check(
    func: Callable[..., Any], inputs: tuple[Any, ...], targets: list[Tensor], eps: float, atol: float, rtol: float,
    nondet_tol: float, check_forward_ad: bool, check_backward_ad: bool,
) -> None:
    with grad_mode.enable_grad():
        outs = _outputs(func, inputs)
    keep = [i for i, o in enumerate(outs) if o._requires_grad]  # a detached or integer output has no Jacobian
    if not keep:
        for row in _numerical_jacobians(func, inputs, targets, eps, None):
            if any(np.any(jacobian != 0) for jacobian in row):
                raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    numerical = _numerical_jacobians(func, inputs, targets, eps, keep)
    if check_backward_ad:
        analytical = _analytical_jacobians(func, inputs, targets, keep)
        _check_reentrant(analytical, _analytical_jacobians(func, inputs, targets, keep), nondet_tol)
        _compare(numerical, analytical, rtol, atol, "")
    if check_forward_ad:
        _compare(numerical, _forward_jacobians(func, inputs, targets, keep), rtol, atol, "computed with forward mode ")


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
        nondet_tol=nondet_tol,
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
    first, second = (_analytical_jacobians(lambda: output, (), targets, [0])[0] for _ in range(2))
    reentrant = all(np.abs(a - b).max(initial=0.0) <= nondet_tol for a, b in zip(first, second, strict=True))
    return _as_tensors(first, targets), reentrant, True, True
