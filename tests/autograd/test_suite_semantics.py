"""Graph semantics that PyTorch's own autograd tests exercise, each checked here against the installed PyTorch."""

from __future__ import annotations

import warnings
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

pytestmark = pytest.mark.torch_oracle


def test_assigning_grad_checks_type_shape_dtype_and_self(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        x = m.zeros(3, 2)
        candidates = [0, m.zeros(2, 2), m.zeros(3, 2, dtype=m.int64), x, m.ones(3, 2)]

        def assign(value: Any) -> Any:
            x.grad = value
            return x.grad

        return [oracle.attempt(lambda v=v: assign(v)) for v in candidates]

    oracle.check(program)


def test_setting_data_of_a_tensor_that_requires_grad_to_integers(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        a = m.tensor(1.0, requires_grad=True)
        a.data = m.tensor([2.0, 3.0], dtype=m.float64)  # shape and dtype may change, as long as they stay float
        return [a, oracle.attempt(lambda: setattr(a, "data", m.tensor(3)))]

    oracle.check(program)


def test_numpy_of_a_tensor_that_requires_grad_is_allowed_under_no_grad(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        x = m.ones(2, requires_grad=True)
        with m.no_grad():
            inside = x.numpy().tolist()
        return [inside, oracle.attempt(lambda: x.numpy())]

    oracle.check(program)


def test_post_accumulate_grad_hook_must_return_none(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        x = m.ones(2, requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda t: t.grad)
        return oracle.attempt(lambda: x.sum().backward())

    oracle.check(program)


def test_calling_a_node_runs_its_formula_and_checks_the_count(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = m.tensor([3.0, 4.0], requires_grad=True)
        square, product = x**2, x * y
        return [
            oracle.attempt(lambda: square.grad_fn()),
            oracle.attempt(lambda: square.grad_fn(m.ones(2), m.ones(2))),
            square.grad_fn(m.ones(2)),
            product.grad_fn(m.ones(2)),
        ]

    oracle.check(program)


def test_calling_an_instance_of_a_legacy_function_raises(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        class Legacy(m.autograd.Function):
            def forward(self, x: Any) -> Any:
                return x

        with pytest.warns(DeprecationWarning) if m.__name__ == "torch" else _nothing():
            instance = Legacy()
        return oracle.attempt(lambda: instance(m.ones(2)))

    oracle.check(program)


class _nothing:
    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        pass


def test_materialized_grads_require_grad_under_create_graph(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        x = m.tensor(0.5, requires_grad=True)
        a = m.tensor(2.0, requires_grad=True)
        (first,) = m.autograd.grad(x * a, x, create_graph=True)
        (second,) = m.autograd.grad(first, x, create_graph=True, materialize_grads=True)
        (third,) = m.autograd.grad(second, x, materialize_grads=True)
        plain = m.autograd.grad(first, [x, a], materialize_grads=True, retain_graph=True)
        return [second, third, plain]

    oracle.check(program)


def _gradcheck_outcome(m: ModuleType, fn: Any, inputs: Any, **kwargs: Any) -> Any:
    """Whether gradcheck passed, or the type and first line of what it raised (its class named as PyTorch's)."""
    try:
        return m.autograd.gradcheck(fn, inputs, **kwargs)
    except Exception as err:  # GradcheckError is a RuntimeError in both; the shape check's message ends with reprs
        base = AssertionError if isinstance(err, AssertionError) else RuntimeError
        return (base.__name__, str(err).split("\n")[0].split(" when inputs")[0])


@pytest.mark.parametrize(
    "case",
    ["no_differentiable_outputs", "no_outputs", "shape_depends_on_values", "dtype_depends_on_values", "neither_mode",
     "nondeterministic", "nondeterministic_within_tol", "hook_on_an_intermediate", "forward_mode", "forward_mode_wrong"],
)
def test_gradcheck_checks_as_pytorchs_does(oracle: SimpleNamespace, case: str) -> None:
    def program(m: ModuleType) -> Any:
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        generator = m.Generator().manual_seed(0)

        class Jittery(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, t: Any) -> Any:
                return t.clone()

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * (1 + 1e-7 * m.rand(g.shape, generator=generator, dtype=g.dtype))

        class WrongJvp(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, t: Any) -> Any:
                return t * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * 2

            @staticmethod
            def jvp(ctx: Any, t: Any) -> Any:
                return t * 3

        def hooked(t: Any) -> Any:
            y = t.clone()
            y.register_hook(lambda g: g + 1e-2)
            return y

        cases = {
            "no_differentiable_outputs": (lambda t: t.detach() * 2, {}),
            "no_outputs": (lambda t: (), {}),
            "shape_depends_on_values": (lambda t: m.cat([t, t]) if bool(m.all(t >= 1)) else t, {}),
            "dtype_depends_on_values": (lambda t: t.to(m.float32) if bool(m.all(t >= 1)) else t, {}),
            "neither_mode": (lambda t: t * 2, {"check_backward_ad": False}),
            "nondeterministic": (Jittery.apply, {}),
            "nondeterministic_within_tol": (Jittery.apply, {"nondet_tol": 1e-5}),
            "hook_on_an_intermediate": (hooked, {}),
            "forward_mode": (lambda t: t.sin() * t, {"check_forward_ad": True}),
            "forward_mode_wrong": (WrongJvp.apply, {"check_forward_ad": True, "check_backward_ad": False}),
        }
        fn, kwargs = cases[case]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # PyTorch's forward-mode gradcheck calls torch.jit.script
            raised = _gradcheck_outcome(m, fn, (x,), **kwargs)
            if case in ("shape_depends_on_values", "dtype_depends_on_values", "neither_mode"):
                return [raised]  # not a Jacobian mismatch: raise_exception=False does not turn it into False
            return [raised, m.autograd.gradcheck(fn, (x,), raise_exception=False, **kwargs)]

    oracle.check(program)
