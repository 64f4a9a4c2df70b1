"""torch.autograd.functional against PyTorch 2.13: values, shapes, history flags and errors of every function.

Each program runs with `m = torch` and with `m = glassgrad` (the oracle fixture), in float64.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

import glassgrad

pytestmark = pytest.mark.torch_oracle


def inputs(m: ModuleType, requires_grad: bool = False) -> tuple[Any, Any]:
    x = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=requires_grad)
    y = m.tensor([[1.0, 2.0], [0.3, -0.7]], dtype=m.float64, requires_grad=requires_grad)
    return x, y


def ones_like_all(m: ModuleType, tensors: Any) -> Any:
    if isinstance(tensors, tuple):
        return tuple(m.ones_like(t) * (i + 1.5) for i, t in enumerate(tensors))
    return m.ones_like(tensors) * 0.75


# Functions of (x,) or (x, y), with one or two outputs; (name, takes a tuple, function).
FUNCTIONS: dict[str, tuple[bool, Callable[..., Any]]] = {
    "one_in_one_out": (False, lambda a: a.sin() * a.sum()),
    "one_in_two_out": (False, lambda a: (a.exp(), (a**3).sum())),
    "two_in_one_out": (True, lambda a, b: a.tanh().sum() * b),
    "two_in_two_out": (True, lambda a, b: (a.sin() * b.sum(), (a**2).sum() * b.cos())),
    "scalar_out": (True, lambda a, b: (a.exp().sum() * b).sum()),
}
# Scalar functions, for hessian, vhp and hvp.
SCALARS: dict[str, tuple[bool, Callable[..., Any]]] = {
    "one_in": (False, lambda a: (a.sin() * a.exp()).sum()),
    "two_in": (True, lambda a, b: a.exp().sum() * (b**3).sum() + (a**2).sum()),
    "uses_one_of_two": (True, lambda a, b: (a**3).sum()),
}


def _args(m: ModuleType, tupled: bool, requires_grad: bool = False) -> Any:
    x, y = inputs(m, requires_grad)
    return (x, y) if tupled else x


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_vjp_jvp_jacobian(oracle: Any, name: str, create_graph: bool) -> None:
    tupled, f = FUNCTIONS[name]

    def program(m: ModuleType) -> Any:
        args = _args(m, tupled, requires_grad=create_graph)
        outputs = f(*args) if tupled else f(args)
        F = m.autograd.functional
        return (
            F.vjp(f, args, ones_like_all(m, outputs), create_graph=create_graph),
            F.jvp(f, args, ones_like_all(m, args), create_graph=create_graph),
            F.jacobian(f, args, create_graph=create_graph),
            F.jacobian(f, args, create_graph=create_graph, vectorize=True),
        )

    oracle.check(program)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", sorted(SCALARS))
def test_hessian_vhp_hvp(oracle: Any, name: str, create_graph: bool) -> None:
    tupled, f = SCALARS[name]

    def program(m: ModuleType) -> Any:
        args = _args(m, tupled, requires_grad=create_graph)
        F = m.autograd.functional
        v = ones_like_all(m, args)
        return (
            F.hessian(f, args, create_graph=create_graph),
            F.vhp(f, args, v, create_graph=create_graph),
            F.hvp(f, args, v, create_graph=create_graph),
        )

    oracle.check(program)


def test_v_may_be_left_out_for_one_element(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.autograd.functional
        x = m.tensor([0.3], dtype=m.float64)
        f = lambda a: (a**3).sum()  # noqa: E731
        return F.vjp(f, x), F.jvp(f, x), F.vhp(f, x), F.hvp(f, x)

    oracle.check(program)


def test_second_derivatives_through_create_graph(oracle: Any) -> None:
    """Differentiate what create_graph=True returned, with autograd.grad and with backward."""

    def program(m: ModuleType) -> Any:
        F = m.autograd.functional
        x, y = inputs(m, requires_grad=True)
        f = lambda a, b: (a.sin() * b.sum(), (a**2).sum() * b.exp())  # noqa: E731
        scalar = lambda a, b: (a.exp() * b[0]).sum() * b.sum()  # noqa: E731
        _, (gx, gy) = F.vjp(f, (x, y), (m.ones(3, dtype=m.float64), m.ones(2, 2, dtype=m.float64)), create_graph=True)
        second_vjp = m.autograd.grad((gx**2).sum() + gy.sum(), (x, y))
        _, jv = F.jvp(f, (x, y), (m.ones(3, dtype=m.float64), m.ones(2, 2, dtype=m.float64)), create_graph=True)
        second_jvp = m.autograd.grad(jv[0].sum() + (jv[1] ** 2).sum(), (x, y))
        jac = F.jacobian(f, (x, y), create_graph=True)
        second_jac = m.autograd.grad(sum(block.sum() for blocks in jac for block in blocks), (x, y))
        hess = F.hessian(scalar, (x, y), create_graph=True)
        third = m.autograd.grad(hess[0][1].sum() + hess[1][1].sum(), (x, y))
        _, hv = F.hvp(scalar, (x, y), (m.ones(3, dtype=m.float64), m.ones(2, 2, dtype=m.float64)), create_graph=True)
        (hv[0].sum() * hv[1].sum()).backward()
        return second_vjp, second_jvp, second_jac, third, x.grad, y.grad

    oracle.check(program)


def test_function_capturing_its_input_is_differentiated_only_through_the_argument(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.autograd.functional
        x = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
        f = lambda a: a * x  # noqa: E731
        return F.jacobian(f, x), F.jacobian(f, x, create_graph=True), F.vjp(f, x, m.ones(3, dtype=m.float64))

    oracle.check(program)


def test_results_under_no_grad(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.autograd.functional
        x, y = inputs(m, requires_grad=True)
        with m.no_grad():
            return (
                F.vjp(lambda a: a.exp(), x, m.ones(3, dtype=m.float64), create_graph=True),
                F.hessian(lambda a, b: (a.exp().sum() * b).sum(), (x, y)),
            )

    oracle.check(program)


def test_output_independent_of_an_input_gives_zeros(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.autograd.functional
        x, y = inputs(m)
        f = lambda a, b: a.exp()  # noqa: E731
        const = lambda a: m.ones(2, dtype=m.float64)  # noqa: E731
        return (
            F.vjp(f, (x, y), m.ones(3, dtype=m.float64)),
            F.jvp(f, (x, y), (m.ones(3, dtype=m.float64), m.ones(2, 2, dtype=m.float64))),
            F.jacobian(f, (x, y)),
            F.jacobian(const, x),
            F.hessian(lambda a, b: a.sum(), (x, y)),
        )

    oracle.check(program)


# -- strict mode: PyTorch's error for every stage ---------------------------------------------------------------

STRICT_CASES: dict[str, Callable[[ModuleType], Any]] = {
    "vjp_output_without_grad": lambda m: m.autograd.functional.vjp(
        lambda a: m.ones(3, dtype=m.float64), inputs(m)[0], m.ones(3, dtype=m.float64), strict=True
    ),
    "vjp_independent_input": lambda m: m.autograd.functional.vjp(
        lambda a, b: a.exp(), inputs(m), m.ones(3, dtype=m.float64), strict=True
    ),
    "vjp_create_graph_linear": lambda m: m.autograd.functional.vjp(
        lambda a: 2 * a, inputs(m)[0], m.ones(3, dtype=m.float64), create_graph=True, strict=True
    ),
    "jvp_independent_input": lambda m: m.autograd.functional.jvp(
        lambda a, b: a.exp(), inputs(m), (m.ones(3, dtype=m.float64), m.ones(2, 2, dtype=m.float64)), strict=True
    ),
    "jvp_linear": lambda m: m.autograd.functional.jvp(
        lambda a: 2 * a, inputs(m)[0], m.ones(3, dtype=m.float64), strict=True
    ),
    "jacobian_independent": lambda m: m.autograd.functional.jacobian(lambda a, b: a.exp(), inputs(m), strict=True),
    "jacobian_create_graph_linear": lambda m: m.autograd.functional.jacobian(
        lambda a, b: (a.exp(), 3 * b), inputs(m), create_graph=True, strict=True
    ),
    "jacobian_vectorize": lambda m: m.autograd.functional.jacobian(
        lambda a: a.exp(), inputs(m)[0], vectorize=True, strict=True
    ),
    "hessian_linear": lambda m: m.autograd.functional.hessian(lambda a: (2 * a).sum(), inputs(m)[0], strict=True),
    "hessian_independent": lambda m: m.autograd.functional.hessian(lambda a, b: (a**3).sum(), inputs(m), strict=True),
    "vhp_quadratic_create_graph": lambda m: m.autograd.functional.vhp(
        lambda a: (a**2).sum(), inputs(m)[0], m.ones(3, dtype=m.float64), create_graph=True, strict=True
    ),
    "vhp_linear": lambda m: m.autograd.functional.vhp(
        lambda a: a.sum(), inputs(m)[0], m.ones(3, dtype=m.float64), strict=True
    ),
    "hvp_linear": lambda m: m.autograd.functional.hvp(
        lambda a: a.sum(), inputs(m)[0], m.ones(3, dtype=m.float64), strict=True
    ),
}


# Strict cases PyTorch lets through: a linear function's jvp still depends on the grad_outputs, and a quadratic's
# vhp on the inputs' views.
STRICT_ACCEPTED = {"jvp_linear", "vhp_quadratic_create_graph"}


@pytest.mark.parametrize("case", sorted(STRICT_CASES))
def test_strict_errors(oracle: Any, case: str) -> None:
    outcome = oracle.check(lambda m: oracle.attempt(lambda: STRICT_CASES[case](m)))
    assert (type(outcome).__name__ == "Raised") == (case not in STRICT_ACCEPTED), f"PyTorch's outcome for {case} moved"


@pytest.mark.parametrize("case", ["vjp", "jacobian", "hessian"])
def test_strict_passes_when_everything_depends_on_everything(oracle: Any, case: str) -> None:
    def program(m: ModuleType) -> Any:
        F = m.autograd.functional
        x, y = inputs(m)
        f = lambda a, b: (a.exp().sum() * b.sin()).sum()  # noqa: E731
        if case == "vjp":
            return F.vjp(f, (x, y), strict=True, create_graph=True)
        if case == "jacobian":
            return F.jacobian(f, (x, y), strict=True)
        return F.hessian(f, (x, y), strict=True)

    oracle.check(program)


# -- argument errors ----------------------------------------------------------------------------------------------

ARGUMENT_ERRORS: dict[str, Callable[[ModuleType], Any]] = {
    "input_not_tensor": lambda m: m.autograd.functional.vjp(lambda a: a, 3.0),
    "tuple_input_not_tensor": lambda m: m.autograd.functional.jacobian(lambda a, b: a, (inputs(m)[0], 2)),
    "output_not_tensor": lambda m: m.autograd.functional.jacobian(lambda a: 1.0, inputs(m)[0]),
    "tuple_output_not_tensor": lambda m: m.autograd.functional.vjp(lambda a: (a, None), inputs(m)[0], inputs(m)[0]),
    "v_needed": lambda m: m.autograd.functional.vjp(lambda a: a.exp(), inputs(m)[0]),
    "v_needed_jvp": lambda m: m.autograd.functional.jvp(lambda a: a.exp(), inputs(m)[0]),
    "v_needed_vhp": lambda m: m.autograd.functional.vhp(lambda a: a.sum(), inputs(m)[0]),
    "v_wrong_length": lambda m: m.autograd.functional.jvp(lambda a, b: a, inputs(m), (inputs(m)[0],)),
    "v_two_for_one": lambda m: m.autograd.functional.vjp(lambda a: a, inputs(m)[0], inputs(m)),
    "v_wrong_size": lambda m: m.autograd.functional.vjp(lambda a: a, inputs(m)[0], m.ones(4)),
    "v_wrong_size_in_tuple": lambda m: m.autograd.functional.hvp(
        lambda a, b: a.sum(), inputs(m), (m.ones(3), m.ones(3))
    ),
    "hessian_of_vector": lambda m: m.autograd.functional.hessian(lambda a: a.exp(), inputs(m)[0]),
    "hessian_of_tuple": lambda m: m.autograd.functional.hessian(lambda a: (a.sum(),), inputs(m)[0]),
    "vhp_of_vector": lambda m: m.autograd.functional.vhp(lambda a: a.exp(), inputs(m)[0], inputs(m)[0]),
    "hvp_of_tuple": lambda m: m.autograd.functional.hvp(lambda a: (a.sum(), a.sum()), inputs(m)[0], inputs(m)[0]),
    "unknown_strategy": lambda m: m.autograd.functional.jacobian(lambda a: a, inputs(m)[0], strategy="sideways"),
    "unknown_outer_strategy": lambda m: m.autograd.functional.hessian(
        lambda a: a.sum(), inputs(m)[0], outer_jacobian_strategy="sideways"
    ),
    "forward_mode_create_graph": lambda m: m.autograd.functional.jacobian(
        lambda a: a, inputs(m)[0], create_graph=True, strategy="forward-mode"
    ),
    "forward_mode_strict": lambda m: m.autograd.functional.jacobian(
        lambda a: a, inputs(m)[0], strict=True, strategy="forward-mode"
    ),
    "forward_mode_unvectorized": lambda m: m.autograd.functional.jacobian(
        lambda a: a, inputs(m)[0], strategy="forward-mode"
    ),
    "forward_over_reverse_unvectorized": lambda m: m.autograd.functional.hessian(
        lambda a: a.sum(), inputs(m)[0], outer_jacobian_strategy="forward-mode"
    ),
}


@pytest.mark.parametrize("case", sorted(ARGUMENT_ERRORS))
def test_argument_errors(oracle: Any, case: str) -> None:
    outcome = oracle.check(lambda m: oracle.attempt(lambda: ARGUMENT_ERRORS[case](m)))
    assert type(outcome).__name__ == "Raised", f"PyTorch did not raise for {case}: the case tests nothing"


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_forward_mode_strategies(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x, y = inputs(m)
        functional = m.autograd.functional
        return (
            functional.jacobian(lambda a: a.exp() * a.sum(), x, vectorize=True, strategy="forward-mode"),
            functional.jacobian(lambda a, b: (a * b, a.sin()), (x, y), vectorize=True, strategy="forward-mode"),
            functional.hessian(lambda a: (a.exp() * a).sum(), x, vectorize=True, outer_jacobian_strategy="forward-mode"),
            functional.hessian(
                lambda a, b: (a.tanh() * b).sum(), (x, y), vectorize=True, outer_jacobian_strategy="forward-mode"
            ),
        )

    oracle.check(program)


def test_jacobian_keeps_no_graph_alive() -> None:
    """Without create_graph, nothing of the function's graph outlives jacobian (reference counting alone)."""
    import gc
    import weakref

    x = glassgrad.tensor([0.5, -1.0, 2.0], dtype=glassgrad.float64)
    kept: list[weakref.ref[Any]] = []

    def f(a: glassgrad.Tensor) -> glassgrad.Tensor:
        out = a.exp() * a
        kept.append(weakref.ref(out.grad_fn))
        return out

    gc.collect()
    gc.disable()
    try:
        jac = glassgrad.autograd.functional.jacobian(f, x)
        assert kept[0]() is None, "the graph of the function outlived jacobian"
    finally:
        gc.enable()
    assert jac.shape == (3, 3)
