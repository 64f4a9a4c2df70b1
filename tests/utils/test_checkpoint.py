"""utils.checkpoint: the same gradients as PyTorch's, less memory held during forward, the same randomness."""

from __future__ import annotations

import functools
import tracemalloc
from typing import Any

import numpy as np
import pytest
import torch
import torch.utils.checkpoint as torch_checkpoint

import glassgrad
from glassgrad.utils.checkpoint import checkpoint, checkpoint_sequential

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 6))
WEIGHTS = [RNG.standard_normal((6, 6)) * 0.5 for _ in range(3)]


def block(m: Any, weights: list[Any]) -> Any:
    def run(h: Any) -> Any:
        for w in weights:
            h = (h @ w).tanh() * 1.5
        return h

    return run


def gradients(m: Any, checkpointing: Any, **options: Any) -> list[np.ndarray]:
    x = m.tensor(X, requires_grad=True)
    weights = [m.tensor(w, requires_grad=True) for w in WEIGHTS]
    out = checkpointing(block(m, weights), x, **options) if checkpointing else block(m, weights)(x)
    (out**2).sum().backward()
    return [t.grad.numpy() for t in (x, *weights)]


@pytest.mark.torch_oracle
@pytest.mark.parametrize("use_reentrant", [False, True])
def test_gradients_match_pytorchs_checkpoint(use_reentrant: bool) -> None:
    expected = gradients(torch, torch_checkpoint.checkpoint, use_reentrant=use_reentrant)
    for a, e in zip(gradients(glassgrad, checkpoint, use_reentrant=use_reentrant), expected, strict=True):
        np.testing.assert_allclose(a, e, rtol=1e-12)
    for a, e in zip(gradients(glassgrad, None), expected, strict=True):
        np.testing.assert_allclose(a, e, rtol=1e-12)


@pytest.mark.torch_oracle
def test_leaving_use_reentrant_out_warns_as_pytorch_does() -> None:
    def first_line(m: Any, checkpointing: Any) -> str:
        with pytest.warns(UserWarning) as caught:
            checkpointing(lambda t: t * 2, m.ones(2, requires_grad=True))
        return str(caught[0].message).split(".")[0]

    assert first_line(glassgrad, checkpoint) == first_line(torch, torch_checkpoint.checkpoint)


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_dropout_inside_is_replayed_with_the_same_mask(use_reentrant: bool) -> None:
    def grads(checkpointing: bool) -> np.ndarray:
        glassgrad.manual_seed(3)
        x = glassgrad.tensor(X, requires_grad=True)

        def noisy(t: Any) -> Any:
            return glassgrad.nn.functional.dropout(t.tanh(), p=0.5, training=True).exp()

        out = checkpoint(noisy, x, use_reentrant=use_reentrant) if checkpointing else noisy(x)
        out.sum().backward()
        return x.grad.numpy()

    np.testing.assert_array_equal(grads(True), grads(False))


def peak_bytes(checkpointing: bool) -> int:
    x = glassgrad.randn(256, 512, requires_grad=True)
    weights = [glassgrad.randn(512, 512) * 0.05 for _ in range(6)]
    for w in weights:
        w.requires_grad_()
    tracemalloc.start()
    out = checkpoint(block(glassgrad, weights), x, use_reentrant=False) if checkpointing else block(glassgrad, weights)(x)
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    out.sum().backward()
    return held


def test_checkpointed_forward_keeps_no_activations() -> None:
    plain, checkpointed = peak_bytes(False), peak_bytes(True)
    activation = 256 * 512 * 4
    assert plain > 8 * activation  # tanh results and the scaled products, per layer
    assert checkpointed < 2 * activation, f"checkpointed forward still holds {checkpointed:,} bytes"


def test_checkpoint_sequential_matches_the_plain_sequential() -> None:
    glassgrad.manual_seed(0)
    layers = glassgrad.nn.Sequential(*[glassgrad.nn.Linear(6, 6) for _ in range(4)], glassgrad.nn.Tanh())

    def grads(segments: int | None) -> list[np.ndarray]:
        layers.zero_grad()
        x = glassgrad.tensor(X, dtype=glassgrad.float32, requires_grad=True)
        out = checkpoint_sequential(layers, segments, x, use_reentrant=False) if segments else layers(x)
        out.sum().backward()
        return [x.grad.numpy().copy(), *(p.grad.numpy().copy() for p in layers.parameters())]

    for a, e in zip(grads(2), grads(None), strict=True):
        np.testing.assert_allclose(a, e, rtol=1e-6)


# -- early stop, determinism checks, context_fn: each outcome compared with PyTorch's ------------------------------
def _outcome(fn: Any) -> Any:
    try:
        return fn()
    except Exception as error:
        return type(error).__name__, str(error).split("\n")[0]


def _recomputations(m: Any, context_value: bool | None, argument: bool | None) -> Any:
    calls = [0]

    def copy(x: Any) -> Any:
        calls[0] += 1  # clone saves nothing: an early-stopped recomputation never reaches it
        return x.clone()

    a = m.tensor(1.0, dtype=m.float64, requires_grad=True)
    options = {} if argument is None else {"early_stop": argument}
    if context_value is None:
        out = m.utils.checkpoint.checkpoint(lambda x: copy(x.sin().cos()), a, use_reentrant=False, **options)
    else:
        with m.utils.checkpoint.set_checkpoint_early_stop(context_value):
            out = m.utils.checkpoint.checkpoint(lambda x: copy(x.sin().cos()), a, use_reentrant=False, **options)
    out.backward()
    return calls[0], a.grad.item()


@pytest.mark.torch_oracle
@pytest.mark.parametrize("argument", [None, True, False])
@pytest.mark.parametrize("context_value", [None, True, False])
def test_early_stop_skips_the_rest_of_the_recomputation(context_value: bool | None, argument: bool | None) -> None:
    assert _recomputations(glassgrad, context_value, argument) == _recomputations(torch, context_value, argument)


def _changing(m: Any, first: str, then: str, early_stop: bool) -> Any:
    bodies = {
        "three saves": lambda x: x.sin().exp().sin(),
        "two saves": lambda x: x.sin().exp(),
        "two saves, another shape": lambda x: x.sin() * m.tensor([1.0, 2.0], dtype=m.float64),
    }
    runs = [first, then]

    def fn(x: Any) -> Any:
        return bodies[runs.pop(0)](x)

    a = m.tensor([0.5], dtype=m.float64, requires_grad=True)

    def run() -> Any:
        with m.utils.checkpoint.set_checkpoint_early_stop(early_stop):
            out = m.utils.checkpoint.checkpoint(fn, a, use_reentrant=False)
        out.sum().backward()
        return a.grad.tolist()

    return _outcome(run)


@pytest.mark.torch_oracle
@pytest.mark.parametrize(
    ("first", "then"),
    [("three saves", "two saves"), ("two saves", "three saves"), ("two saves", "two saves, another shape")],
)
@pytest.mark.parametrize("early_stop", [True, False])
def test_a_recomputation_that_saves_otherwise_raises(first: str, then: str, early_stop: bool) -> None:
    assert _changing(glassgrad, first, then, early_stop) == _changing(torch, first, then, early_stop)


def _with_contexts(m: Any) -> Any:
    entered = []

    class Note:
        def __init__(self, name: str) -> None:
            self.name = name

        def __enter__(self) -> None:
            entered.append(self.name)

        def __exit__(self, *exc: object) -> None:
            pass

    a = m.tensor([0.5, 1.0], dtype=m.float64, requires_grad=True)
    out = m.utils.checkpoint.checkpoint(
        lambda x: x.sin().exp(), a, use_reentrant=False, context_fn=lambda: (Note("forward"), Note("recompute"))
    )
    out.sum().backward()
    refused = _outcome(lambda: m.utils.checkpoint.checkpoint(m.exp, a, use_reentrant=True, context_fn=lambda: None))
    return entered, a.grad.tolist(), refused


@pytest.mark.torch_oracle
def test_context_fn_wraps_the_forward_and_the_recomputation() -> None:
    assert _with_contexts(glassgrad) == _with_contexts(torch)


def _reentrant_under_grad(m: Any) -> Any:
    a = m.ones(2, 2, requires_grad=True)
    b = m.utils.checkpoint.checkpoint(m.exp, a, use_reentrant=True).sum()
    return _outcome(lambda: m.autograd.grad(b, (a,)))


@pytest.mark.torch_oracle
def test_reentrant_checkpoint_refuses_autograd_grad() -> None:
    assert _reentrant_under_grad(glassgrad) == _reentrant_under_grad(torch)


def test_checkpoint_policies_are_named_as_pytorchs() -> None:
    assert [p.name for p in glassgrad.utils.checkpoint.CheckpointPolicy] == [p.name for p in torch_checkpoint.CheckpointPolicy]


def test_an_early_stop_inside_a_custom_function_leaves_no_cycle() -> None:
    import gc
    import weakref

    refs = []

    class Keep(glassgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            y = x.clone()
            ctx.save_for_backward(y)  # the recomputation stops while saving this
            refs.append(weakref.ref(y))
            return y

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            assert len(ctx.saved_tensors) == 1  # unpacking runs the recomputation
            return grad

    x = glassgrad.randn(3, requires_grad=True)
    gc.disable()
    try:
        checkpoint(Keep.apply, x, use_reentrant=False).sum().backward()
        assert [ref() for ref in refs] == [None, None]
    finally:
        gc.enable()


def _nested_gradients(m: Any, early_stop: bool) -> list[float]:
    """Second derivatives through checkpoints nested in checkpoints, with a grad taken inside the innermost."""

    def inner(x: Any) -> Any:
        (g,) = m.autograd.grad(x.cos().exp().sum(), x, create_graph=True)  # a grad inside the checkpointed function
        return (g * x.sin()).tanh()

    def ck(fn: Any) -> Any:
        return lambda x: m.utils.checkpoint.checkpoint(fn, x, use_reentrant=False)

    def grad(fn: Any) -> Any:
        return lambda x: m.autograd.grad(fn(x).sum(), x, create_graph=True)[0]

    x = m.tensor([0.3, -1.2, 0.7], requires_grad=True)
    with m.utils.checkpoint.set_checkpoint_early_stop(early_stop):
        results = [f(x) for f in (grad(grad(inner)), grad(ck(grad(ck(inner)))), ck(grad(grad(ck(ck(inner))))))]
    return [float(v) for r in results for v in r.detach().numpy()]


@pytest.mark.torch_oracle
@pytest.mark.parametrize("early_stop", [True, False])
def test_nested_checkpoints_recompute_through_their_parents(early_stop: bool) -> None:
    np.testing.assert_allclose(_nested_gradients(glassgrad, early_stop), _nested_gradients(torch, early_stop), rtol=1e-6)


def _saved_tensors_read_twice(m: Any) -> Any:
    class Twice(m.autograd.Function):
        @staticmethod
        def forward(x: Any) -> Any:
            return x * 2

        @staticmethod
        def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            ctx.saved_tensors  # noqa: B018  (the first read hands out the recomputed tensor)
            return grad * ctx.saved_tensors[0]

    x = m.ones(2, requires_grad=True)
    return _outcome(lambda: m.utils.checkpoint.checkpoint(lambda t: Twice.apply(t * 3), x, use_reentrant=False).sum().backward())


@pytest.mark.torch_oracle
def test_a_recomputed_tensor_is_handed_out_once_per_backward() -> None:
    assert _saved_tensors_read_twice(glassgrad) == _saved_tensors_read_twice(torch)


def _pow_gradients(m: Any) -> list[np.ndarray]:
    base, exponent = m.tensor([1.5, 2.0], requires_grad=True), m.tensor([0.5, 3.0], requires_grad=True)
    m.utils.checkpoint.checkpoint(m.pow, base, exponent, use_reentrant=False).sum().backward()
    return [base.grad.numpy(), exponent.grad.numpy()]


@pytest.mark.torch_oracle
def test_an_op_whose_formulas_share_a_saved_tensor_unpacks_it_once() -> None:
    for a, e in zip(_pow_gradients(glassgrad), _pow_gradients(torch), strict=True):
        np.testing.assert_allclose(a, e, rtol=1e-6)


def _selective(m: Any, saved: list[str], backwards: int = 1, mutate: bool = False, allow_mutation: bool = False) -> Any:
    """Gradients through a selectively checkpointed block, and how often the backward pass ran sin and tanh."""
    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

    from glassgrad.utils._python_dispatch import TorchDispatchMode

    class Count(TorchMode if m is torch else TorchDispatchMode):  # type: ignore[misc, valid-type]
        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            calls.append(str(func))
            return func(*args, **(kwargs or {}))

    def block(x: Any, w: Any) -> Any:
        h = x.sin()
        if mutate:
            h = h.mul_(2)
        return m.mm(h, w).tanh().cos()

    x, w = m.tensor(X[:2, :3], requires_grad=True), m.tensor(WEIGHTS[0][:3, :3], requires_grad=True)
    ops = [getattr(m.ops.aten, name).default for name in saved]
    context_fn = functools.partial(m.utils.checkpoint.create_selective_checkpoint_contexts, ops, allow_cache_entry_mutation=allow_mutation)
    out = m.utils.checkpoint.checkpoint(block, x, w, use_reentrant=False, context_fn=context_fn).sum()
    calls: list[str] = []
    with Count():
        outcomes = [_outcome(lambda: out.backward(retain_graph=True)) for _ in range(backwards)]
    return outcomes, [calls.count(f"aten.{name}.default") for name in ("sin", "tanh")], [None if t.grad is None else t.grad.numpy().round(5).tolist() for t in (x, w)]


@pytest.mark.torch_oracle
@pytest.mark.parametrize("saved", [[], ["sin"], ["sin", "tanh"]])
def test_selective_checkpointing_recomputes_only_what_the_policy_does_not_save(saved: list[str]) -> None:
    assert _selective(glassgrad, saved) == _selective(torch, saved)


@pytest.mark.torch_oracle
@pytest.mark.parametrize("backwards, mutate, allow_mutation", [(2, False, False), (1, True, False), (1, True, True)])
def test_selective_checkpointing_refuses_a_second_backward_and_a_mutated_cache(backwards: int, mutate: bool, allow_mutation: bool) -> None:
    ours = _selective(glassgrad, ["sin"], backwards, mutate, allow_mutation)
    theirs = _selective(torch, ["sin"], backwards, mutate, allow_mutation)
    assert ours[0] == theirs[0]


def _bad_policies(m: Any) -> list[Any]:
    create = m.utils.checkpoint.create_selective_checkpoint_contexts
    return [_outcome(lambda bad=bad: create(bad)) for bad in ([2], [m.ops.aten.sin], 2)]


@pytest.mark.torch_oracle
def test_selective_checkpointing_refuses_what_is_not_a_policy() -> None:
    ours, theirs = _bad_policies(glassgrad), _bad_policies(torch)
    assert [(kind, message.split(" but got")[0]) for kind, message in ours] == [(kind, message.split(" but got")[0]) for kind, message in theirs]


def test_selective_checkpointing_frees_what_it_kept_once_handed_out() -> None:
    import gc
    import weakref

    kept = []

    def policy(ctx: Any, op: Any, *args: Any, **kwargs: Any) -> Any:
        return glassgrad.utils.checkpoint.CheckpointPolicy.MUST_SAVE

    def block(x: Any) -> Any:
        out = x.cos().exp()
        mode = glassgrad.utils._python_dispatch._get_current_dispatch_mode()
        if not kept:
            kept.append(weakref.ref(mode.storage[glassgrad.ops.aten.exp.default][0].val))
        return out.sin()

    gc.disable()
    try:
        x = glassgrad.randn(3, requires_grad=True)
        context_fn = functools.partial(glassgrad.utils.checkpoint.create_selective_checkpoint_contexts, policy)
        out = checkpoint(block, x, use_reentrant=False, context_fn=context_fn)
        assert kept[0]() is not None
        out.sum().backward(retain_graph=True)
        assert kept[0]() is None
    finally:
        gc.enable()


def _custom_op_kept(m: Any) -> list[Any]:
    calls = [0]

    def twice_sin(x: Any) -> Any:
        calls[0] += 1
        return x.sin() * 2, 2

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        ctx.save_for_backward(*inputs)

    def backward(ctx: Any, grad: Any, _unused: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grad * 2 * x.cos()

    with m.library._scoped_library("ckpt_test", "FRAGMENT"):
        m.library.custom_op("ckpt_test::twice_sin", twice_sin, mutates_args=(), schema="(Tensor x) -> (Tensor, int)")
        m.library.register_autograd("ckpt_test::twice_sin", backward, setup_context=setup_context)
        x = m.tensor(X[0, :3], requires_grad=True)
        op = m.ops.ckpt_test.twice_sin
        context_fn = functools.partial(m.utils.checkpoint.create_selective_checkpoint_contexts, [op.default])
        out = m.utils.checkpoint.checkpoint(lambda t: (op(t)[0] * t.exp()).sin(), x, use_reentrant=False, context_fn=context_fn)
        (g,) = m.autograd.grad(out.sum(), (x,))
    return [calls[0], str(op.default), g.numpy().round(5).tolist()]


@pytest.mark.torch_oracle
def test_selective_checkpointing_keeps_a_custom_ops_outputs() -> None:
    assert _custom_op_kept(glassgrad) == _custom_op_kept(torch)
