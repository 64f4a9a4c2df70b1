"""Surface of PyTorch 2.13 that its own autograd tests and real programs reach, each checked against PyTorch:
grad modes as bare decorators, output_nr, multi-grad hooks, gradient edges, queued engine callbacks,
deprecated names and overloads 2.13 still takes, and NumPy operands on either side of an operator."""

from __future__ import annotations

import asyncio
import operator
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np
import pytest

from .conftest import attempt, warned

pytestmark = pytest.mark.torch_oracle


# -- grad modes as decorators -------------------------------------------------------------------------------------
def _bare_mode_decorators(m: ModuleType) -> Any:
    @m.no_grad
    def doubled(x: Any) -> Any:
        return x * 2

    @m.enable_grad
    def tripled(x: Any) -> Any:
        return x * 3

    @m.inference_mode
    def halved(x: Any) -> Any:
        return x / 2

    x = m.ones(2, requires_grad=True)
    with m.no_grad():
        inside = tripled(x)
    return doubled(x).requires_grad, inside.requires_grad, halved(x).is_inference(), m.is_grad_enabled()


def test_grad_modes_decorate_without_parentheses(oracle: SimpleNamespace) -> None:
    assert oracle.check(_bare_mode_decorators) == (False, True, True, True)


def _decorated_class(m: ModuleType) -> Any:
    def define() -> Any:
        @m.no_grad
        class Holder:
            def __init__(self, x: Any) -> None:
                self.y = x * 2

        return Holder

    made = warned(define)
    holder = made.value(m.ones(1, requires_grad=True))
    return holder.y.requires_grad, isinstance(made.value, type), made.warnings


def test_a_decorated_class_is_constructed_in_the_mode_with_a_future_warning(oracle: SimpleNamespace) -> None:
    oracle.check(_decorated_class)


def _generator_in_mode(m: ModuleType) -> Any:
    seen = []

    @m.no_grad()
    def steps() -> Any:
        while True:
            try:
                yield m.is_grad_enabled()
            except ValueError:
                seen.append(("thrown", m.is_grad_enabled()))
                yield "recovered"
            finally:
                seen.append(("closing", m.is_grad_enabled()))

    gen = steps()
    first = next(gen)
    outside = m.is_grad_enabled()
    recovered = gen.throw(ValueError())
    gen.close()
    return first, outside, recovered, seen


def test_a_decorated_generator_runs_its_throws_and_close_in_the_mode(oracle: SimpleNamespace) -> None:
    oracle.check(_generator_in_mode)


def _decorated_coroutine(m: ModuleType) -> Any:
    @m.no_grad
    async def scaled(x: Any) -> Any:
        return x * 2

    return asyncio.run(scaled(m.ones(1, requires_grad=True))).requires_grad


def test_a_decorated_coroutine_is_created_in_the_mode(oracle: SimpleNamespace) -> None:
    oracle.check(_decorated_coroutine)


# -- graph surface -------------------------------------------------------------------------------------------------
def _output_numbers(m: ModuleType) -> Any:
    x = m.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, indices = x.sort()
    return x.output_nr, (x * 2).output_nr, values.output_nr, indices.output_nr


def test_output_nr_names_the_output_of_its_node(oracle: SimpleNamespace) -> None:
    oracle.check(_output_numbers)


def _multi_grad_hook(m: ModuleType, mode: str) -> Any:
    a, b = m.ones(2, requires_grad=True), m.ones(2, requires_grad=True)
    c, d = a * b, a * 3
    calls = []

    def record(grads: Any) -> None:
        calls.append([g is not None for g in grads] if isinstance(grads, (list, tuple)) else grads.tolist())

    handle = m.autograd.graph.register_multi_grad_hook((a, b, c, d), record, mode=mode)
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    (c + d).sum().backward()
    handle.remove()
    (a * b).sum().backward()
    return calls


@pytest.mark.parametrize("mode", ["all", "any"])
def test_multi_grad_hooks_fire_once_per_backward(oracle: SimpleNamespace, mode: str) -> None:
    oracle.check(lambda m: _multi_grad_hook(m, mode))


def test_multi_grad_hook_modes_are_checked(oracle: SimpleNamespace) -> None:
    oracle.check(lambda m: m.autograd.graph.register_multi_grad_hook([m.ones(1, requires_grad=True)], print, mode="some"))


def _gradient_edges(m: ModuleType) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = (y * y).sum()
    edge_x, edge_y = m.autograd.graph.get_gradient_edge(x), m.autograd.graph.get_gradient_edge(y)
    by_edge = m.autograd.grad(z, edge_y, retain_graph=True)
    through = m.autograd.grad(edge_y, edge_x, grad_outputs=by_edge)
    refused = attempt(lambda: m.autograd.graph.get_gradient_edge(m.ones(1)))
    return by_edge, through, edge_y.output_nr, refused


def test_gradient_edges_stand_for_their_tensors_in_grad(oracle: SimpleNamespace) -> None:
    oracle.check(_gradient_edges)


def _queued_callbacks(m: ModuleType) -> Any:
    order = []
    x = m.ones(2, requires_grad=True)

    def hook(grad: Any) -> None:
        order.append("hook")
        m.autograd.Variable._execution_engine.queue_callback(lambda: order.append(("callback", x.grad is not None)))

    y = x * 2
    y.register_hook(hook)
    y.sum().backward()
    outside = attempt(lambda: m.autograd.Variable._execution_engine.queue_callback(lambda: None))
    return order, outside


def test_queued_callbacks_run_when_the_backward_ends(oracle: SimpleNamespace) -> None:
    oracle.check(_queued_callbacks)


def _atan2_at_the_origin(m: ModuleType) -> Any:
    y = m.tensor([0.0, 1.0, -2.0], dtype=m.float64, requires_grad=True)
    x = m.tensor([0.0, 0.0, 3.0], dtype=m.float64, requires_grad=True)
    return m.autograd.grad(m.atan2(y, x).sum(), (y, x))


def test_atan2_has_a_zero_gradient_at_the_origin(oracle: SimpleNamespace) -> None:
    oracle.check(_atan2_at_the_origin)


# -- deprecated names and overloads --------------------------------------------------------------------------------
def _old_value_overloads(m: ModuleType, name: str) -> Any:
    t, a, b = m.ones(2), m.tensor([2.0, 4.0]), m.tensor([4.0, 8.0])
    # PyTorch warns once per process for all deprecated overloads, so only the results are compared
    return warned(lambda: getattr(m, name)(t, 0.5, a, b)).value, warned(lambda: getattr(t, name)(0.5, a, b)).value


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_the_positional_value_overload_still_works(oracle: SimpleNamespace, name: str) -> None:
    oracle.check(lambda m: _old_value_overloads(m, name))


def test_the_positional_value_overload_warns() -> None:
    import glassgrad

    with pytest.warns(UserWarning, match=r"^This overload of addcdiv is deprecated:\n\taddcdiv\(Tensor input, Number value"):
        glassgrad.addcdiv(glassgrad.ones(1), 2.0, glassgrad.ones(1), glassgrad.ones(1))


def _old_alpha_overloads(m: ModuleType, name: str) -> Any:
    """name(input, alpha, other): function, method, in place (an old optimizer's `exp_avg.add_(1 - beta1, grad)`),
    with out=, with a 0-dim tensor as alpha, and its gradients."""
    x, g = m.tensor([1.0, -2.0, 3.0], requires_grad=True), m.tensor([0.5, 4.0, -1.0], requires_grad=True)
    state, out = m.ones(3), m.empty(3)
    results = [
        warned(lambda: getattr(m, name)(x, 0.25, g)).value,
        warned(lambda: getattr(x, name)(3, g)).value,
        warned(lambda: getattr(state, f"{name}_")(0.1, g.detach())).value,
        warned(lambda: getattr(m, name)(x.detach(), 2, g.detach(), out=out)).value,
        warned(lambda: getattr(state, name)(m.tensor(2.0), g.detach())).value,
    ]
    warned(lambda: getattr(x, name)(-1.5, g)).value.sum().backward()
    return results, out, state, x.grad, g.grad


@pytest.mark.parametrize("name", ["add", "sub"])
def test_the_positional_alpha_overload_still_works(oracle: SimpleNamespace, name: str) -> None:
    oracle.check(lambda m: _old_alpha_overloads(m, name))


def test_the_positional_alpha_overload_warns_and_takes_one_alpha() -> None:
    import glassgrad

    with pytest.warns(UserWarning, match=r"^This overload of sub is deprecated:\n\tsub\(Tensor input, Number alpha"):
        glassgrad.sub(glassgrad.ones(1), 2.0, glassgrad.ones(1))
    with pytest.raises(TypeError, match=r"^add\(\) takes from 2 to 3 positional arguments but 4 were given$"):
        glassgrad.add(glassgrad.ones(1), 2.0, glassgrad.ones(1), 3.0)


def _old_clip_name(m: ModuleType) -> Any:
    p = m.nn.Parameter(m.ones(2))
    p.grad = m.tensor([3.0, 4.0])
    return warned(lambda: m.nn.utils.clip_grad_norm([p], 1.0)), p.grad


def test_clip_grad_norm_keeps_its_old_name(oracle: SimpleNamespace) -> None:
    oracle.check(_old_clip_name)


def _module_backward_hook(m: ModuleType, inner: bool) -> Any:
    seen = []
    net = m.nn.ReLU() if inner else m.nn.Linear(2, 2)
    net.register_backward_hook(lambda module, gi, go: seen.append((type(module).__name__, len(gi), len(go))))
    x = m.ones(3, 2, requires_grad=True)
    out = warned(lambda: net(x * 1 if inner else x))
    out.value.sum().backward()
    return seen, [kind for kind, _ in out.warnings]


@pytest.mark.parametrize("inner", [True, False])
def test_module_backward_hooks_see_the_output_node(oracle: SimpleNamespace, inner: bool) -> None:
    oracle.check(lambda m: _module_backward_hook(m, inner))


def _mixing_hook_kinds(m: ModuleType) -> Any:
    net = m.nn.ReLU()
    net.register_backward_hook(lambda *args: None)
    return attempt(lambda: net.register_full_backward_hook(lambda *args: None))


def test_module_hook_kinds_do_not_mix(oracle: SimpleNamespace) -> None:
    oracle.check(_mixing_hook_kinds)


def _like_factories_on_a_device(m: ModuleType) -> Any:
    x = m.ones(2, 3, dtype=m.float64)
    made = [f(x, device="cpu") for f in (m.zeros_like, m.ones_like, m.empty_like, m.rand_like, m.randn_like)]
    grads = m.rand_like(x, device="cpu", requires_grad=True)
    return [(tuple(t.shape), t.dtype, t.device.type) for t in made], grads.requires_grad


def test_like_factories_take_a_device(oracle: SimpleNamespace) -> None:
    oracle.check(_like_factories_on_a_device)


# -- NumPy operands ------------------------------------------------------------------------------------------------
OPERATORS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.floordiv, operator.mod, operator.lt, operator.eq]
SCALARS = [np.float64(2.0), np.float32(3.0), np.int64(3)]


@pytest.mark.parametrize("op", OPERATORS, ids=lambda op: op.__name__)
@pytest.mark.parametrize("scalar", SCALARS, ids=lambda s: type(s).__name__)
def test_numpy_scalars_on_either_side_give_tensors(oracle: SimpleNamespace, op: Any, scalar: Any) -> None:
    def program(m: ModuleType) -> Any:
        results = []
        for dtype in (m.float32, m.float16, m.int32):
            t = m.tensor([1.0, 2.0]).to(dtype)
            left, right = op(scalar, t), op(t, scalar)
            results.append((type(left).__name__, left.dtype, left, type(right).__name__, right.dtype, right))
        return results

    oracle.check(program)


def _numpy_scalar_keeps_the_graph(m: ModuleType) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = np.float64(3.0) * x + np.float32(1.0)
    y.sum().backward()
    return type(y).__name__, x.grad


def test_a_numpy_scalar_on_the_left_keeps_the_graph(oracle: SimpleNamespace) -> None:
    oracle.check(_numpy_scalar_keeps_the_graph)


def test_numpy_ufuncs_on_a_tensor_give_a_tensor(oracle: SimpleNamespace) -> None:
    # PyTorch's __array_wrap__ has the signature NumPy 2 deprecates: its warning is not compared
    oracle.check(lambda m: warned(lambda: (type(np.exp(m.ones(2))).__name__, np.exp(m.ones(2)).dtype)).value)


# -- in-place ops on views -----------------------------------------------------------------------------------------
VIEW_WRITES = {
    "unbind": lambda x: x.unbind()[1].mul_(2),
    "split": lambda x: x.split(1)[2].add_(1),
    "split_with_sizes": lambda x: x.split([1, 2])[1].add_(1),
    "chunk": lambda x: x.chunk(3)[1].add_(1),
    "a view of an unbind output": lambda x: x.unbind()[1].view(2).add_(1),
    "a select of an unbind output": lambda x: x.unbind(1)[1][0].add_(1),
    "unsafe_split": lambda x: tuple(x.unsafe_split(1)[1].add_(1).shape),
    "narrow": lambda x: tuple(x.narrow(0, 1, 1).add_(1).shape),
}


@pytest.mark.parametrize("write", VIEW_WRITES.values(), ids=VIEW_WRITES.keys())
@pytest.mark.parametrize("base", ["non-leaf", "leaf", "no grad"])
def test_writing_into_views_of_multi_output_ops(oracle: SimpleNamespace, write: Any, base: str) -> None:
    def program(m: ModuleType) -> Any:
        x = m.ones(3, 2, requires_grad=base != "no grad")
        return attempt(lambda: write(x.clone() if base == "non-leaf" else x))

    oracle.check(program)


def _view_of_a_no_grad_view(m: ModuleType) -> Any:
    a = m.ones(4, requires_grad=True).clone()
    with m.no_grad():
        v = a[1:]
    inner = v[1:]
    refused = attempt(lambda: inner.mul_(2)), attempt(lambda: v.mul_(2))
    with m.no_grad():
        v[1:].mul_(2)
    return refused, a


def test_a_view_of_a_no_grad_view_is_not_written_with_grad_on(oracle: SimpleNamespace) -> None:
    oracle.check(_view_of_a_no_grad_view)


def _retained_then_modified(m: ModuleType, through_view: bool) -> Any:
    a = m.ones(2, requires_grad=True)
    b = a * 2
    b.retain_grad()
    (b[0:1] if through_view else b).mul_(3)
    (b * b).sum().backward()
    return b.grad, a.grad, b.retains_grad


@pytest.mark.parametrize("through_view", [False, True])
def test_retain_grad_survives_an_in_place_op(oracle: SimpleNamespace, through_view: bool) -> None:
    oracle.check(lambda m: _retained_then_modified(m, through_view))


def _views_made_in_a_mode(m: ModuleType, mode: str, make: str) -> Any:
    x = m.zeros(2, 3, requires_grad=True).clone()
    with getattr(m, mode)():
        y = x.unbind()[0] if make == "unbind" else x.view(6)
    return [
        attempt(lambda: y.mul_(2)),
        attempt(lambda: y[1:].mul_(2)),
        attempt(lambda: y.view(-1).unbind()[1].mul_(2)),
    ]


@pytest.mark.parametrize("make", ["view", "unbind"])
@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_views_made_in_no_grad_or_inference_mode_are_not_written_in_normal_mode(
    oracle: SimpleNamespace, mode: str, make: str
) -> None:
    oracle.check(lambda m: _views_made_in_a_mode(m, mode, make))


# -- allow_mutation_on_saved_tensors -------------------------------------------------------------------------------
def _mutated_after_saving(m: ModuleType, allowed: bool, through: str) -> Any:
    def step() -> Any:
        a = m.tensor([0.5, 1.0, 2.0], requires_grad=True)
        b = a.clone()
        saved = b[:2] if through == "a saved view" else b
        out = (saved**2).sum() + (saved.exp() * saved).sum()
        (b[:2] if through == "a view at its start" else b).sin_()
        out.backward()
        return a.grad

    if not allowed:  # the version error (whose node name differs for views: glassgrad replays no as_strided)
        return attempt(step).type
    with m.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        grad = step()
    return grad, len(ctx.cloned)


# (PyTorch finds aliases by data pointer, glassgrad by version counter: they agree on views that start where their
# base does.)
@pytest.mark.parametrize("through", ["the tensor", "a view at its start", "a saved view"])
@pytest.mark.parametrize("allowed", [False, True])
def test_saved_tensors_may_be_mutated_inside_the_context(oracle: SimpleNamespace, allowed: bool, through: str) -> None:
    oracle.check(lambda m: _mutated_after_saving(m, allowed, through))


def _clones_live_with_their_graph(m: ModuleType) -> Any:
    counts = []
    with m.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = m.randn(2, 3, requires_grad=True).clone()
        b, c = a**2, a * a
        a.sin_()
        counts.append(len(ctx.cloned))
        d = a**2
        a.cos_()
        counts.append(len(ctx.cloned))
        del b, c
        counts.append(len(ctx.cloned))
        d.sum().backward()
        counts.append(len(ctx.cloned))
        nested = attempt(lambda: m.autograd.graph.allow_mutation_on_saved_tensors().__enter__())
        out = (a**2).sum()
    return counts, nested, attempt(out.backward)


def test_clones_live_as_long_as_the_graph_that_saved_them(oracle: SimpleNamespace) -> None:
    oracle.check(_clones_live_with_their_graph)


def _hooks_pack_the_original_of_an_in_place_op(m: ModuleType) -> Any:
    leaf = m.tensor([0.5, 1.0], requires_grad=True)
    with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        a = leaf.clone()
        a.sin_()
        a.sum().backward()
    return leaf.grad


def test_saved_tensors_hooks_pack_the_value_an_in_place_op_started_from(oracle: SimpleNamespace) -> None:
    oracle.check(_hooks_pack_the_original_of_an_in_place_op)


def _gradient_edge_roots(m: ModuleType) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)

    def made(reduce: bool) -> Any:
        tmp = x.sin().cos()
        tmp = tmp.sum() if reduce else tmp
        return tmp.exp().sin().sum(), m.autograd.graph.get_gradient_edge(tmp)

    out, edge = made(True)
    (tmp_grad,) = m.autograd.grad(out, (edge,))
    two_steps = m.autograd.grad(edge, (x,), grad_outputs=(tmp_grad,))
    implicit = m.autograd.grad(made(True)[1], (x,))
    refused = [
        attempt(lambda: m.autograd.grad(made(False)[1], (x,))),
        attempt(lambda: m.autograd.grad(made(True)[1], (x,), grad_outputs=m.ones(4))),
        attempt(lambda: m.autograd.grad(made(True)[1], (x,), grad_outputs=m.ones((), dtype=m.complex64))),
    ]
    return two_steps, implicit, refused


def test_gradient_edges_as_roots_check_their_gradients(oracle: SimpleNamespace) -> None:
    oracle.check(_gradient_edge_roots)


def _setup_context_with_defaults(m: ModuleType) -> Any:
    class Power(m.autograd.Function):
        @staticmethod
        def forward(x: Any, y: int = 3) -> Any:
            return x**y

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            x, y = inputs
            ctx.save_for_backward(x)
            ctx.y = y

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return grad * ctx.y * x ** (ctx.y - 1), None

    x = m.tensor([1.0, 2.0], requires_grad=True)
    return m.autograd.grad(Power.apply(x).sum(), x), m.autograd.grad(Power.apply(x, 2).sum(), x)


def test_setup_context_sees_forwards_default_arguments(oracle: SimpleNamespace) -> None:
    oracle.check(_setup_context_with_defaults)


def _packed_inputs_keep_their_history(m: ModuleType) -> Any:
    with m.autograd.graph.saved_tensors_hooks(lambda t: 2 * t, lambda t: t):
        a = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = (a**3).sum()
    (g,) = m.autograd.grad(s, (a,), create_graph=True)
    g.sum().backward()
    return g, a.grad


def test_an_input_packed_by_hooks_is_differentiated_as_the_input(oracle: SimpleNamespace) -> None:
    oracle.check(_packed_inputs_keep_their_history)


def _backward_named_vjp(m: ModuleType, both: bool) -> Any:
    class Twice(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def vjp(ctx: Any, grad: Any) -> Any:
            return grad * 2

    if both:
        Twice.backward = staticmethod(lambda ctx, grad: grad)
    x = m.tensor([1.0, 3.0], requires_grad=True)
    return attempt(lambda: m.autograd.grad(Twice.apply(x).sum(), x))


@pytest.mark.parametrize("both", [False, True])
def test_a_function_may_name_its_backward_vjp(oracle: SimpleNamespace, both: bool) -> None:
    oracle.check(lambda m: _backward_named_vjp(m, both))


def _small_names(m: ModuleType) -> Any:
    a = m.rand(5, requires_grad=True)
    before = a._version
    m.autograd.graph.increment_version(a)
    m.autograd.graph.increment_version([a, a])
    with m.inference_mode():
        inference = m.rand(2)
    m.autograd.graph.increment_version(inference)
    a.grad = m.ones(5)
    del a.grad
    pieces = m.arange(6.0).split_with_sizes([2, 4])
    return a._version - before, a.grad, [p.tolist() for p in pieces], m.split_with_sizes(m.arange(3.0), [1, 2])[1]


def test_increment_version_grad_deletion_and_split_with_sizes(oracle: SimpleNamespace) -> None:
    oracle.check(_small_names)


def _nan_without_a_forward_stack(m: ModuleType) -> Any:
    class Poisoned(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.clone()

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * float("nan")

    out = Poisoned.apply(m.ones(2, requires_grad=True)).sum()

    def run() -> Any:
        with m.autograd.detect_anomaly():
            return attempt(out.backward)

    outcome = warned(run)  # (warned keeps each message's start: PyTorch's ends with where in its C++ source it warned)
    return [(kind, text) for kind, text in outcome.warnings if "Error detected" in text], outcome.value


def test_anomaly_mode_says_when_no_forward_stack_was_kept(oracle: SimpleNamespace) -> None:
    oracle.check(_nan_without_a_forward_stack)


def _batched_grads(m: ModuleType, create_graph: bool) -> Any:
    x = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    rows = m.arange(3.0).view(3, 1, 1).expand(3, 2, 2) + 1
    (by_row,) = m.autograd.grad(x * x, (x,), (rows,), is_grads_batched=True, create_graph=create_graph)
    (scalar,) = m.autograd.grad((x**3).sum(), (x,), (m.arange(3.0),), is_grads_batched=True, create_graph=create_graph)
    refused = attempt(lambda: m.autograd.grad(x.clone(), (x,), (m.ones(2, 2),), is_grads_batched=True))
    second = m.autograd.grad(by_row.sum(), x) if create_graph else None
    return by_row, scalar, refused, second


@pytest.mark.parametrize("create_graph", [False, True])
def test_grad_with_batched_grad_outputs(oracle: SimpleNamespace, create_graph: bool) -> None:
    oracle.check(lambda m: _batched_grads(m, create_graph))
