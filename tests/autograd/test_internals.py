"""The internals PyTorch's own tests and libraries reach under the public API, each checked against PyTorch 2.13:
SavedTensor objects (`_raw_saved_*`) and their hooks, torch._C's engine queries, torch._C._functions' nodes,
forward AD's switch, version-counter escapes, out= arguments, the _foreach ops, _unique, Tensor.storage() and set_,
and the deprecated gradcheck helpers."""

from __future__ import annotations

import contextlib
import warnings
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from .conftest import attempt, warned

pytestmark = pytest.mark.torch_oracle


def _quietly(fn: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


# -- SavedTensor objects ------------------------------------------------------------------------------------------
def _raw_saved_hooks(m: ModuleType) -> Any:
    a = m.tensor([1.0, 2.0], requires_grad=True)
    leaf_input = a * a
    leaf_input.grad_fn._raw_saved_self.register_hooks(lambda x: 2 * x, lambda x: x)
    doubled = leaf_input.grad_fn._saved_self  # the unpack hook's value stands in for the input
    leaf_input.sum().backward()
    b = (a + 1) * 1.0
    out = b.exp()
    raw = out.grad_fn._raw_saved_result
    raw.register_hooks(lambda x: x, lambda x: x)
    same_node = out.grad_fn._saved_result.grad_fn is out.grad_fn
    second = attempt(lambda: raw.register_hooks(lambda x: x, lambda x: x))
    wrong_count = attempt(lambda: raw.register_hooks(lambda x: x))
    not_callable = attempt(lambda: raw.register_hooks(1, 1))
    c = (a + 1) * (a + 2)
    in_place = attempt(lambda: c.grad_fn._raw_saved_self.register_hooks(lambda x: x.mul_(2), lambda x: x))
    d = a * a
    d.sum().backward()
    freed = attempt(lambda: d.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x))
    e = a * a
    e.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: 1)
    bad_unpack = attempt(lambda: e.grad_fn._saved_self)
    isinstance_check = isinstance(out.grad_fn._raw_saved_result, m._C._autograd.SavedTensor)
    return doubled, a.grad, same_node, second, wrong_count.type, not_callable.type, in_place, freed, bad_unpack, isinstance_check


def test_raw_saved_tensors_take_hooks(oracle: SimpleNamespace) -> None:
    oracle.check(_raw_saved_hooks)


def _raw_saved_data(m: ModuleType) -> Any:
    a = m.tensor(2.0, requires_grad=True)

    def unpack(t: Any) -> Any:
        return t

    with m.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        b = a**2
    c = b.exp()
    d = c**2
    pow_saved, exp_saved, pow2_saved = b.grad_fn._raw_saved_self, c.grad_fn._raw_saved_result, d.grad_fn._raw_saved_self
    return (
        pow_saved.data is a, pow_saved.unpack_hook is unpack, exp_saved.data is c, exp_saved.data, exp_saved.unpack_hook,
        pow2_saved.data is c, attempt(lambda: b.grad_fn._raw_saved_other),
    )


def test_raw_saved_tensor_data_and_unpack_hook(oracle: SimpleNamespace) -> None:
    oracle.check(_raw_saved_data)


def _function_raw_saved(m: ModuleType) -> Any:
    class Saves(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x, None)
            return x * 1.0

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    a = m.ones(3, requires_grad=True)
    y = Saves.apply(a)
    raw = y.grad_fn._raw_saved_tensors
    kinds = [isinstance(s, m._C._autograd.SavedTensor) for s in raw]
    none_hooks = attempt(lambda: raw[1].register_hooks(lambda x: x, lambda x: x))
    y.sum().backward()
    return kinds, none_hooks, attempt(lambda: y.grad_fn._raw_saved_tensors), attempt(lambda: y.grad_fn.saved_tensors)


def test_custom_function_raw_saved_tensors(oracle: SimpleNamespace) -> None:
    oracle.check(_function_raw_saved)


def _saved_tensor_objects(m: ModuleType) -> Any:
    counts = [0, 0]

    def pack(x: Any) -> Any:
        counts[0] += 1
        return x

    def unpack(x: Any) -> Any:
        counts[1] += 1
        return x

    a = m.ones(2, requires_grad=True)
    with m.autograd.graph.saved_tensors_hooks(pack, unpack):
        saved = m._C._autograd._make_saved_tensor(a, is_output=False)
        first = list(counts)
        value = saved.unpack()
    return first, list(counts), value, attempt(lambda: m.autograd.SavedTensor())


def test_saved_tensor_made_from_python(oracle: SimpleNamespace) -> None:
    oracle.check(_saved_tensor_objects)


def _disabled_hooks(m: ModuleType) -> Any:
    graph = m.autograd.graph
    enabled = m._C._autograd._saved_tensors_hooks_is_enabled
    seen = [enabled()]
    with graph.disable_saved_tensors_hooks("outer"):
        with graph.disable_saved_tensors_hooks("inner"):
            seen.append(attempt(lambda: graph.saved_tensors_hooks(lambda x: x, lambda x: x).__enter__()))
        seen.append(enabled())
    seen.append(enabled())
    with graph.saved_tensors_hooks(lambda x: x, lambda x: x):
        seen.append(attempt(lambda: graph.disable_saved_tensors_hooks("not now").__enter__()))
    seen.append(enabled())
    return seen


def test_disable_saved_tensors_hooks(oracle: SimpleNamespace) -> None:
    oracle.check(_disabled_hooks)


def _deprecated_saved_variables(m: ModuleType) -> Any:
    class Old(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_variables
            return g * 2 * x

    x = m.ones(2, requires_grad=True)
    return warned(lambda: Old.apply(x).sum().backward()).warnings, x.grad


def test_saved_variables_warns(oracle: SimpleNamespace) -> None:
    oracle.check(_deprecated_saved_variables)


# -- the engine, asked from inside a backward ---------------------------------------------------------------------
def _engine_queries(m: ModuleType) -> Any:
    C = m._C
    seen: list[Any] = []
    a = m.ones(2, requires_grad=True)
    a2 = m.ones(2, requires_grad=True)
    b = a * 2
    unused = a2 * 3

    def hook(grad: Any) -> None:
        seen.append((
            C._current_graph_task_id() >= 0, C._current_autograd_node().name(), C.is_grad_enabled(),
            C._will_engine_execute_node(b.grad_fn), C._will_engine_execute_node(unused.grad_fn),
            C._autograd._get_current_graph_task_keep_graph(),
        ))

    b.register_hook(hook)
    (b * b).sum().backward(retain_graph=True)
    m.autograd.grad((b * b).sum(), a)
    ids = []
    c = a.clone()
    c.register_hook(lambda g: ids.append(C._current_graph_task_id()))
    c.sum().backward(retain_graph=True)
    c.sum().backward()
    outside = (
        C._current_graph_task_id(), C._current_autograd_node(), attempt(lambda: C._will_engine_execute_node(b.grad_fn)),
    )
    return seen, ids[1] - ids[0], outside, attempt(lambda: C._will_engine_execute_node(b))


def test_engine_queries_during_backward(oracle: SimpleNamespace) -> None:
    oracle.check(_engine_queries)


def _node_in_unpack_hook(m: ModuleType) -> Any:
    names = []

    def unpack(t: Any) -> Any:
        names.append(m._C._current_autograd_node().name())
        return t

    a = m.ones(3, requires_grad=True)
    with m.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        y = (a * a).exp()
    y.sum().backward()
    return names


def test_current_node_in_unpack_hook(oracle: SimpleNamespace) -> None:
    oracle.check(_node_in_unpack_hook)


def _weak_refs_and_cache(m: ModuleType) -> Any:
    C = m._C
    t = m.ones(2)
    ref = C._WeakTensorRef(t)
    alive = ref.expired()
    del t
    C._set_cached_tensors_enabled(True)
    try:
        x = m.ones(3)
        C._add_cached_tensor(x)
        cached = C._is_cached_tensor(x)
        C._add_cached_tensor(x)
        C._remove_cached_tensor(x)
        return alive, ref.expired(), cached, C._is_cached_tensor(x)
    finally:
        C._set_cached_tensors_enabled(False)


def test_weak_tensor_refs_and_cached_tensors(oracle: SimpleNamespace) -> None:
    oracle.check(_weak_refs_and_cache)


def _special_nodes(m: ModuleType) -> Any:
    functions = m._C._functions
    x = m.ones(2, requires_grad=True)
    y = m.ones(2, requires_grad=True)
    guarded = functions.DelayedError("Boom!", 1)(y)
    out = x * 2 + guarded
    grads = m.autograd.grad(out.sum(), x, retain_graph=True)
    boom = attempt(lambda: out.sum().backward())

    class Sees(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, t: Any) -> Any:
            return t.clone()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    z = m.ones(1, requires_grad=True)
    undefined = functions.UndefinedGrad()(Sees.apply(z) * 3)
    accumulate = (x * 1).grad_fn.next_functions[0][0]
    return grads, boom, guarded.grad_fn.name(), undefined.grad_fn.name(), isinstance(accumulate, functions.AccumulateGrad)


def test_delayed_error_and_undefined_grad(oracle: SimpleNamespace) -> None:
    oracle.check(_special_nodes)


def _forward_ad_switch(m: ModuleType) -> Any:
    warnings.simplefilter("ignore", DeprecationWarning)  # torch's forward AD scripts a helper on first use
    fwAD = m.autograd.forward_ad
    seen = [fwAD._is_fwd_grad_enabled(), fwAD._current_level]
    with fwAD.dual_level():
        seen.append(fwAD._current_level)
        dual = fwAD.make_dual(m.ones(2), m.full((2,), 3.0))
        try:
            m._C._set_fwd_grad_enabled(False)
            seen += [fwAD._is_fwd_grad_enabled(), fwAD.unpack_dual(dual * 2).tangent]
            with fwAD._set_fwd_grad_enabled(True):
                seen.append(fwAD.unpack_dual(dual * 2).tangent)
            seen.append(fwAD._is_fwd_grad_enabled())
        finally:
            m._C._set_fwd_grad_enabled(True)
    seen.append(fwAD._current_level)
    return seen


def test_forward_ad_switch_and_level(oracle: SimpleNamespace) -> None:
    with warnings.catch_warnings():
        oracle.check(_forward_ad_switch)


def _version_escapes(m: ModuleType) -> Any:
    x = m.ones(2, requires_grad=True).clone()
    x.add_(1)
    with m.autograd._unsafe_preserve_version_counter(x):
        x.mul_(2)
    kept = x._version
    m._C._autograd._unsafe_set_version_counter((x,), (0,))
    return kept, x._version, attempt(lambda: m._C._autograd._unsafe_set_version_counter((x,), (-1,)))


def test_version_counter_escapes(oracle: SimpleNamespace) -> None:
    oracle.check(_version_escapes)


# -- out= -----------------------------------------------------------------------------------------------------------
def _out_arguments(m: ModuleType) -> Any:
    a = m.tensor([1.0, 2.0], requires_grad=True)
    out = m.zeros(2)
    refused = attempt(lambda: m.mul(a, a, out=out))
    with m.no_grad():
        returned = m.mul(a, a, out=out)
    version = out._version
    needs_grad = attempt(lambda: m.sin(m.ones(2), out=m.zeros(2, requires_grad=True)))
    empty = m.zeros(0)
    m.add(m.ones(3), 1, alpha=2, out=empty)
    resized = warned(lambda: m.exp(m.zeros(3), out=m.zeros(2)))
    cast = attempt(lambda: m.div(m.ones(2), 2, out=m.zeros(2, dtype=m.int64)))
    widened = m.sub(m.ones(2, dtype=m.int64), 1, out=m.ones(2))
    with m.autograd.forward_ad.dual_level(), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # torch's forward AD scripts a helper on first use
        dual = m.autograd.forward_ad.make_dual(m.ones(2), m.ones(2))
        dual_out = attempt(lambda: m.add(dual, 1, out=m.zeros(2)))
    with m.inference_mode():
        inference = m.ones(2)
    outside = attempt(lambda: m.mul(m.ones(2), 2, out=inference))
    return refused, returned is out, out, version, needs_grad, empty, resized, cast, widened, dual_out.type, outside


def test_out_arguments(oracle: SimpleNamespace) -> None:
    oracle.check(_out_arguments)


def _out_under_saved_mutation(m: ModuleType) -> Any:
    with m.autograd.graph.allow_mutation_on_saved_tensors():
        a = m.tensor([1.0], requires_grad=True)
        b = m.tensor([1.0])
        out = a * b
        m.sin(m.tensor([2.0]), out=b)
        out.backward()
    return a.grad, b


def test_out_argument_is_a_mutation_of_a_saved_tensor(oracle: SimpleNamespace) -> None:
    oracle.check(_out_under_saved_mutation)


# -- ops under private names --------------------------------------------------------------------------------------
def _foreach(m: ModuleType) -> Any:
    a = [m.tensor(1.0, requires_grad=True), m.tensor([2.0, 3.0], requires_grad=True)]
    b = m._foreach_add(m._foreach_exp(a), 1)
    m._foreach_mul_(b, [2.0, 3.0])
    (b[0] + b[1].sum()).backward()
    params = [m.ones(2), m.ones(3)]
    m._foreach_addcmul_(params, [m.ones(2), m.ones(3)], [m.full((2,), 2.0), m.full((3,), 3.0)], value=0.5)
    return b, [t.grad for t in a], params, m._foreach_norm(params), m._foreach_maximum(params, 2.0)


def test_foreach_ops(oracle: SimpleNamespace) -> None:
    oracle.check(_foreach)


def _unique_overloads(m: ModuleType) -> Any:
    x = m.tensor([3.0, 1.0, 3.0, 2.0], requires_grad=True)
    rows = m.tensor([[1, 2], [1, 2], [0, 1]])
    return (
        m._unique(x), m._unique(x, return_inverse=True), m._unique2(x, return_counts=True),
        m._VF.unique_dim(rows, 0, return_inverse=True, return_counts=True), m._VF.unique_dim(rows, 0),
    )


def test_unique_overloads(oracle: SimpleNamespace) -> None:
    oracle.check(_unique_overloads)


def _storage_and_set(m: ModuleType) -> Any:
    primal = m.arange(5.0)[:4]
    storage = _quietly(lambda: primal.storage())
    shares = storage.data_ptr() == _quietly(lambda: primal.detach().storage()).data_ptr()
    x = m.rand(2, requires_grad=True)
    edge = m.autograd.graph.get_gradient_edge(x)
    out = x.clone()
    with m.no_grad():
        x.set_(m.ones(3))
    unused = attempt(lambda: m.autograd.grad(out.sum(), x))
    via_edge = m.autograd.grad(out.sum(), edge)
    p = m.nn.Parameter(m.ones(4, dtype=m.float64))
    with m.no_grad():
        p.set_(p[1:])
    m.cat((p, p)).sum().backward()
    return len(storage), shares, x, unused, via_edge, p.grad, attempt(lambda: x.set_(m.ones(1)))


def test_storage_and_set_(oracle: SimpleNamespace) -> None:
    oracle.check(_storage_and_set)


def _jacobian_helpers(m: ModuleType) -> Any:
    from importlib import import_module

    gradcheck = import_module(f"{m.__name__}.autograd.gradcheck")
    a = m.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=m.float64, requires_grad=True)
    b = m.tensor([[0.5, 0.5], [1.0, 2.0]], dtype=m.float64, requires_grad=True)
    numerical = warned(lambda: gradcheck.get_numerical_jacobian(lambda i: (i[0] * i[1] + i[1], i[0]), (a, b), eps=1e-6))
    analytical = warned(lambda: gradcheck.get_analytical_jacobian((a, b), a * b * 3))
    bad = attempt(lambda: warned(lambda: gradcheck.get_numerical_jacobian(lambda i: i[0], (a,), grad_out=2.0)))
    return numerical, analytical, bad


def test_deprecated_jacobian_helpers(oracle: SimpleNamespace) -> None:
    oracle.check(_jacobian_helpers)


def _small_names(m: ModuleType) -> Any:
    from importlib import import_module

    functional = import_module(f"{m.__name__}.autograd.functional")
    base = m.ones(2, 3, requires_grad=True)
    basis = functional._construct_standard_basis_for((m.ones(2), m.ones((), dtype=m.float64)), (2, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        fut = m.jit._fork(lambda t: t * 2, m.ones(2))
        forked = m.jit._wait(fut)
    return (
        m.is_neg(m.ones(2)), base.view(-1)._is_view(), base._is_view(),
        warned(lambda: m.autograd.torch.ones(2).volatile), basis, forked, m._C.is_grad_enabled(),
    )


def test_small_internal_names(oracle: SimpleNamespace) -> None:
    oracle.check(_small_names)


def _record_function_ops(m: ModuleType) -> Any:
    with m.profiler.profile() as prof:
        handle = m.ops.profiler._record_function_enter("bar", None)
        try:
            m.ones(2) * 2
        finally:
            m.ops.profiler._record_function_exit(handle)
    return [e.count for e in prof.events() if e.name == "bar"]


def test_record_function_as_ops(oracle: SimpleNamespace) -> None:
    oracle.check(_record_function_ops)


def _engine_details(m: ModuleType) -> Any:
    C = m._C
    a = m.ones(2, requires_grad=True)
    b = a * 2
    seen: list[Any] = []
    b.register_hook(lambda g: seen.append(attempt(lambda: C._will_engine_execute_node(a.clone().grad_fn.next_functions[0][0]))))
    m.autograd.grad((b * b).sum(), a)
    order: list[Any] = []
    x = m.tensor(1.0, requires_grad=True)
    y = x * 2
    outs = (y.sin(), y.cos(), y.cos())
    outs[2].register_hook(lambda g: order.append([n.name() for n in C._current_graph_task_execution_order()]))
    with m.autograd.set_multithreading_enabled(False):
        m.autograd.grad(outs, inputs=(x,))
    z = (m.tensor(1.0, requires_grad=True) * 2).exp()
    z.register_hook(lambda g: order.append(attempt(C._current_graph_task_execution_order)))
    z.backward()
    edge = m.autograd.graph.GradientEdge(b.grad_fn, 0)
    materialized = attempt(lambda: m.autograd.grad((a * 3).sum(), (a, edge), allow_unused=True, materialize_grads=True))
    return seen, order, attempt(C._current_graph_task_execution_order), materialized


def test_engine_details(oracle: SimpleNamespace) -> None:
    oracle.check(_engine_details)


def _post_hook_during_unpack(m: ModuleType) -> Any:
    seen: list[Any] = []

    def unpack(t: Any) -> Any:
        node = m._C._current_autograd_node()

        def halve(grad_inputs: Any, grad_outputs: Any) -> Any:
            seen.append(grad_outputs)
            return tuple(g / 2 for g in grad_inputs)

        node.register_hook(halve)
        return t

    a = m.tensor([1.0, 2.0], requires_grad=True)
    with m.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        y = a.exp()
    y.sum().backward()
    return a.grad, seen


def test_post_hook_registered_during_unpack(oracle: SimpleNamespace) -> None:
    oracle.check(_post_hook_during_unpack)


def _views_tangents_and_warnings(m: ModuleType) -> Any:
    fwAD = m.autograd.forward_ad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # torch's forward AD scripts a helper on first use
        with fwAD.dual_level():
            dual = fwAD.make_dual(m.ones(2), m.ones(2)).clone()
            dual.detach_()
            tangent = fwAD.unpack_dual(dual * 2).tangent
    with m.inference_mode():
        inference_view = m.ones(2).view(-1)._is_view()
        normal_view = m.ones(2, requires_grad=True).clone().view(-1)
    a = m.zeros((), requires_grad=True)
    backward_warns = warned(lambda: m._C._nn._test_warn_in_autograd(a).backward())
    from importlib import import_module

    resize = import_module(f"{m.__name__}.autograd._functions").Resize
    resized = resize.apply(m.ones(2, 3, requires_grad=True), (3, 2))
    warned_in_backward = [(kind, text[:18]) for kind, text in backward_warns.warnings]  # PyTorch's adds where, in C++
    return tangent, inference_view, normal_view._is_view(), warned_in_backward, resized, resized.grad_fn.name()


def test_views_tangents_and_backward_warnings(oracle: SimpleNamespace) -> None:
    oracle.check(_views_tangents_and_warnings)


def _tangent_laid_out_as_primal(m: ModuleType) -> Any:
    fwAD = m.autograd.forward_ad
    primal = m.arange(5.0)[:4].detach()
    tangent = m.ones(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # torch's forward AD scripts a helper on first use
        with fwAD.dual_level():
            dual = fwAD.make_dual(primal, tangent)
            unpacked = fwAD.unpack_dual(dual).tangent
            unpacked *= 2
            widened = fwAD.unpack_dual(dual.as_strided((5,), (1,), 0)).tangent
            same = fwAD.unpack_dual(fwAD.make_dual(m.ones(3), tangent[:3].clone())).tangent
    return tangent, unpacked, widened, same


def test_make_dual_lays_the_tangent_out_as_the_primal(oracle: SimpleNamespace) -> None:
    oracle.check(_tangent_laid_out_as_primal)


def _graph_exec_group(m: ModuleType) -> Any:
    from importlib import import_module

    checkpoint = import_module(f"{m.__name__}.utils.checkpoint")
    runs = []

    def fn(x: Any) -> Any:
        runs.append(1)
        y = x.sin().cos()
        return y, y.sin().cos()

    counts = []
    for grouped in (True, False):
        runs.clear()
        x = m.tensor([0.5, 1.0], requires_grad=True)
        y, z = checkpoint.checkpoint(fn, x, use_reentrant=False)
        group = checkpoint.GraphExecGroup()
        with group if grouped else contextlib.nullcontext():
            (gy,) = m.autograd.grad(z.sum(), (y,))
            (gx,) = m.autograd.grad(y, (x,), (gy,))
        counts.append((len(runs), gx))
    out = checkpoint.checkpoint(lambda t: t.sin().cos(), m.ones(2, requires_grad=True), use_reentrant=False)
    with checkpoint.GraphExecGroup():
        out.sum().backward(retain_graph=True)
        overlap = attempt(lambda: out.sum().backward())
        nested = attempt(lambda: checkpoint.GraphExecGroup().__enter__())
    return counts, overlap.type.__name__, overlap.first_line[:80], nested.first_line[:40]


def test_graph_exec_group_shares_one_recomputation(oracle: SimpleNamespace) -> None:
    oracle.check(_graph_exec_group)


def _function_vmap_switches(m: ModuleType) -> Any:
    class Square(m.autograd.Function):
        @staticmethod
        def forward(x: Any) -> Any:
            return x**2

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2 * ctx.saved_tensors[0]

    return Square.generate_vmap_rule, attempt(lambda: Square.vmap(None, (0,), m.ones(2))).type


def test_function_vmap_switches(oracle: SimpleNamespace) -> None:
    oracle.check(_function_vmap_switches)


def test_set_sequence_nr_reorders_the_nodes_ready_together(oracle: SimpleNamespace) -> None:
    def program(m: ModuleType) -> Any:
        x, y, z = (m.ones(2, requires_grad=True) for _ in range(3))
        a, b = x + y, y + z
        c = a + b
        order: list[str] = []
        for name, t, nr in (("a", a, 9), ("b", b, 7), ("c", c, 3)):  # c, the root, runs first whatever its number
            t.grad_fn._set_sequence_nr(nr)
            t.register_hook(lambda g, name=name: order.append(name))
        c.sum().backward()
        return order, [t.grad_fn._sequence_nr() for t in (a, b, c)], y.grad

    oracle.check(program)
