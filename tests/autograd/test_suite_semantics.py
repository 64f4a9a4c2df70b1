"""Graph semantics that PyTorch's own autograd tests exercise, each checked here against the installed PyTorch."""

from __future__ import annotations

import gc
import warnings
import weakref
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


@pytest.mark.parametrize(
    "case",
    ["complex_to_complex", "real_to_complex", "complex_to_real", "not_times_grad_output", "stride_zero",
     "batched_grad", "forward_mode_complex", "forward_mode_complex_wrong"],
)
def test_gradcheck_splits_complex_and_checks_backward_as_pytorchs_does(oracle: SimpleNamespace, case: str) -> None:
    def program(m: ModuleType) -> Any:
        real = m.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=m.float64, requires_grad=True)
        cplx = m.tensor([1 + 2j, -0.5 + 1j], dtype=m.complex128, requires_grad=True)

        def hooked(make: Any) -> Any:
            def fn(t: Any) -> Any:
                y = make(t)
                y.register_hook(lambda g: g + 1e-2)  # a gradient that ignores grad_output
                return y

            return fn

        def wrong_tangent(t: Any) -> Any:
            if m.autograd.forward_ad._current_level >= 0:
                primal, tangent = m.autograd.forward_ad.unpack_dual(t)
                t = m.autograd.forward_ad.make_dual(primal, tangent * 1.1)
            return t * 2

        cases = {
            "complex_to_complex": (hooked(lambda t: t.clone()), cplx, {}),
            "real_to_complex": (hooked(lambda t: m.complex(t, t)), real, {}),
            "complex_to_real": (hooked(lambda t: m.real(t)), cplx, {}),
            "not_times_grad_output": (hooked(lambda t: t.clone()), real, {"atol": 0.1}),
            "stride_zero": (lambda t: t * 2, real[:1, :1].expand(2, 2), {}),
            "batched_grad": (lambda t: (t.sin() * t).sum(0), real, {"check_batched_grad": True}),
            "forward_mode_complex": (lambda t: t * t.conj(), cplx, {"check_forward_ad": True}),
            "forward_mode_complex_wrong": (wrong_tangent, cplx, {"check_forward_ad": True, "check_backward_ad": False}),
        }
        fn, x, kwargs = cases[case]
        raised = _gradcheck_outcome(m, fn, (x,), **kwargs)
        if case == "stride_zero":
            return [raised]  # not a Jacobian mismatch: raise_exception=False does not turn it into False
        return [raised, m.autograd.gradcheck(fn, (x,), raise_exception=False, **kwargs)]

    oracle.check(program)


def test_gradcheck_forward_mode_calls_jvp_once_per_column_with_inputs_that_need_no_grad(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        seen: list[Any] = []

        class Twice(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any, b: Any) -> Any:
                if m.autograd.forward_ad._current_level >= 0:
                    seen.append((a.requires_grad, b.requires_grad))
                return a * 2, b.clone()

            @staticmethod
            def jvp(ctx: Any, ta: Any, tb: Any) -> Any:
                seen.append("jvp")
                return ta * 2, tb

        a = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        b = m.tensor([3.0], dtype=m.float64, requires_grad=True)
        results = []
        for undefined in (False, True):
            seen.clear()
            results.append(m.autograd.gradcheck(
                Twice.apply, (a, b), check_forward_ad=True, check_backward_ad=False, check_undefined_grad=undefined,
            ))
            results.append(list(seen))
        return results

    oracle.check(program)


def test_gradcheck_forward_mode_of_an_input_with_no_elements(oracle: SimpleNamespace) -> None:
    """Forward mode has no column to run for an empty input, yet its Jacobian still has a row per output."""
    def program(m: ModuleType) -> Any:
        empty = m.zeros(0, 1, dtype=m.complex128, requires_grad=True)
        real = m.zeros(0, 3, dtype=m.float64, requires_grad=True)
        return [
            m.autograd.gradcheck(lambda t: m.diagonal(t, offset=0), (empty,), check_forward_ad=True),
            m.autograd.gradcheck(lambda t: (t.sum(0), t * 2), (real,), check_forward_ad=True),
        ]

    oracle.check(program)


def test_gradcheck_module_is_callable_as_the_function() -> None:
    """Importing glassgrad.autograd.gradcheck by another name (the torch alias) rebinds the package's attribute to
    the module: calling it must still run gradcheck."""
    import importlib

    import glassgrad

    module = importlib.import_module("glassgrad.autograd.gradcheck")
    x = glassgrad.tensor([1.0, 2.0], dtype=glassgrad.float64, requires_grad=True)
    assert module(lambda t: t * t, (x,)) is True
    with pytest.raises(glassgrad.autograd.GradcheckError, match="Jacobian mismatch"):
        module(_doubled_gradient, (x,))


def _doubled_gradient(t: Any) -> Any:
    y = t.clone()
    y.register_hook(lambda g: g * 2)
    return y


@pytest.mark.parametrize("op", ["scatter_reduce", "index_reduce"])
@pytest.mark.parametrize("src", [[0.0, 0.0], [0.0, 2.0]])
def test_double_backward_of_prod_reduce_refuses_two_zeros_at_one_place(oracle: SimpleNamespace, op: str, src: list[float]) -> None:
    def program(m: ModuleType) -> Any:
        x = m.tensor([1.5], dtype=m.float64, requires_grad=True)
        s = m.tensor(src, dtype=m.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # PyTorch: index_reduce() is in beta
            out = getattr(m, op)(x, 0, m.tensor([0, 0]), s, "prod")
        first = m.autograd.grad(out.sum(), [x, s], create_graph=True)
        plain = m.autograd.grad(getattr(m, op)(x, 0, m.tensor([0, 0]), s, "prod").sum(), [x, s])
        return [first, plain, m.autograd.grad(first[1].sum(), [s], allow_unused=True)]

    oracle.check(program)


def test_hooks_past_an_undefined_gradient_see_none(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        seen: list[Any] = []
        x = m.ones(2, requires_grad=True)
        x.register_hook(lambda g: seen.append(("x", g)))
        y = x * 2
        y.register_hook(lambda g: seen.append(("y", g)))
        z = y.clone()
        z.register_hook(lambda g: seen.append(("z", g)))
        m._C._functions.UndefinedGrad()(z).sum().backward()
        replaced = y.clone()
        replaced.register_hook(lambda g: m.ones(2))
        m._C._functions.UndefinedGrad()(replaced).sum().backward()
        return [seen, x.grad]

    oracle.check(program)


def test_gradcheck_reports_a_backward_that_cannot_take_undefined_gradients(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        def fn(t: Any) -> Any:
            def refuse_none(g: Any) -> None:
                if g is None:
                    raise RuntimeError("no gradient")

            y = t.clone()
            y.register_hook(refuse_none)
            return y

        x = m.ones(1, dtype=m.float64, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outcome = [_gradcheck_outcome(m, fn, (x,)), m.autograd.gradcheck(fn, (x,), raise_exception=False)]
            passes = m.autograd.gradcheck(fn, (x,), check_undefined_grad=False)
        return [outcome, passes, sorted({str(w.message).split(":")[0] for w in caught})]

    oracle.check(program)


def test_first_gradient_of_a_leaf_under_create_graph_is_a_copy(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        x = m.ones(2, requires_grad=True)
        (x * 3).sum().backward(m.ones((), requires_grad=True), create_graph=True)
        node = x.grad.grad_fn
        names = [type(node).__name__, [None if n is None else type(n).__name__ for n, _ in node.next_functions]]
        x.grad = None  # the graph of x.grad reaches x: let the cycle go
        return names

    oracle.check(program)


def _error_node_of_once_differentiable(m: ModuleType) -> Any:
    class Scale(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, t: Any, factor: float, u: Any) -> Any:
            return t * factor + u

        @staticmethod
        @m.autograd.function.once_differentiable
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2, None, g

    x = m.ones(2, requires_grad=True)
    u = m.ones(2, requires_grad=True)
    (gx, gu) = m.autograd.grad(Scale.apply(x, 2.0, u).sum(), (x, u), m.ones((), requires_grad=True), create_graph=True)
    node = gx.grad_fn
    return [type(node).__name__, [None if n is None else type(n).__name__ for n, _ in node.next_functions],
            gx, gu, attempt_backward(gx)]


def attempt_backward(t: Any) -> Any:
    try:
        t.sum().backward()
    except RuntimeError as err:
        return str(err)
    return None


def test_once_differentiable_results_lead_to_an_error_node(oracle: SimpleNamespace) -> None:
    oracle.check(_error_node_of_once_differentiable)


def _saved_once(m: ModuleType, accesses: int) -> Any:
    class Once(m.autograd.Function):
        clear_saved_tensors_on_access = True

        @staticmethod
        def forward(ctx: Any, t: Any) -> Any:
            ctx.save_for_backward(t)
            return t * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            for _ in range(accesses):
                ctx.saved_tensors  # noqa: B018 (the access is what is tested)
            return g * 2

    x = m.ones(2, requires_grad=True)
    Once.apply(x).sum().backward()
    return x.grad


@pytest.mark.parametrize("accesses", [1, 2])
def test_saved_tensors_cleared_on_access_can_be_read_once(oracle: SimpleNamespace, accesses: int) -> None:
    oracle.check(lambda m: _saved_once(m, accesses))


@pytest.mark.parametrize("case", ["not_an_input", "view_not_an_input", "not_returned", "view_with_two_outputs",
                                  "view_of_a_leaf", "one_of_several_views", "view_returned_alone"])
def test_mark_dirty_checks_as_pytorchs_does(oracle: SimpleNamespace, case: str) -> None:
    def program(m: ModuleType) -> Any:
        class Dirty(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any, b: Any) -> Any:
                if case == "not_an_input":
                    a = a * 3
                elif case == "view_not_an_input":
                    a = a.clone().view_as(a)
                a.add_(b)
                ctx.mark_dirty(a)
                if case == "not_returned":
                    return a.clone()
                return (a, a + b) if case == "view_with_two_outputs" else a

            @staticmethod
            def backward(ctx: Any, *grads: Any) -> Any:
                return grads[0] * 5, grads[0]

        leaf = m.ones(2, requires_grad=True)
        b = m.ones(2, requires_grad=True)
        inputs = {
            "view_of_a_leaf": lambda: leaf.view_as(leaf),
            "one_of_several_views": lambda: leaf.split_with_sizes([1, 1])[0],
        }
        a = inputs.get(case, lambda: leaf.clone().view_as(leaf) if "view" in case else leaf.clone())()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = oracle.attempt(lambda: Dirty.apply(a, b))
        if not isinstance(out, tuple) and hasattr(out, "sum"):
            out.sum().backward()
            out = [out, leaf.grad, b.grad]
        return [out, [str(w.message)[:60] for w in caught]]

    oracle.check(program)


def test_non_differentiable_outputs_may_keep_none_gradients(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        seen = []

        class Pair(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, t: Any) -> Any:
                other = t.clone()
                ctx.mark_non_differentiable(other)
                ctx._materialize_non_diff_grads = False
                return t.clone(), other

            @staticmethod
            def backward(ctx: Any, g: Any, g_other: Any) -> Any:
                seen.append(g_other is None)
                return g

        x = m.ones(2, requires_grad=True)
        Pair.apply(x)[0].sum().backward()
        return seen

    oracle.check(program)


@pytest.mark.parametrize("case", ["non_differentiable_output", "inplace_not_inplace", "inplace_returned_unchanged",
                                  "inplace_in_place", "view_not_a_view",
                                  "view_of_another_tensor", "view_of_another_base", "input_as_is_not_a_view"])
def test_custom_jvp_checks_as_pytorchs_does(oracle: SimpleNamespace, case: str) -> None:
    def program(m: ModuleType) -> Any:
        fw = m.autograd.forward_ad

        class Fn(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                if case == "non_differentiable_output":
                    out = x.clone()
                    ctx.mark_non_differentiable(out)
                    return x.clone(), out
                if case.startswith("inplace"):
                    ctx.mark_dirty(x)
                    return x.mul_(2)
                if case == "input_as_is_not_a_view":
                    return x * 2, x
                return x.narrow(0, 0, 2)

            @staticmethod
            def jvp(ctx: Any, t: Any) -> Any:
                if case == "non_differentiable_output":
                    return t, t.clone()
                if case == "inplace_not_inplace":
                    return t * 2
                if case == "inplace_returned_unchanged":
                    return t
                if case == "inplace_in_place":
                    return t.mul_(2)
                if case == "input_as_is_not_a_view":
                    return t * 2, t * 2
                part = t.narrow(0, 0, 2).clone()
                return part if case == "view_not_a_view" else part.view_as(part)

        with fw.dual_level(), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # PyTorch's first forward-mode call uses torch.jit.script
            x = fw.make_dual(m.ones(4, dtype=m.float64), m.ones(4, dtype=m.float64))
            if case.startswith("inplace"):
                x = x.clone()
            elif case == "view_of_another_base":
                x = x.view_as(x)
            return oracle.attempt(lambda: Fn.apply(x) and None)

    oracle.check(program)


def _hooks_seen_by_grad(m: ModuleType) -> Any:
    a = m.tensor(1.0, requires_grad=True)
    b = a * 2
    c = b * 2
    log: list[str] = []
    b.register_hook(lambda g: log.append("tensor"))
    b.grad_fn.register_prehook(lambda g: log.append("pre"))
    b.grad_fn.register_hook(lambda gi, go: log.append("post"))
    m.autograd.grad(c, b, retain_graph=True)
    first = list(log)
    log.clear()
    m.autograd.grad(c, (a, b))
    return [first, log]


def test_grad_captures_a_target_without_running_its_node(oracle: SimpleNamespace) -> None:
    oracle.check(_hooks_seen_by_grad)


def test_tensor_hooks_of_an_output_without_gradient_see_none(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        class Two(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, t: Any) -> Any:
                return t * 2, t * 3

            @staticmethod
            def backward(ctx: Any, g2: Any, g3: Any) -> Any:
                return g3 * 3

        x = m.ones(3, requires_grad=True)
        first, second = Two.apply(x)
        seen: list[Any] = []
        first.register_hook(lambda g: seen.append(g))
        second.sum().backward()
        return seen

    oracle.check(program)


def _nan_in_a_nested_backward(m: ModuleType, forward_in_anomaly_mode: bool) -> Any:
    class Inner(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, t: Any) -> Any:
            return t * 2.0

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            g = g.clone()
            g[0] = 0
            g[0] /= 0
            return g

    class Outer(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, t: Any) -> Any:
            ctx.save_for_backward(t)
            return t.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (t,) = ctx.saved_tensors
            return Inner.apply(g.expand(3) * t)

    x = m.ones(3, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with m.autograd.set_detect_anomaly(forward_in_anomaly_mode):
                (g,) = m.autograd.grad(Outer.apply(x), x, create_graph=True)
            with m.autograd.detect_anomaly():
                g.sum().backward()
        except RuntimeError as err:
            raised = str(err).split("\n")[0]
    messages = [str(w.message) for w in caught]
    return [raised, [msg.split(".")[0] for msg in messages], ["Inner.apply" in msg for msg in messages],
            ["Outer.apply" in msg for msg in messages]]


@pytest.mark.parametrize("forward_in_anomaly_mode", [False, True])
def test_anomaly_mode_reports_the_failing_node_and_its_parents(oracle: SimpleNamespace, forward_in_anomaly_mode: bool) -> None:
    oracle.check(lambda m: _nan_in_a_nested_backward(m, forward_in_anomaly_mode))


def test_anomaly_report_goes_to_stderr_where_warnings_are_errors(capsys: pytest.CaptureFixture[str]) -> None:
    import glassgrad

    a = glassgrad.ones(3, requires_grad=True)
    b = a + 1
    c = b**2
    b += 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mode = glassgrad.autograd.detect_anomaly()
    with mode, warnings.catch_warnings(), pytest.raises(RuntimeError, match="modified by an inplace operation"):
        warnings.simplefilter("error")
        c.sum().backward()
    assert "Error detected in PowBackward0" in capsys.readouterr().err


def test_in_place_write_into_one_element_of_an_expand(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        wide = m.ones(1).expand(4)
        wide[1] *= 3  # one element: no two elements share its memory
        return [wide, oracle.attempt(lambda: wide.mul_(2))]

    oracle.check(program)


def _nested_backwards(m: ModuleType, depth: int) -> Any:
    """A Function whose backward runs a backward of its own, `depth` deep (a reentrant chain)."""

    class Deeper(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.left = int(x.item())
            return x.clone()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            if ctx.left > 0:
                with m.enable_grad():
                    inner = m.tensor(float(ctx.left - 1), requires_grad=True)
                    Deeper.apply(inner).sum().backward()
                    counts.append(m.is_grad_enabled())
            return g * 2

    counts: list[bool] = []
    x = m.tensor(float(depth), requires_grad=True)
    Deeper.apply(x).backward()
    return [x.grad, len(counts), all(counts)]


def test_deep_reentrant_backward_does_not_exhaust_the_stack(oracle: SimpleNamespace) -> None:
    oracle.check(lambda m: _nested_backwards(m, 400))


@pytest.mark.parametrize("returns", ["view", "input"])
@pytest.mark.parametrize("input_requires_grad", [False, True])
def test_views_a_custom_function_returns_are_not_written_in_place(
    oracle: SimpleNamespace, returns: str, input_requires_grad: bool
) -> None:
    def program(m: ModuleType) -> Any:
        class Pass(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, t: Any) -> Any:
                return t.view_as(t) if returns == "view" else t

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g

        x = m.ones(2, requires_grad=True).clone() if input_requires_grad else m.ones(2)
        out = Pass.apply(x)
        writes = [oracle.attempt(lambda: out.add_(m.ones(2, requires_grad=True)) and None)]
        with m.no_grad():
            out.mul_(3)  # allowed: nothing is recorded
        return [writes, out.detach(), x.detach()]

    oracle.check(program)


def test_writing_a_view_of_a_base_that_came_to_require_grad(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        a = m.zeros(2, 3)
        view = a[:]
        a.requires_grad = True
        return [oracle.attempt(lambda: a.add_(1) and None), oracle.attempt(lambda: view.add_(1) and None)]

    oracle.check(program)


def test_an_in_place_op_on_a_base_makes_its_earlier_views_require_grad(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        r = m.tensor([2.0], requires_grad=True)
        x = m.ones(3)
        v = x[1]
        before = [v.requires_grad, v.grad_fn is None]
        x.mul_(r)
        (g,) = m.autograd.grad(v * 5, r)
        return [before, v.requires_grad, g]

    oracle.check(program)


def test_views_of_an_inference_tensor_in_inference_mode_do_not_require_grad(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        with m.inference_mode():
            c = m.ones(2, 3, requires_grad=True)
            return [c.view(-1).requires_grad, c[0].requires_grad, m.is_inference(c.view(-1))]

    oracle.check(program)


@pytest.mark.parametrize("layout", ["channels_last", "strided"])
def test_a_leafs_first_grad_takes_its_layout(oracle: SimpleNamespace, layout: str) -> None:
    def program(m: ModuleType) -> Any:
        if layout == "channels_last":
            leaf = m.rand(2, 3, 4, 5).to(memory_format=m.channels_last).requires_grad_()
        else:
            leaf = m.rand(4, 4)[::2, ::2].requires_grad_()
        strides = []
        for loss in (lambda t: t.sum(), lambda t: (t * t).sum()):
            leaf.grad = None
            loss(leaf).backward()
            strides.append(leaf.grad.stride())
        return strides

    oracle.check(program)


def test_resizing_an_inference_tensor_that_requires_grad(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        with m.inference_mode():
            t = m.ones(1, 2, 3, requires_grad=True)
            inside = [tuple(t.resize_(1, 2).shape), t.requires_grad, m.is_inference(t)]
        return [inside, oracle.attempt(lambda: tuple(t.resize_(2, 2).shape))]

    oracle.check(program)


def test_a_leafs_grad_dtype_casts_its_gradients_or_lets_any_through(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        class AsDouble(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return grad.double()

        def grad_with(grad_dtype: Any) -> Any:
            x = m.ones(2, requires_grad=True)
            x.grad_dtype = grad_dtype
            AsDouble.apply(x).sum().backward()
            AsDouble.apply(x).sum().backward()  # accumulates in .grad's dtype
            return x.grad_dtype, x.grad

        y = m.ones(2, requires_grad=True)
        y.grad = m.ones(2)
        y_grad_dtype = [oracle.attempt(lambda v=v: setattr(y, "grad_dtype", v)) for v in (m.float16, 1, None)]
        y.grad = m.ones(2, dtype=m.float64)  # any dtype now
        y.grad = None
        y.grad_dtype = m.float16
        non_leaf = y * 2
        refused = [
            oracle.attempt(lambda: setattr(y, "grad", m.ones(2))),
            oracle.attempt(lambda: non_leaf.grad_dtype),
            oracle.attempt(lambda: setattr(non_leaf, "grad_dtype", None)),
        ]
        return [grad_with(m.float32), grad_with(m.float16), grad_with(None), y_grad_dtype, y.grad_dtype, refused]

    oracle.check(program)


def test_sum_with_an_explicit_dim_none_records_sum_backward1(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        x = m.ones(2, 3, requires_grad=True)
        sums = [x.sum(), x.sum(dim=None), m.sum(x, None, True), x.sum(dtype=m.float64)]
        m.autograd.backward(sums, [m.ones_like(s) for s in sums])
        return [type(s.grad_fn).__name__ for s in sums], sums, x.grad

    oracle.check(program)


def test_a_pack_hook_that_writes_its_input_in_place_is_refused(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        x = m.tensor([0.5, 1.0], requires_grad=True)

        def bump(t: Any) -> Any:
            t.add_(1)
            return t

        with m.autograd.graph.saved_tensors_hooks(bump, lambda t: t):
            refused_in_context = oracle.attempt(lambda: m.exp(x))
        y = m.exp(x)
        refused_by_hand = oracle.attempt(lambda: y.grad_fn._raw_saved_result.register_hooks(bump, lambda t: t))
        with m.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
            fine = m.exp(x)
        return refused_in_context, refused_by_hand, m.autograd.grad(fine.sum(), x)

    oracle.check(program)


def test_saved_tensors_hooks_entered_or_exited_during_backward_end_with_it(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        packs: list[str] = []

        def hooks(name: str, unpack: Any) -> Any:
            return m.autograd.graph.saved_tensors_hooks(lambda t: packs.append(name) or t, unpack)

        x = m.tensor([0.5, 1.0, 2.0], requires_grad=True)
        outer = hooks("outer", lambda t: t)
        inner = hooks("inner", lambda t: (inner.__exit__(), t)[1])  # leaves the hooks while backward unpacks
        with outer:
            inner.__enter__()
            x.sin().sum().backward()
            m.cos(x)  # still packed by inner: backward left the hooks as it found them
        inner.__exit__()  # outer's exit above took inner off the stack; this takes outer
        entering = hooks("entered", lambda t: (entering.__enter__(), t)[1])  # enters the hooks while backward unpacks
        with entering:
            x.exp().sum().backward()
        m.tan(x)  # no hooks in force: nothing packed
        return packs, x.grad

    oracle.check(program)


def test_python_numbers_saved_by_an_op_are_not_packed(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        packed: list[Any] = []

        def pack(t: Any) -> Any:
            packed.append(tuple(t.shape))
            return 2 * t  # each packed tensor doubles the gradient that reads it

        x = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
        with m.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = (x * 3 + x * 0.5 + x * m.tensor(4.0)).sum()
            first = m.autograd.grad(y, x)
            cube = (x**3).sum()
            (g,) = m.autograd.grad(cube, x, create_graph=True)
            g.sum().backward()
        return packed, first, g, x.grad

    oracle.check(program)


def test_a_saved_input_detached_in_place_refuses_to_unpack(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        def detach_then_backward(op: str, leaf: bool) -> Any:
            a = m.tensor([0.5, 1.0], requires_grad=True)
            a = a if leaf else a.clone()
            b = getattr(a, op)()  # sin saves its input, exp its output
            a.detach_()
            return oracle.attempt(lambda: b.sum().backward()), a.grad

        return [detach_then_backward(op, leaf) for op in ("sin", "exp") for leaf in (False, True)]

    oracle.check(program)


def test_a_function_that_saves_an_input_it_marked_dirty_frees_it(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        class Scale(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                x.mul_(2)
                ctx.mark_dirty(x)
                ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return grad * 2

        def freed(as_view: bool) -> weakref.ref[Any]:
            x = m.tensor([1.0, 2.0], requires_grad=True).clone()
            x = x.view_as(x) if as_view else x
            Scale.apply(x)
            return weakref.ref(x)

        gc.disable()  # freed by reference counting alone
        try:
            refs = [freed(False), freed(True)]
            return [ref() is None for ref in refs]
        finally:
            gc.enable()

    oracle.check(program)


def test_each_saved_python_number_has_a_version_of_its_own(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        x = m.tensor([1.0, 2.0], requires_grad=True)
        tripled, quadrupled = x * 3, x * 4.0
        tripled.grad_fn._saved_other.add_(1)  # only this graph sees the write
        return oracle.attempt(lambda: m.autograd.grad(quadrupled.sum(), x)), oracle.attempt(lambda: tripled.sum().backward())

    oracle.check(program)


def test_every_node_is_a_node_without_node_in_its_mro(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        node_abc = m.autograd.graph.Node
        seen = []

        class Identity(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                seen.append(isinstance(ctx, node_abc))
                return x.clone()

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                seen.append(isinstance(ctx, node_abc))
                return grad

        x = m.ones(2, requires_grad=True)
        nodes = [x.sin().grad_fn, x.sin().grad_fn.next_functions[0][0], Identity.apply(x).grad_fn]
        Identity.apply(x).sum().backward()
        classes = [m._C._functions.AccumulateGrad, m._C._functions.DelayedError, m.autograd.function.BackwardCFunction]
        return [
            [isinstance(n, node_abc) and node_abc not in type(n).mro() for n in nodes],
            [issubclass(c, node_abc) and not isinstance(c, node_abc) for c in classes],
            [isinstance(v, node_abc) for v in (None, 1, node_abc, x)],
            issubclass(node_abc, node_abc),
            seen,
        ]

    assert oracle.check(program)[0] == [True] * 3


def test_a_view_whose_base_changed_takes_its_grad_fn_by_as_strided_unless_view_replay_is_on(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        def written(replay: bool) -> list[Any]:
            x = m.arange(6.0, requires_grad=True)
            with m.autograd._force_original_view_tracking(replay):
                flag = m.autograd.is_view_replay_enabled()
                base = x.clone().view(2, 3)
                row, col = base[1, 1:], base.t()
                row.mul_(3)  # rebases row itself, and col through the base
                node = row.grad_fn
                geometry = [node.name()] if replay else [node._saved_size, node._saved_stride, node._saved_storage_offset]
            ((row * row).sum() + (col * col).sum()).backward()
            return [flag, node.name(), col.grad_fn.name(), geometry, x.grad]

        z = m.ones(2, dtype=m.complex64, requires_grad=True).clone()
        pairs = m.view_as_real(z)
        pairs.mul_(2)  # a view of another dtype keeps its own view op
        m._C._set_view_replay_enabled(True)
        switched = m._C._is_view_replay_enabled()
        m._C._set_view_replay_enabled(False)
        return [
            written(False), written(True), m.autograd.is_view_replay_enabled(), pairs.grad_fn.name(), switched,
            oracle.attempt(lambda: m.autograd._force_original_view_tracking(1)),
        ]

    oracle.check(program)


def test_deleting_what_a_tensor_cannot_be_without_raises(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        x = m.ones(2, requires_grad=True)
        x.sum().backward()
        del x.grad  # the one that may go
        outcomes: list[Any] = [x.grad]
        for name in ("data", "requires_grad", "_grad_fn", "_backward_hooks", "grad_fn", "no_such_attribute"):
            outcomes.append(oracle.attempt(lambda name=name: delattr(x, name)))
        outcomes.append(oracle.attempt(lambda: setattr(x, "data", None)))
        return [*outcomes, x.requires_grad, x.data]

    oracle.check(program)
