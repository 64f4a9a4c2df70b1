"""torch.func.functional_call and stack_module_state against PyTorch 2.13, in float64."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

pytestmark = [pytest.mark.torch_oracle, pytest.mark.filterwarnings("ignore::glassgrad.func.VmapLoopWarning")]

RNG = np.random.default_rng(7)
W1, B1 = RNG.standard_normal((4, 3)), RNG.standard_normal(4)
W2, B2 = RNG.standard_normal((2, 4)), RNG.standard_normal(2)
X = RNG.standard_normal((5, 3))


def net(m: ModuleType) -> Any:
    """Linear, BatchNorm (buffers), Linear, with fixed weights."""
    model = m.nn.Sequential(m.nn.Linear(3, 4), m.nn.BatchNorm1d(4), m.nn.Tanh(), m.nn.Linear(4, 2)).double()
    with m.no_grad():
        for p, value in zip(model.parameters(), (W1, B1, np.ones(4), np.zeros(4), W2, B2), strict=True):
            p.copy_(m.tensor(value))
    return model


def other_params(m: ModuleType) -> dict[str, Any]:
    return {
        "0.weight": m.tensor(W1[::-1].copy() * 0.5),
        "0.bias": m.tensor(B1 + 1),
        "3.weight": m.tensor(W2 * 2),
    }


def full_message(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception as err:
        return type(err).__name__, str(err)


def test_call_with_other_parameters_leaves_the_module_as_it_was(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        model = net(m)
        x = m.tensor(X)
        before = {k: v.clone() for k, v in model.state_dict().items()}
        params = other_params(m)
        out = m.func.functional_call(model, params, (x,))
        out_single_arg = m.func.functional_call(model, params, x)
        after = model.state_dict()
        unchanged = all(m.equal(before[k], after[k]) for k in ("0.weight", "0.bias", "3.weight", "3.bias"))
        return out, out_single_arg, unchanged, model(x), [type(p).__name__ for p in model.parameters()]

    oracle.check(program)


def test_buffers_in_their_own_dict_are_updated_in_place(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        model = net(m)
        params = {k: v.detach().clone() for k, v in model.named_parameters()}
        buffers = {k: v.clone() for k, v in model.named_buffers()}
        out = m.func.functional_call(model, (params, buffers), (m.tensor(X),))
        return out, buffers, dict(model.named_buffers())

    oracle.check(program)


def test_kwargs_and_gradients_through_the_call(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        class Affine(m.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.w = m.nn.Parameter(m.tensor(W1))

            def forward(self, x: Any, scale: float = 1.0) -> Any:
                return (x @ self.w.t() * scale).sum()

        model = Affine()
        w = m.tensor(W1 * 2, requires_grad=True)
        out = m.func.functional_call(model, {"w": w}, (m.tensor(X),), {"scale": 3.0})
        out.backward()
        by_grad = m.func.grad(lambda p: m.func.functional_call(model, p, m.tensor(X), {"scale": 0.5}))(
            {"w": w.detach()}
        )
        return out, w.grad, model.w.grad, by_grad

    oracle.check(program)


def _tied(m: ModuleType) -> Any:
    class Tied(m.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = m.nn.Linear(3, 3, bias=False).double()
            self.b = m.nn.Linear(3, 3, bias=False).double()
            self.b.weight = self.a.weight
            with m.no_grad():
                self.a.weight.copy_(m.tensor(W1[:3]))

        def forward(self, x: Any) -> Any:
            return self.b(self.a(x))

    return Tied()


def test_tie_weights(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        model, x, w = _tied(m), m.tensor(X), m.tensor(W2[:, :3].repeat(2, 0)[:3].copy())
        return (
            m.func.functional_call(model, {"a.weight": w}, x),
            m.func.functional_call(model, {"a.weight": w}, x, tie_weights=False),
            m.func.functional_call(model, {"a.weight": w, "b.weight": w}, x),
            full_message(lambda: m.func.functional_call(model, {"a.weight": w, "b.weight": w * 2}, x)),
            m.func.functional_call(model, {"a.weight": w, "b.weight": w * 2}, x, tie_weights=False),
        )

    oracle.check(program)


def test_module_reassigning_a_buffer_is_seen_in_the_callers_dict(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        class Counter(m.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.register_buffer("count", m.zeros(()))

            def forward(self, x: Any) -> Any:
                self.count = self.count + 1
                return x * self.count

        model = Counter()
        state = {"count": m.tensor(5.0)}
        out = m.func.functional_call(model, state, m.ones(2))
        return out, state, model.count

    oracle.check(program)


ERRORS: dict[str, Callable[[ModuleType], Any]] = {
    "strict_missing": lambda m: m.func.functional_call(net(m), other_params(m), m.tensor(X), strict=True),
    "strict_unexpected": lambda m: m.func.functional_call(
        m.nn.Linear(3, 1).double(),
        {"weight": m.ones(1, 3), "bias": m.ones(1), "extra": m.ones(1)},
        m.tensor(X),
        strict=True,
    ),
    "repeated_keys": lambda m: m.func.functional_call(
        net(m), ({"0.bias": m.ones(4)}, {"0.bias": m.ones(4)}), m.tensor(X)
    ),
    "not_dicts": lambda m: m.func.functional_call(net(m), [{"0.bias": m.ones(4)}, 3], m.tensor(X)),
    "not_a_dict": lambda m: m.func.functional_call(net(m), 3, m.tensor(X)),
    "value_not_tensor": lambda m: m.func.functional_call(net(m), {"0.bias": 3.0}, m.tensor(X)),
    "no_such_submodule": lambda m: m.func.functional_call(net(m), {"9.bias": m.ones(4)}, m.tensor(X)),
    "stack_nothing": lambda m: m.func.stack_module_state([]),
    "stack_mixed_modes": lambda m: m.func.stack_module_state([m.nn.Linear(2, 2), m.nn.Linear(2, 2).eval()]),
    "stack_mixed_classes": lambda m: m.func.stack_module_state([m.nn.Linear(2, 2), m.nn.Bilinear(2, 2, 2)]),
    "stack_mixed_requires_grad": lambda m: m.func.stack_module_state(
        [m.nn.Linear(2, 2), m.nn.Linear(2, 2).requires_grad_(False)]
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(oracle: Any, case: str) -> None:
    outcome = oracle.check(lambda m: full_message(lambda: ERRORS[case](m)))
    assert isinstance(outcome, tuple) and len(outcome) == 2 and isinstance(outcome[1], str), (
        f"PyTorch did not raise for {case}"
    )


def test_stack_module_state(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        models = [net(m) for _ in range(3)]
        for i, model in enumerate(models):
            with m.no_grad():
                for p in model.parameters():
                    p.mul_(i + 1)
        frozen = [m.nn.Linear(3, 2).double().requires_grad_(False) for _ in range(2)]
        params, buffers = m.func.stack_module_state(models)
        frozen_params, _ = m.func.stack_module_state(frozen)
        return (
            params,
            buffers,
            {k: (v.is_leaf, v.grad_fn is None) for k, v in params.items()},
            {k: v.requires_grad for k, v in frozen_params.items()},
            m.func.vmap(lambda p, b, x: m.func.functional_call(models[0], (p, b), x), in_dims=(0, 0, None))(
                params, buffers, m.tensor(X)
            ),
        )

    oracle.check(program)
