"""Extension points and grad modes (DESIGN.md section 1), each checked against real PyTorch 2.13.

Custom Function classes are built per module by a factory, since each must subclass that module's
autograd.Function; the oracle fixture (conftest.py) compares what the two runs observed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

pytestmark = pytest.mark.torch_oracle


def vec(m: ModuleType, values: list[float] | None = None, requires_grad: bool = True) -> Any:
    return m.tensor(values or [0.5, -1.0, 2.0], requires_grad=requires_grad)


def cube_function(m: ModuleType, once: bool = False) -> Any:
    """x**3 whose backward is made of differentiable ops on the saved input (or once_differentiable)."""

    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grad * 3 * x**2

    class Cube(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x**3

    Cube.backward = staticmethod(m.autograd.function.once_differentiable(backward) if once else backward)
    return Cube


def test_custom_function_differentiated_twice(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        y = cube_function(m).apply(x)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        (g2,) = m.autograd.grad(g.sum(), x)
        return y, type(y.grad_fn).__name__, y.grad_fn.name(), g, g2

    oracle.check(program)


def test_custom_function_saved_tensors_after_free(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        y = cube_function(m).apply(x)
        y.sum().backward(retain_graph=True)
        kept = y.grad_fn.saved_tensors
        y.sum().backward()
        return kept, oracle.attempt(lambda: y.grad_fn.saved_tensors), x.grad

    outcome = oracle.check(program)
    assert outcome[1].first_line.startswith("Trying to backward through the graph a second time")


def test_backward_returning_a_number_is_refused_as_pytorch_refuses_it(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        class Doubler(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return 2.0  # a number, not a tensor

        x = vec(m)
        return oracle.attempt(lambda: Doubler.apply(x).sum().backward())

    outcome = oracle.check(program)
    assert outcome.first_line == "expected Variable or None (got float)"


def test_once_differentiable_forbids_double_backward(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        y = cube_function(m, once=True).apply(x)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        return g, oracle.attempt(lambda: g.sum().backward())

    oracle.check(program)


def test_setup_context_function(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        class Scale(m.autograd.Function):
            @staticmethod
            def forward(x: Any, k: float) -> Any:
                return x * k

            @staticmethod
            def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
                ctx.k = inputs[1]
                ctx.save_for_backward(inputs[0], output)

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                x, out = ctx.saved_tensors
                return grad * ctx.k + out * 0 + x * 0, None

        x = vec(m)
        y = Scale.apply(x, 3.0)
        (y * y).sum().backward()
        return y, y.grad_fn.name(), x.grad

    oracle.check(program)


def test_mark_non_differentiable_and_needs_input_grad(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        seen: list[Any] = []

        class ExpAndMask(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any, power: int, w: Any) -> Any:
                seen.append(tuple(ctx.needs_input_grad))
                e, mask = (x * w).exp(), (x > 0).to(x.dtype)
                ctx.mark_non_differentiable(mask)
                ctx.save_for_backward(e, x, w)
                return e, mask

            @staticmethod
            def backward(ctx: Any, grad_e: Any, grad_mask: Any) -> Any:
                seen.append((tuple(ctx.needs_input_grad), grad_mask))
                e, x, w = ctx.saved_tensors
                # One gradient per forward argument; the int in the middle gets None.
                return grad_e * e * w, None, grad_e * e * x if ctx.needs_input_grad[2] else None

        x = vec(m)
        results = []
        for w_requires_grad in (True, False):
            w = vec(m, [2.0, 1.0, 0.5], requires_grad=w_requires_grad)
            e, mask = ExpAndMask.apply(x, 2, w)
            (e * mask).sum().backward()
            results.append((e.requires_grad, mask.requires_grad, mask.is_leaf, mask, x.grad, w.grad))
        return results, seen

    oracle.check(program)


def test_mark_dirty(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        class Double_(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                a.mul_(2)
                ctx.mark_dirty(a)
                return a

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return grad * 2

        x = vec(m)
        a = x.clone()
        b = Double_.apply(a)
        b.sum().backward()
        return b is a, a._version, a.grad_fn.name(), a, x.grad, oracle.attempt(lambda: Double_.apply(x))

    oracle.check(program)


def test_set_materialize_grads_false_passes_none(oracle: Any) -> None:
    def program(m: ModuleType, materialize: bool) -> Any:
        seen: list[Any] = []

        class Split(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                ctx.set_materialize_grads(materialize)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx: Any, g1: Any, g2: Any) -> Any:
                seen.append((g1, g2))
                return g1 * 2 if g2 is None else g1 * 2 + g2 * 3

        x = vec(m)
        first, _ = Split.apply(x)
        first.sum().backward()
        return seen, x.grad

    assert oracle.check(lambda m: program(m, False))[0][0][1] is None
    oracle.check(lambda m: program(m, True))


def test_tensor_hooks_change_gradients_and_can_be_removed(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        seen: list[Any] = []
        leaf_handle = x.register_hook(lambda g: g * 10)
        h = x * x
        h.register_hook(lambda g: seen.append(g.clone()))
        non_leaf_handle = h.register_hook(lambda g: g + 1)
        h.sum().backward(retain_graph=True)
        first = x.grad.clone()
        leaf_handle.remove()
        non_leaf_handle.remove()
        x.grad = None
        h.sum().backward()
        return first, x.grad, seen

    oracle.check(program)


def test_post_accumulate_grad_hook_sees_the_accumulated_grad(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        w = vec(m)
        seen: list[Any] = []

        def step(p: Any) -> None:
            seen.append(p.grad.clone())
            with m.no_grad():
                p -= 0.5 * p.grad
            p.grad = None

        handle = w.register_post_accumulate_grad_hook(step)
        for _ in range(2):
            (w * w).sum().backward()
        handle.remove()
        (w * w).sum().backward()
        plain = vec(m, requires_grad=False)
        return w, w.grad, seen, oracle.attempt(lambda: plain.register_post_accumulate_grad_hook(step))

    oracle.check(program)


def test_node_hooks_and_prehooks(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        y = x.exp()
        seen: list[Any] = []
        y.grad_fn.register_prehook(lambda grad_outputs: seen.append(("pre", grad_outputs)))
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(("post", grad_inputs, grad_outputs)))
        z = y * 2
        z.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 3,))
        z.sum().backward()
        return seen, x.grad

    oracle.check(program)


def test_post_hooks_see_gradients_fitted_to_their_inputs(oracle: Any) -> None:
    """A node's post hooks get each gradient already summed to its input's shape and cast to its dtype (a broadcast
    bias, a float32 input to a float64 op), also where the gradient graph is built; what a hook returns is fitted too.
    A Linear's non-full backward hook (issue 32's public hook program) reads its bias's gradient through this."""

    def program(m: ModuleType) -> Any:
        seen: list[Any] = []
        for create_graph in (False, True):
            a = m.ones(2, 3, requires_grad=True)
            b = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
            c = m.tensor([0.5], dtype=m.float32, requires_grad=True)
            out = a * b + c.double()
            out.grad_fn.register_hook(lambda gi, go: seen.append([(tuple(g.shape), g.dtype) for g in gi]))
            product = a * b
            product.grad_fn.register_hook(lambda gi, go: (gi[0], gi[1] * 10))
            (product + out).sum().backward(create_graph=create_graph)
            seen.append((a.grad, b.grad, c.grad))
        linear = m.nn.Linear(3, 2)
        with pytest.warns(FutureWarning):  # PyTorch's: a non-full hook on a forward of several nodes
            linear.register_backward_hook(lambda mod, gi, go: seen.append([tuple(g.shape) for g in gi]))
            linear(m.ones(4, 3, requires_grad=True)).sum().backward()
        return seen

    oracle.check(program)


def test_gradients_toward_no_requested_input_are_not_computed(oracle: Any) -> None:
    """autograd.grad and backward(inputs=) compute only the edges that lead to what was asked for."""

    def program(m: ModuleType) -> Any:
        x, y = vec(m), vec(m, [1.0, 3.0, -2.0])
        seen: list[Any] = []
        for ask in ("grad x", "backward y", "grad x twice"):
            product = x * y
            product.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(grad_inputs))
            if ask == "grad x":
                seen.append(m.autograd.grad(product.sum(), x))
            elif ask == "backward y":
                product.sum().backward(inputs=[y])
                seen.append((x.grad, y.grad))
            else:
                (g,) = m.autograd.grad((product * product).sum(), x, create_graph=True)
                seen.append(m.autograd.grad(g.sum(), y))
        return seen

    oracle.check(program)


def test_saved_tensors_hooks_pack_and_unpack_counts(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        packed: list[Any] = []
        unpacked: list[Any] = []

        def pack(t: Any) -> Any:
            packed.append(t.clone())
            return t * 1

        def unpack(t: Any) -> Any:
            unpacked.append(t.clone())
            return t

        x, y = vec(m), vec(m, [1.0, 3.0, -2.0])
        with m.autograd.graph.saved_tensors_hooks(pack, unpack):
            out = (x * y).sin()
        unused = (x * y).sin()
        out.sum().backward()
        return len(packed), len(unpacked), packed, x.grad, y.grad, unused.requires_grad

    outcome = oracle.check(program)
    assert outcome[:2] == (3, 3)


def test_no_grad_and_enable_grad(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        with m.no_grad():
            a = x * 2
            with m.enable_grad():
                b = x * 2
                inner = m.is_grad_enabled()
            after = m.is_grad_enabled()
        return a.requires_grad, b.requires_grad, b.grad_fn.name(), inner, after, m.is_grad_enabled()

    oracle.check(program)


def test_set_grad_enabled_as_call_context_and_decorator(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        m.set_grad_enabled(False)
        called_off = (x * 2).requires_grad, m.is_grad_enabled()
        m.set_grad_enabled(True)
        with m.set_grad_enabled(False):
            ctx_off = (x * 2).requires_grad
        ctx_after = m.is_grad_enabled()

        @m.set_grad_enabled(False)
        def off() -> Any:
            return (x * 2).requires_grad, m.is_grad_enabled()

        decorated_at_def = m.is_grad_enabled()
        return called_off, ctx_off, ctx_after, decorated_at_def, off(), m.is_grad_enabled()

    oracle.check(program)


def test_mode_decorators_on_functions_and_generators(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)

        @m.no_grad()
        def scaled(k: float) -> Any:
            return x * k

        @m.no_grad()
        def scaled_steps() -> Iterator[Any]:
            for k in (1.0, 2.0):
                yield (x * k).requires_grad, m.is_grad_enabled()

        @m.inference_mode()
        def inferred() -> Any:
            return x * 2

        steps = []
        for step in scaled_steps():
            steps.append((step, m.is_grad_enabled()))
        out = inferred()
        return scaled(3.0).requires_grad, steps, out.requires_grad, out.is_inference(), m.is_grad_enabled()

    oracle.check(program)


def test_inference_mode(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        with m.inference_mode():
            t = x * 2
            inside = (m.is_inference_mode_enabled(), m.is_grad_enabled(), t.requires_grad, t.is_inference())
            t.add_(1)  # allowed inside the mode
            with m.inference_mode(False):
                relaxed = m.is_inference_mode_enabled()
        return (
            inside,
            relaxed,
            t,
            x.is_inference(),
            m.is_inference_mode_enabled(),
            oracle.attempt(lambda: t.add_(1)),
            oracle.attempt(lambda: (x * t).sum().backward()),
            oracle.attempt(lambda: (t.clone() * x).sum().backward()),
            x.grad,
        )

    outcome = oracle.check(program)
    assert outcome[5].first_line.startswith("Inplace update to inference tensor outside InferenceMode")
    assert outcome[6].first_line.startswith("Inference tensors cannot be saved for backward")


def test_grad_mode_is_thread_local(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        seen: dict[str, Any] = {}

        def worker() -> None:
            seen["enabled"] = m.is_grad_enabled()
            seen["requires_grad"] = (x * 2).requires_grad

        with m.no_grad():
            thread = threading.Thread(target=worker)
            thread.start()
            thread.join()
            seen["main"] = m.is_grad_enabled()
        return seen

    oracle.check(program)


def test_grad_mode_off_in_other_threads_leaves_this_one_recording(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        inside, release = threading.Event(), threading.Event()
        seen: dict[str, Any] = {}

        def holding() -> None:
            with m.no_grad():
                inside.set()
                release.wait(10)

        def ending_with_it_off() -> None:
            m.set_grad_enabled(False)

        holder = threading.Thread(target=holding)
        holder.start()
        inside.wait(10)
        seen["while another thread is in no_grad"] = (x * 2).requires_grad
        release.set()
        holder.join()
        ender = threading.Thread(target=ending_with_it_off)
        ender.start()
        ender.join()
        seen["after a thread ended with it off"] = (x * 2).requires_grad, m.is_grad_enabled()
        with m.no_grad():
            seen["in its own no_grad"] = (x * 2).requires_grad
        with m.inference_mode():
            seen["in its own inference_mode"] = (x * 2).requires_grad
        return seen

    oracle.check(program)


def test_legacy_variable_returns_a_tensor(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        t = m.tensor([1.0, 2.0])
        v = m.autograd.Variable(t, requires_grad=True)
        (v * v).sum().backward()
        return isinstance(v, m.Tensor), isinstance(t, m.autograd.Variable), v is t, v.is_leaf, v.grad

    oracle.check(program)
