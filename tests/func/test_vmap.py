"""torch.func.vmap against PyTorch 2.13: in_dims/out_dims pytrees, nesting, composition with grad, randomness,
chunk_size, and every argument error (first line of the message), in float64."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
import torch

import glassgrad
from glassgrad.func import _dispatch as dispatch_module

pytestmark = [pytest.mark.torch_oracle, pytest.mark.filterwarnings("ignore::glassgrad.func.VmapLoopWarning")]


def batch(m: ModuleType) -> tuple[Any, Any]:
    x = m.arange(12, dtype=m.float64).reshape(3, 4) / 7 - 0.5
    y = m.arange(8, dtype=m.float64).reshape(4, 2) / 5
    return x, y


def test_in_dims_and_out_dims(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.func
        x, y = batch(m)
        return (
            F.vmap(lambda a: a.sin().sum())(x),
            F.vmap(lambda a, b: a @ b, in_dims=(0, None))(x, y),
            F.vmap(lambda a: a * 2, in_dims=1, out_dims=1)(x),
            F.vmap(lambda a: a * 2, in_dims=-1, out_dims=-1)(x),
            F.vmap(lambda a, b: a + b, in_dims=(1, 0))(x.t().contiguous(), x),
            F.vmap(lambda a: a.outer(a), out_dims=2)(x),
            F.vmap(lambda a: (a.sum(), a * 3), out_dims=(0, 1))(x),
            F.vmap(lambda a, k=2.0: a * k)(x, k=3.0),  # keyword arguments are not batched
            F.vmap(lambda a: a * a + 1)(m.arange(5, dtype=m.float64)),  # per-element scalars
        )

    oracle.check(program)


def test_nested_pytrees(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.func
        x, y = batch(m)
        fn = lambda d, t: {"s": d["a"] * t[0], "p": (t[1] * 2, d["a"].sum())}  # noqa: E731
        return (
            F.vmap(fn, in_dims=({"a": 1}, (0, None)), out_dims={"s": 1, "p": (0, 0)})(
                {"a": y}, (m.ones(2, 4, dtype=m.float64), m.ones(3, dtype=m.float64))
            ),
            F.vmap(lambda p: p["w"] @ p["v"], in_dims=({"w": 0, "v": None},))({"w": x, "v": y}),
            F.vmap(lambda pair: pair[0] * pair[1])((x, x.cos())),  # one in_dim for a whole pytree argument
            F.vmap(lambda a: [a, (a.exp(),)])(x),
        )

    oracle.check(program)


def test_nested_vmap_and_per_sample_grad(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.func
        x, y = batch(m)
        w = y[:, 0]
        loss = lambda weight, a: ((weight * a).sin() ** 2).sum()  # noqa: E731
        return (
            F.vmap(F.vmap(lambda a, b: a * b, in_dims=(0, None)), in_dims=(0, None))(x, w),
            F.vmap(F.vmap(lambda a: a.sum()), in_dims=1)(x.reshape(3, 2, 2)),
            F.vmap(F.grad(loss), in_dims=(None, 0))(w, x),
            F.vmap(F.grad(loss, argnums=(0, 1)), in_dims=(None, 0))(w, x),
            F.vmap(F.jacrev(lambda a: a.sin() * a.sum()))(x),
            F.grad(lambda weight: F.vmap(loss, in_dims=(None, 0))(weight, x).sum())(w),
        )

    oracle.check(program)


def test_gradients_flow_through_vmap(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x, y = batch(m)
        x.requires_grad_()
        w = y[:, 0].clone().requires_grad_()
        out = m.func.vmap(lambda a, b: (a * b).tanh().sum(), in_dims=(0, None))(x, w)
        (out**2).sum().backward()
        return out, x.grad, w.grad

    oracle.check(program)


def test_in_place_updates_reach_the_batch(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x, _ = batch(m)
        v = m.arange(3, dtype=m.float64)
        return m.func.vmap(lambda a: a.mul_(2))(x), x, m.func.vmap(lambda a: a.add_(1))(v), v

    oracle.check(program)


def test_chunk_size_gives_the_same_result(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x, _ = batch(m)
        return [m.func.vmap(lambda a: a.exp() * a.sum(), chunk_size=c)(x) for c in (None, 1, 2, 5)]

    oracle.check(program)


@pytest.mark.parametrize("m", [glassgrad, torch], ids=["glassgrad", "torch"])
def test_randomness_same_and_different(m: ModuleType) -> None:
    """Random values differ between the libraries, so the properties are checked on both: 'same' gives every
    element the same draw, 'different' does not. On glassgrad, 'same' also draws what one element alone would and
    moves the stream on by that much."""
    m.manual_seed(0)
    x = m.zeros(4, 3)
    same = m.func.vmap(lambda a: a + m.rand(3), randomness="same")(x)
    assert all(m.equal(same[i], same[0]) for i in range(4))
    after_same = m.rand(1)
    if m is glassgrad:
        m.manual_seed(0)
        assert m.equal(same[0], m.rand(3)), "'same' draws what one element would"
        assert m.equal(after_same, m.rand(1)), "'same' advances the stream by one element"
    different = m.func.vmap(lambda a: a + m.rand(3), randomness="different")(x)
    assert not m.equal(different[0], different[1])
    dropped = m.func.vmap(lambda a: m.nn.functional.dropout(a + 1, 0.5), randomness="different")(m.zeros(64, 8))
    assert not all(m.equal(dropped[i], dropped[0]) for i in range(64))


def rows_equal(m: ModuleType, batch: Any) -> list[bool]:
    """Whether each element of a batch (along dim 0) equals the first."""
    return [bool(m.equal(batch[i], batch[0])) for i in range(1, len(batch))]


def draws(m: ModuleType, randomness: str) -> dict[str, Any]:
    """Random ops batched by their rules, as seen from outside: which elements drew the same values, and shapes."""
    m.manual_seed(0)
    x = m.zeros(16, 32)
    results = {
        "rand": m.func.vmap(lambda a: a + m.rand(32), randomness=randomness)(x),
        "randn_like": m.func.vmap(lambda a: m.randn_like(a), randomness=randomness)(x),
        "dropout": m.func.vmap(lambda a: m.nn.functional.dropout(a + 1, 0.5), randomness=randomness)(x),
        "dropout_unbatched_input": m.func.vmap(
            lambda a, b: m.nn.functional.dropout(b, 0.5) + a, in_dims=(0, None), randomness=randomness
        )(x, m.ones(32)),
        "dropout2d": m.func.vmap(
            lambda a: m.nn.functional.dropout2d(a.reshape(1, 32, 1, 1) + 1, 0.5), randomness=randomness
        )(x),
    }
    return {name: (tuple(r.shape), rows_equal(m, r)) for name, r in results.items()}


@pytest.mark.usefixtures("no_fallback")
@pytest.mark.parametrize("randomness", ["same", "different"])
def test_randomness_by_batching_rules(randomness: str) -> None:
    """'same': every element draws what the others do; 'different': each its own (16 elements of 32 draws, so a
    chance match is negligible), with the shapes PyTorch gives, and on glassgrad without the fallback loop."""
    expected = draws(torch, randomness)
    assert draws(glassgrad, randomness) == expected
    assert all(all(same) == (randomness == "same") for _, same in expected.values())


@pytest.mark.parametrize("m", [glassgrad, torch], ids=["glassgrad", "torch"])
def test_nested_randomness(m: ModuleType) -> None:
    """An inner 'different' inside an outer 'same' varies along the inner batch only, and the other way round."""
    m.manual_seed(0)
    x = m.zeros(3, 4)
    inner_different = m.func.vmap(m.func.vmap(lambda a: a + m.rand(()), randomness="different"), randomness="same")
    outer_different = m.func.vmap(m.func.vmap(lambda a: a + m.rand(()), randomness="same"), randomness="different")
    across_outer, across_inner = inner_different(x), outer_different(x)
    assert all(rows_equal(m, across_outer)) and not any(rows_equal(m, across_outer.t()))
    assert all(rows_equal(m, across_inner.t())) and not any(rows_equal(m, across_inner))


def test_random_in_place_draws_fall_back_per_randomness() -> None:
    """uniform_ has no rule under 'same': the loop rewinds the generator before each element."""
    glassgrad.manual_seed(0)
    x = glassgrad.zeros(4, 8)
    same = glassgrad.func.vmap(lambda a: a.clone().uniform_(), randomness="same")(x)
    different = glassgrad.func.vmap(lambda a: a.clone().uniform_(), randomness="different")(x)
    assert all(rows_equal(glassgrad, same)) and not any(rows_equal(glassgrad, different))


def test_randomness_error_leaves_the_generator_usable(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x, _ = batch(m)
        refused = [
            oracle.attempt(lambda: m.func.vmap(lambda a: a + m.rand(4))(x)),
            oracle.attempt(lambda: m.func.vmap(lambda a: a + m.randn_like(a))(x)),
            oracle.attempt(lambda: m.func.vmap(lambda a: m.nn.functional.dropout(a, 0.5))(x)),
        ]
        return (
            refused,
            tuple(m.rand(2).shape),
            m.func.vmap(lambda a: m.nn.functional.dropout(a, 0.5, training=False))(x),
        )

    oracle.check(program)


ERRORS: dict[str, Callable[[ModuleType], Any]] = {
    "batch_sizes_differ": lambda m: m.func.vmap(lambda a, b: a)(*batch(m)),
    "in_dim_out_of_range": lambda m: m.func.vmap(lambda a: a, in_dims=2)(batch(m)[0]),
    "negative_in_dim_out_of_range": lambda m: m.func.vmap(lambda a: a, in_dims=-3)(batch(m)[0]),
    "in_dims_structure": lambda m: m.func.vmap(lambda a: a, in_dims=(0, 0))(batch(m)[0]),
    "in_dims_nested_structure": lambda m: m.func.vmap(lambda t: t, in_dims=((0, 0),))((batch(m)[0],)),
    "in_dims_list": lambda m: m.func.vmap(lambda a: a, in_dims=[0])(batch(m)[0]),
    "in_dims_float": lambda m: m.func.vmap(lambda a: a, in_dims=(0.0,))(batch(m)[0]),
    "nothing_mapped": lambda m: m.func.vmap(lambda a: a, in_dims=None)(batch(m)[0]),
    "map_over_number": lambda m: m.func.vmap(lambda a: a)(3.0),
    "map_over_scalar_tensor": lambda m: m.func.vmap(lambda a: a)(m.tensor(3.0)),
    "no_inputs": lambda m: m.func.vmap(lambda: batch(m)[0])(),
    "returns_number": lambda m: m.func.vmap(lambda a: 3.0)(batch(m)[0]),
    "returns_none": lambda m: m.func.vmap(lambda a: None)(batch(m)[0]),
    "out_dims_structure": lambda m: m.func.vmap(lambda a: a, out_dims=(0, 1))(batch(m)[0]),
    "out_dims_tuple_structure": lambda m: m.func.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(batch(m)[0]),
    "out_dims_not_int": lambda m: m.func.vmap(lambda a: a, out_dims="a")(batch(m)[0]),
    "out_dims_out_of_range": lambda m: m.func.vmap(lambda a: a, out_dims=3)(batch(m)[0]),
    "out_dim_none_on_batched": lambda m: m.func.vmap(lambda a: a + 1, out_dims=None)(batch(m)[0]),
    "randomness_unknown": lambda m: m.func.vmap(lambda a: a, randomness="sometimes"),
    "chunk_size_zero": lambda m: m.func.vmap(lambda a: a, chunk_size=0),
    "in_place_without_a_rule_into_an_unbatched_tensor": lambda m: m.func.vmap(
        lambda a: m.zeros(4, dtype=m.float64).index_add_(0, m.tensor([0, 1]), a[:2])
    )(batch(m)[0]),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(oracle: Any, case: str) -> None:
    outcome = oracle.check(lambda m: oracle.attempt(lambda: ERRORS[case](m)))
    assert type(outcome).__name__ == "Raised", f"PyTorch did not raise for {case}: the case tests nothing"


def test_unbatched_outputs(oracle: Any) -> None:
    """out_dims=None hands back an output that does not depend on the batch, and non-tensor outputs with it."""

    def program(m: ModuleType) -> Any:
        x, _ = batch(m)
        return m.func.vmap(lambda a: (a * 2, m.ones(2), "label"), out_dims=(0, None, None))(x)

    oracle.check(program)


def test_fallback_warning_is_given_once_per_op(monkeypatch: pytest.MonkeyPatch, oracle: Any) -> None:
    """An op without a batching rule (kron) runs once per element, warns once for that op, and matches PyTorch."""
    monkeypatch.setattr(dispatch_module, "_warned", set())
    x = glassgrad.ones(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        glassgrad.func.vmap(lambda a: a.kron(a) * 2)(x)
        glassgrad.vmap(lambda a: glassgrad.kron(a, a).sin())(x)
    assert [w.category for w in caught] == [glassgrad.func.VmapLoopWarning]
    assert "batching rule for glassgrad.kron" in str(caught[0].message)
    assert caught[0].filename == __file__, "the warning points at the caller's line"
    oracle.check(lambda m: m.func.vmap(lambda a, b: m.kron(a, b).exp(), in_dims=(0, None))(*batch(m)))


def test_empty_batch(oracle: Any) -> None:
    """Rules batch an empty batch as functorch does; an op without one cannot know its result's shape."""
    oracle.check(lambda m: m.func.vmap(lambda a: (a.sin() @ a).sum(-1, keepdim=True))(m.ones(0, 3)))
    with pytest.raises(NotImplementedError, match="the batch is empty"):
        glassgrad.func.vmap(lambda a: a.kron(a))(glassgrad.ones(0, 3))


def test_fallback_in_nested_vmap_and_in_place(oracle: Any) -> None:
    """The loop at one level, inside and around rules at the other, and an in-place op without a rule (index_fill_)
    writing into each element's view and handing back its argument."""

    def program(m: ModuleType) -> Any:
        x, y = batch(m)
        return (
            m.func.vmap(m.func.vmap(lambda a, b: m.kron(a, b).sum(0), in_dims=(0, None)))(x.reshape(3, 2, 2), y),
            m.func.vmap(lambda a: a.clone().index_fill_(0, m.tensor([1]), -1.0).cos())(x),
            m.func.vmap(lambda a: a.clone().index_fill_(0, m.tensor([1]), -1.0), in_dims=1, out_dims=1)(x),
        )

    oracle.check(program)


def test_ops_are_themselves_outside_vmap() -> None:
    """The dispatchers are installed for the duration of the outermost vmap only, and removed after an error too."""
    sin, add, relu, linear = glassgrad.sin, glassgrad.Tensor.__add__, glassgrad.Tensor.relu, glassgrad.nn.functional.linear
    seen = []

    def fails(a: Any) -> Any:
        seen.append((glassgrad.sin is sin, glassgrad.Tensor.__add__ is add, glassgrad.nn.functional.linear is linear))
        raise ValueError("inside")

    with pytest.raises(ValueError, match="inside"):
        glassgrad.func.vmap(fails)(glassgrad.ones(2, 3))
    assert seen == [(False, False, False)]
    assert glassgrad.sin is sin and glassgrad.Tensor.__add__ is add and glassgrad.Tensor.relu is relu
    assert glassgrad.nn.functional.linear is linear
    assert glassgrad.nn.ReLU._function is glassgrad.nn.functional.relu
    assert not dispatch_module.LEVELS


def test_vmap_over_a_vjp_function(oracle: Any) -> None:
    """vmap(vjp_fn)(basis): the Jacobian by one vector-Jacobian product per cotangent, made outside the vmap,
    alone and with the outputs batched at an outer vmap."""

    def program(m: ModuleType) -> Any:
        x, _ = batch(m)
        f = lambda a: a.sin() * a.sum()  # noqa: E731
        _, vjp_fn = m.func.vjp(f, x[0])
        per_row = m.func.vmap(lambda a: m.func.vmap(m.func.vjp(f, a)[1])(m.eye(4, dtype=m.float64) * 2))(x)
        return m.func.vmap(vjp_fn)(m.eye(4, dtype=m.float64)), per_row

    oracle.check(program)


def test_an_op_held_outside_glassgrad_says_why_it_fails() -> None:
    """A function taken from glassgrad's internals before vmap ran is not dispatched: it refuses the batched tensor
    clearly (the public names are dispatched); a name no tensor has is an AttributeError as on a tensor."""
    from glassgrad.ops.elementwise import sin

    def uses_internal_sin(a: Any) -> Any:
        assert not hasattr(a, "no_such_attribute")
        return sin(a)

    with pytest.raises(RuntimeError, match="an op reached it without vmap's dispatch"):
        glassgrad.func.vmap(uses_internal_sin)(glassgrad.ones(2, 3))
