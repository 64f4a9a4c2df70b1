"""torch.func's reverse-mode transforms against PyTorch 2.13: grad, grad_and_value, vjp, jacrev, hessian.

Values, shapes, pytree structure and requires_grad of every result are compared (the oracle fixture), in
float64; then the transforms' own graphs are checked for leaks with weak references and the collector off.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

import glassgrad
from tests.autograd.test_functional import inputs as xy

pytestmark = pytest.mark.torch_oracle


def f2(a: Any, b: Any) -> Any:
    return (a.sin() * b.sum()).sum() + (a**2).sum() * b.prod()


def test_grad_argnums_and_pytrees(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.func
        x, y = xy(m)
        tree = {"w": x, "rest": [y, (x * 2,)]}

        def over_tree(p: Any, z: Any) -> Any:
            return (p["w"] * z).sum() + p["rest"][0].exp().sum() * p["rest"][1][0].sum()

        return (
            F.grad(f2)(x, y),
            F.grad(f2, argnums=1)(x, y),
            F.grad(f2, argnums=(1, 0))(x, y),
            F.grad(f2, argnums=-1)(x, y),
            F.grad_and_value(f2, argnums=(0, 1))(x, y),
            F.grad(over_tree)(tree, x),
            F.grad(over_tree, argnums=(0, 1))(tree, x),
            F.grad(lambda a, scale=1.0: (a**3).sum() * scale)(x, scale=2.0),
        )

    oracle.check(program)


def test_grad_has_aux(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.func
        x, y = xy(m)
        aux_fn = lambda a, b: (f2(a, b), {"prod": a * 2, "pair": (b.exp(), a.sum())})  # noqa: E731
        return F.grad(aux_fn, has_aux=True)(x, y), F.grad_and_value(aux_fn, argnums=(0, 1), has_aux=True)(x, y)

    oracle.check(program)


def test_grad_of_grad_and_unused_inputs(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.func
        t = m.tensor(0.7, dtype=m.float64)
        x, y = xy(m)
        cube_sin = lambda a: a.sin() * a**3  # noqa: E731
        return (
            F.grad(F.grad(cube_sin))(t),
            F.grad(F.grad(F.grad(cube_sin)))(t),
            F.grad(lambda a, b: (a**2).sum(), argnums=(0, 1))(x, y),  # b unused: zeros
            F.grad(lambda a: m.tensor(3.0, dtype=m.float64))(x),  # no history at all: zeros
            F.grad(lambda a: (a.detach() ** 2).sum())(x),
        )

    oracle.check(program)


def test_history_of_results_follows_the_caller(oracle: Any) -> None:
    """Inputs the caller differentiates keep their history through the transform; under no_grad nothing does;
    a closure over a tensor requiring grad connects the result too."""

    def program(m: ModuleType) -> Any:
        F = m.func
        x, y = xy(m, requires_grad=True)
        cube = lambda a: (a**3).sum()  # noqa: E731
        g = F.grad(cube)(x)
        second = m.autograd.grad(g.sum(), x)
        with m.no_grad():
            quiet = F.grad(cube)(x), F.grad_and_value(lambda a: (a * y[0, 0]).sum())(x.detach())
        closure = F.grad(lambda a: (a * y.sum()).sum())(x.detach())
        closure_second = m.autograd.grad(closure.sum(), y)
        inner_no_grad = F.grad(lambda a: (a * a.detach()).sum() + cube(a))(x.detach())
        return g, second, quiet, closure, closure_second, inner_no_grad

    oracle.check(program)


def test_vjp(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.func
        x, y = xy(m)
        fn = lambda a, b: (a.exp(), {"k": a.sum() * b})  # noqa: E731
        out, vjp_fn = F.vjp(fn, x, y)
        ct = (m.ones(3, dtype=m.float64) * 0.5, {"k": m.ones(2, 2, dtype=m.float64)})
        first, again = vjp_fn(ct), vjp_fn(ct)  # the graph is kept for a second call
        single_out, single_fn = F.vjp(lambda a: a.sin(), x)
        aux = F.vjp(lambda a: (a.sin(), {"c": a.cos()}), x, has_aux=True)
        return out, first, again, single_out, single_fn(m.ones(3, dtype=m.float64)), aux[0], aux[2]

    oracle.check(program)


def test_vjp_create_graph_and_differentiable_cotangents(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.func
        x, _ = xy(m, requires_grad=True)
        ct = m.tensor([1.0, 2.0, -1.0], dtype=m.float64, requires_grad=True)
        _, vjp_fn = F.vjp(lambda a: a.sin() * a, x)
        (g,) = vjp_fn(ct)
        (plain,) = vjp_fn(ct.detach(), create_graph=False)
        # Last: on glassgrad's single tape this backward frees the forward graph that vjp_fn shares with it.
        through = m.autograd.grad((g**2).sum(), (x, ct))
        _, detached_fn = F.vjp(lambda a: a.exp(), x.detach())
        (only_ct,) = detached_fn(ct)  # linear in the cotangent, which the caller differentiates
        return g, through, plain, only_ct, m.autograd.grad(only_ct.sum(), ct)

    oracle.check(program)


def test_jacrev(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.func
        x, y = xy(m)
        tree_fn = lambda a, b: (a.exp(), {"k": a.sum() * b})  # noqa: E731
        return (
            F.jacrev(lambda a: a.sin() * a.sum())(x),
            F.jacrev(tree_fn)(x, y),
            F.jacrev(tree_fn, argnums=(0, 1))(x, y),
            F.jacrev(tree_fn, argnums=1, chunk_size=2)(x, y),
            F.jacrev(lambda p: p["a"] * p["b"].sum())({"a": x, "b": y}),
            F.jacrev(lambda a: (a**2, a.sum()), has_aux=True)(x),
            F.jacrev(lambda a: (a.exp().sum(), a * 3), has_aux=True)(x),
            F.jacrev(lambda a: a[0] * a[1])(x),  # a scalar output: the jacobian is shaped like the input
            F.jacrev(F.jacrev(lambda a: (a**3).sum()))(x),
        )

    oracle.check(program)


# PyTorch's hessian (jacfwd) imports torch.jit machinery on first use, which warns.
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_hessian(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.func
        x, y = xy(m)
        return (
            F.hessian(f2)(x, y),
            F.hessian(f2, argnums=1)(x, y),
            F.hessian(f2, argnums=(0, 1))(x, y),
            F.hessian(lambda a: a.sin() * a**2)(x),  # a vector function: out.shape + in.shape + in.shape
        )

    oracle.check(program)


def test_maml_step_keeps_second_order_history(oracle: Any) -> None:
    """An inner step through grad on parameters that require grad, then a meta-gradient through it."""

    def program(m: ModuleType) -> Any:
        F = m.func
        w = m.tensor([[0.3, -0.2], [0.1, 0.4]], dtype=m.float64, requires_grad=True)
        data = m.tensor([[1.0, 2.0], [-1.0, 0.5], [0.2, 0.3]], dtype=m.float64)
        loss = lambda weight, batch: ((batch @ weight).tanh() ** 2).mean()  # noqa: E731
        g = F.grad(loss)(w, data)
        adapted = w - 0.5 * g
        meta = loss(adapted, data * 2)
        meta.backward()
        return g, adapted, meta, w.grad

    oracle.check(program)


ERRORS: dict[str, Callable[[ModuleType], Any]] = {
    "grad_vector_output": lambda m: m.func.grad(lambda a: a * 2)(xy(m)[0]),
    "grad_non_tensor_output": lambda m: m.func.grad(lambda a: 2.0)(xy(m)[0]),
    "grad_aux_not_pair": lambda m: m.func.grad(lambda a: a.sum(), has_aux=True)(xy(m)[0]),
    "grad_aux_not_tensor": lambda m: m.func.grad(lambda a: (a.sum(), 3), has_aux=True)(xy(m)[0]),
    "grad_argnums_list": lambda m: m.func.grad(f2, argnums=[0])(*xy(m)),
    "grad_argnums_out_of_range": lambda m: m.func.grad(f2, argnums=2)(*xy(m)),
    "grad_argnums_not_int": lambda m: m.func.grad(f2, argnums=(0, "1"))(*xy(m)),
    "grad_argnums_empty": lambda m: m.func.grad(f2, argnums=())(*xy(m)),
    "grad_argnums_repeated": lambda m: m.func.grad(f2, argnums=(0, 0))(*xy(m)),
    "grad_of_non_tensor": lambda m: m.func.grad(lambda a, b: (a * b).sum())(2.0, xy(m)[0]),
    "vjp_empty_output": lambda m: m.func.vjp(lambda a: (), xy(m)[0]),
    "vjp_non_tensor_output": lambda m: m.func.vjp(lambda a: (a, 2.0), xy(m)[0]),
    "vjp_integer_output": lambda m: m.func.vjp(lambda a: (a * 2).long(), xy(m)[0]),
    "vjp_primal_not_tensor": lambda m: m.func.vjp(lambda a, b: a * b, xy(m)[0], 2.0),
    "vjp_cotangent_structure": lambda m: m.func.vjp(lambda a: (a, a * 2), xy(m)[0])[1](m.ones(3)),
    "vjp_cotangent_shape": lambda m: m.func.vjp(lambda a: a * 2, xy(m)[0])[1](m.ones(4, dtype=m.float64)),
    "jacrev_chunk_size": lambda m: m.func.jacrev(lambda a: a, chunk_size=0),
    "jacrev_non_tensor_output": lambda m: m.func.jacrev(lambda a: [a, 1])(xy(m)[0]),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(oracle: Any, case: str) -> None:
    outcome = oracle.check(lambda m: oracle.attempt(lambda: ERRORS[case](m)))
    assert type(outcome).__name__ == "Raised", f"PyTorch did not raise for {case}: the case tests nothing"


def _mlp(m: ModuleType, x: Any, w1: Any, w2: Any) -> Any:
    """A small network with a cross-entropy loss: what forward mode has to get through in practice."""
    hidden = m.nn.functional.gelu(x @ w1)
    return m.nn.functional.cross_entropy(hidden @ w2, m.tensor([1, 0, 2]))


def _mlp_inputs(m: ModuleType) -> tuple[Any, Any, Any]:
    gen = m.Generator().manual_seed(0) if m is not glassgrad else None
    values = [[0.3 * ((7 * i + 3 * j) % 5 - 2) for j in range(c)] for i, c in ((0, 4), (1, 4), (2, 4))]
    x = m.tensor(values, dtype=m.float64)
    w1 = m.tensor([[0.1 * ((i * 5 + j) % 7 - 3) for j in range(5)] for i in range(4)], dtype=m.float64)
    w2 = m.tensor([[0.2 * ((i * 3 + j) % 4 - 1.5) for j in range(3)] for i in range(5)], dtype=m.float64)
    del gen
    return x, w1, w2


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_forward_mode_transforms(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        F = m.func
        x, w1, w2 = _mlp_inputs(m)
        v1, v2 = w1.cos(), w2.sin()
        return (
            F.jvp(lambda a, b: _mlp(m, x, a, b), (w1, w2), (v1, v2)),
            F.jvp(lambda a: (a.tanh(), a.sum() * 2), (w1,), (v1,), has_aux=False),
            F.jvp(lambda a: (a.exp(), a.sum()), (w1,), (v1,), has_aux=True),
            F.jacfwd(lambda a: (x @ a).softmax(-1))(w1),
            F.jacfwd(lambda a, b: _mlp(m, x, a, b), argnums=(0, 1))(w1, w2),
            F.jacfwd(lambda a: (a.sin(), {"s": a.sum()}), has_aux=True)(w2),
            F.hessian(lambda b: _mlp(m, x, w1, b))(w2),
            # forward over reverse: Hessian-vector products of the network's loss
            F.jvp(F.grad(lambda a, b: _mlp(m, x, a, b), argnums=(0, 1)), (w1, w2), (v1, v2))[1],
        )

    oracle.check(program)


FORWARD_ERRORS: dict[str, Callable[[ModuleType], Any]] = {
    "primals_not_tuple": lambda m: m.func.jvp(lambda a: a, [m.ones(2)], [m.ones(2)]),
    "structure_differs": lambda m: m.func.jvp(lambda a: a, (m.ones(2),), (m.ones(2), m.ones(2))),
    "not_tensors": lambda m: m.func.jvp(lambda a: a, (1.0,), (1.0,)),
    "empty_output": lambda m: m.func.jvp(lambda a: None, (m.ones(2),), (m.ones(2),)),
    "strict_independent": lambda m: m.func.jvp(lambda a: m.ones(2), (m.ones(2),), (m.ones(2),), strict=True),
    "aux_not_pair": lambda m: m.func.jvp(lambda a: a, (m.ones(2),), (m.ones(2),), has_aux=True),
    "tangent_shape": lambda m: m.func.jvp(lambda a: a, (m.ones(2),), (m.ones(3),)),
}


@pytest.mark.parametrize("case", sorted(FORWARD_ERRORS))
def test_forward_mode_errors(oracle: Any, case: str) -> None:
    outcome = oracle.check(lambda m: oracle.attempt(lambda: FORWARD_ERRORS[case](m)))
    assert type(outcome).__name__ == "Raised", f"PyTorch did not raise for {case}: the case tests nothing"


# -- no leaks: what a transform builds for itself dies when it returns ---------------------------------------


def _recording(kept: list[weakref.ref[Any]], fn: Callable[..., Any]) -> Callable[..., Any]:
    """fn, with a weak reference kept to the graph node of each tensor it returns (pytrees included)."""

    def wrapped(*args: Any) -> Any:
        out = fn(*args)
        for leaf in glassgrad.func._pytree.tree_leaves(out):
            if isinstance(leaf, glassgrad.Tensor) and leaf.grad_fn is not None:
                kept.append(weakref.ref(leaf.grad_fn))
        return out

    return wrapped


def _assert_freed(kept: list[weakref.ref[Any]], what: str) -> None:
    assert kept, f"{what}: the function recorded no graph, so the test checks nothing"
    assert all(ref() is None for ref in kept), f"{what}: a graph built inside the transform outlived it"


def test_grad_and_jacrev_free_their_graphs(no_gc: None) -> None:
    x = glassgrad.tensor([0.5, -1.0, 2.0], dtype=glassgrad.float64)
    w = glassgrad.tensor([1.5, 0.5, -0.5], dtype=glassgrad.float64)  # no history: nothing outside to connect to
    for name, transform in {
        "grad": lambda f: glassgrad.func.grad(f),
        "grad_and_value": lambda f: glassgrad.func.grad_and_value(f),
        "grad_of_grad": lambda f: glassgrad.func.grad(lambda a: glassgrad.func.grad(f)(a).sum()),
        "jacrev": lambda f: glassgrad.func.jacrev(f),
        "hessian": lambda f: glassgrad.func.hessian(f),
    }.items():
        kept: list[weakref.ref[Any]] = []
        result = transform(_recording(kept, lambda a: ((a * w).tanh() ** 2).sum()))(x)
        assert not glassgrad.func._pytree.tree_leaves(result)[0].requires_grad, name
        _assert_freed(kept, name)


def test_vjp_graph_lives_as_long_as_vjp_fn(no_gc: None) -> None:
    x = glassgrad.tensor([0.5, -1.0, 2.0], dtype=glassgrad.float64)
    kept: list[weakref.ref[Any]] = []
    out, vjp_fn = glassgrad.func.vjp(_recording(kept, lambda a: a.sin() * a.exp()), x)
    assert not out.requires_grad
    vjp_fn(glassgrad.ones(3, dtype=glassgrad.float64))
    assert kept and all(ref() is not None for ref in kept), "vjp_fn must keep the graph for a second call"
    del vjp_fn
    _assert_freed(kept, "vjp")


def test_connected_results_keep_only_what_the_caller_needs(no_gc: None) -> None:
    """With an input requiring grad, the gradient has history for the caller; the rest of the function's graph
    goes when the transform returns, and the gradient's own graph when the caller drops it."""
    x = glassgrad.tensor([0.5, -1.0, 2.0], dtype=glassgrad.float64, requires_grad=True)
    kept: list[weakref.ref[Any]] = []
    g = glassgrad.func.grad(_recording(kept, lambda a: (a.sin() * a).sum()))(x)
    _assert_freed(kept, "grad with history (the function's output node)")
    assert g.requires_grad
    gradient_graph = [weakref.ref(g.grad_fn)]
    (h,) = glassgrad.autograd.grad(g.sum(), x)
    del g
    _assert_freed(gradient_graph, "the gradient's own graph")
    assert not h.requires_grad
