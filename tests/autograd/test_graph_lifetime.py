"""The graph-lifetime contract (DESIGN.md section 1), each rule checked against real PyTorch 2.13.

Every program runs once with `m = torch` and once with `m = glassgrad`; the oracle fixture
(conftest.py) compares values, gradients, requires_grad flags and raised errors.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

pytestmark = pytest.mark.torch_oracle


def vec(m: ModuleType, values: list[float] | None = None, requires_grad: bool = True) -> Any:
    return m.tensor(values or [0.5, -1.0, 2.0], requires_grad=requires_grad)


# Ops whose backward needs a saved tensor: a second backward after the default free fails.
SAVING: dict[str, Callable[[Any], Any]] = {
    "mul_scalar": lambda x: x * 2,
    "mul_self": lambda x: x * x,
    "exp": lambda x: x.exp(),
    "tanh": lambda x: x.tanh(),
    "sin": lambda x: x.sin(),
    "pow": lambda x: x**3,
    "div": lambda x: x / (x + 3),
    "mean_of_exp": lambda x: x.exp().mean(),
}
# Ops whose formula needs nothing: PyTorch runs a second backward through them even after the free.
NOT_SAVING: dict[str, Callable[[Any], Any]] = {
    "add": lambda x: x + x,
    "add_scalar": lambda x: x + 1,
    "neg_sub": lambda x: -x - 1,
    "view": lambda x: x.view(3, 1),
    "reshape": lambda x: x.reshape(1, 3),
    "getitem": lambda x: x[1:],
    "clone": lambda x: x.clone(),
    "expand": lambda x: x.unsqueeze(0).expand(2, 3),
    "mean": lambda x: x.mean(),
}


def _twice(f: Callable[[Any], Any], retain: bool | None, oracle: Any) -> Callable[[ModuleType], Any]:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        loss = f(x).sum()
        loss.backward(retain_graph=retain)
        first = x.grad.clone()
        return first, oracle.attempt(loss.backward), x.grad

    return program


@pytest.mark.parametrize("name", sorted(SAVING))
def test_second_backward_after_free_fails_for_saving_ops(oracle: Any, name: str) -> None:
    outcome = oracle.check(_twice(SAVING[name], None, oracle))
    assert outcome[1].first_line.startswith("Trying to backward through the graph a second time")


@pytest.mark.parametrize("name", sorted(NOT_SAVING))
def test_second_backward_after_free_succeeds_without_saved_tensors(oracle: Any, name: str) -> None:
    outcome = oracle.check(_twice(NOT_SAVING[name], None, oracle))
    assert outcome[1] is None


@pytest.mark.parametrize("name", sorted(SAVING))
def test_second_backward_with_retain_graph_accumulates(oracle: Any, name: str) -> None:
    oracle.check(_twice(SAVING[name], True, oracle))


def test_two_losses_sharing_a_subgraph(oracle: Any) -> None:
    def program(m: ModuleType, retain: bool | None) -> Any:
        x, w = vec(m), vec(m, [1.5, 0.25, -0.5])
        h = (x * w).tanh()
        l1, l2 = h.sum(), (h * h).sum()
        l1.backward(retain_graph=retain)
        return oracle.attempt(l2.backward), x.grad, w.grad

    failed = oracle.check(lambda m: program(m, None))
    assert failed[0].first_line.startswith("Trying to backward through the graph a second time")
    assert oracle.check(lambda m: program(m, True))[0] is None


def test_separate_graphs_need_no_retain_graph(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        (x * 2).sum().backward()
        x.exp().sum().backward()
        return x.grad

    oracle.check(program)


def test_optimizer_update_between_two_backwards_is_a_version_error(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        w = vec(m)
        loss = (w * w).sum()
        loss.backward(retain_graph=True)
        with m.no_grad():
            w -= 0.1 * w.grad
        return w, w._version, oracle.attempt(loss.backward)

    outcome = oracle.check(program)
    assert "modified by an inplace operation" in outcome[2].first_line


def test_optimizer_update_of_an_unsaved_weight_is_fine(oracle: Any) -> None:
    # mm saves only the other operand for a weight's gradient: x @ w with x not requiring grad saves x, not w.
    def program(m: ModuleType) -> Any:
        x = m.tensor([[1.0, 2.0], [3.0, -1.0]])
        w = m.tensor([[0.5, -0.5], [1.0, 2.0]], requires_grad=True)
        loss = (x @ w).sum()
        loss.backward(retain_graph=True)
        with m.no_grad():
            w -= 0.1 * w.grad
        return oracle.attempt(loss.backward), w.grad

    oracle.check(program)


def test_inplace_on_leaf_requiring_grad(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        leaf = oracle.attempt(lambda: x.add_(1))
        view = oracle.attempt(lambda: x[1:].mul_(2))
        reshaped = oracle.attempt(lambda: x.view(3, 1).zero_())
        with m.no_grad():
            x.mul_(3)
            x[0] = 7.0
        return leaf, view, reshaped, x, x.is_leaf, x._version

    outcome = oracle.check(program)
    assert outcome[0].first_line == "a leaf Variable that requires grad is being used in an in-place operation."
    assert outcome[1].first_line.startswith("a view of a leaf Variable")


def test_inplace_on_saved_non_leaf_is_a_version_error(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        y = x.exp()
        y.add_(1)  # exp saved its result, which is y
        a = x * 2
        b = a.sin()
        a.mul_(3)  # sin saved its input, which is a
        return oracle.attempt(lambda: y.sum().backward()), oracle.attempt(lambda: b.sum().backward()), x.grad

    outcome = oracle.check(program)
    assert "which is output 0 of Exp," in outcome[0].first_line
    assert "which is output 0 of Mul," in outcome[1].first_line


def test_inplace_on_unsaved_non_leaf_rebases_history(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        a = x + 1
        before = a.grad_fn.name()
        a.mul_(3)
        b = x + 1
        b.exp_()  # exp_ saves its own new result, so the rebased graph still runs
        (a + b).sum().backward()
        return before, a.grad_fn.name(), b.grad_fn.name(), a.grad_fn.next_functions[0][0].name(), a, b, x.grad

    oracle.check(program)


def test_inplace_on_view_of_non_leaf_copies_slices(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m, [0.5, -1.0, 2.0, 3.0])
        a = x.clone()
        a[1:3].mul_(x[0:2])
        a[0] = 5.0
        view = a[2:]
        view.exp_()
        (a * a).sum().backward()
        return a.grad_fn.name(), a, view.requires_grad, view._base is a, x.grad

    oracle.check(program)


def test_recurrent_state_without_detach_fails_on_second_step(oracle: Any) -> None:
    def program(m: ModuleType, detach: bool) -> Any:
        x = vec(m)
        w = vec(m, [0.3, -0.2, 0.1])
        h = m.zeros(3)
        steps = []
        for _ in range(3):
            if detach:
                h = h.detach()
            h = (h * w + x).tanh()
            steps.append(oracle.attempt(lambda h=h: h.sum().backward()))
        return steps, x.grad, w.grad

    failed = oracle.check(lambda m: program(m, False))
    assert failed[0][0] is None
    assert failed[0][1].first_line.startswith("Trying to backward through the graph a second time")
    assert oracle.check(lambda m: program(m, True))[0] == [None, None, None]


def test_accumulating_losses_keeps_graphs_unless_item(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        total: Any = 0
        running = 0.0
        for k in (1.0, 2.0, 3.0):
            loss = (x * k).sum()
            total = total + loss
            running += loss.item()
        chain = []
        node = total.grad_fn
        while node is not None:  # follow the edge towards the losses, not the one of the scalar 0
            chain.append(node.name())
            node = next((n for n, _ in node.next_functions if n is not None), None)
        total.backward()
        return total, total.is_leaf, chain, running, x.grad

    oracle.check(program)


def test_reflected_operators_put_the_tensor_first(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        return [[None if n is None else n.name() for n, _ in y.grad_fn.next_functions] for y in (0 + x, 2 * x)]

    oracle.check(program)


@pytest.mark.parametrize("name", ["cube", "sin", "tanh"])
def test_second_derivative(oracle: Any, name: str) -> None:
    f = {"cube": lambda x: x**3, "sin": lambda x: x.sin(), "tanh": lambda x: x.tanh()}[name]

    def program(m: ModuleType) -> Any:
        x = vec(m)
        (g,) = m.autograd.grad(f(x).sum(), x, create_graph=True)
        (g2,) = m.autograd.grad(g.sum(), x)
        return g, g.grad_fn is not None, g2

    oracle.check(program)


def test_second_derivative_through_backward_create_graph(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        (x**3).sum().backward(create_graph=True)
        g = x.grad
        x.grad = None
        g.sum().backward()
        return g, x.grad

    oracle.check(program)


def test_hessian_vector_product(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        v = m.tensor([1.0, 0.5, -2.0])
        f = (x**3).sum() + x[0] * x[1] * x[2] + (x.sin() * x.sum()).sum()
        (g,) = m.autograd.grad(f, x, create_graph=True)
        (hv,) = m.autograd.grad((g * v).sum(), x)
        return g, hv, x.grad

    oracle.check(program)


def test_autograd_grad_allow_unused_and_materialize(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x, z = vec(m), vec(m, [1.0, 1.0, 1.0])
        y = (x * 2).sum()
        unused_error = oracle.attempt(lambda: m.autograd.grad(y, [x, z], retain_graph=True))
        allowed = m.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True)
        materialized = m.autograd.grad(y, [x, z], materialize_grads=True)
        return unused_error, allowed, materialized, x.grad, z.grad

    outcome = oracle.check(program)
    assert outcome[0].first_line.startswith("The differentiated Tensor at index 1 appears to not have been used")


def test_autograd_grad_prunes_by_creation_order(oracle: Any) -> None:
    """The engine decides which nodes lead to an input in sequence order: graphs that stretch it."""

    def program(m: ModuleType) -> Any:
        x, w, late = vec(m), vec(m, [1.5, 0.25, -0.5]), vec(m, [0.5, -1.0, 2.0])
        base = (x * w).exp()
        base[1:] *= w[1:].cos()  # CopySlices, made after the nodes it points to
        y = base.sin() * late  # a leaf whose accumulator is numbered after everything above
        loss = (y * base).sum()
        by_input = [m.autograd.grad(loss, t, retain_graph=True) for t in (x, w, late, base)]
        return by_input, m.autograd.grad(loss, [late, x])

    oracle.check(program)


def test_autograd_grad_outputs_and_retain_graph(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        y = x * x
        weighted = m.autograd.grad(y, x, grad_outputs=m.tensor([1.0, 2.0, 3.0]), retain_graph=True)
        again = m.autograd.grad(y.sum(), x)
        freed = oracle.attempt(lambda: m.autograd.grad(y.sum(), x))
        return weighted, again, freed, x.grad

    oracle.check(program)


def test_backward_inputs_only_accumulates_into_named_inputs(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x, w = vec(m), vec(m, [1.5, 0.25, -0.5])
        h = x * w
        loss = (h * h).sum()
        loss.backward(inputs=[x], retain_graph=True)
        only_x = (x.grad.clone(), w.grad)
        loss.backward(inputs=[w, h])
        return only_x, x.grad, w.grad, h.grad

    oracle.check(program)


def test_retain_grad_and_non_leaf_grad(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        h = x * 2
        k = h.exp()
        h.retain_grad()
        loss = (k * h).sum()
        loss.backward(retain_graph=True)
        first = (h.grad.clone(), oracle.warned(lambda: k.grad), h.retains_grad, k.retains_grad)
        loss.backward()
        return first, h.grad, x.grad

    oracle.check(program)


def test_leaf_grad_accumulates_until_zeroed(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        grads = []
        for _ in range(2):
            (x * x).sum().backward()
            grads.append(x.grad.clone())
        x.grad.zero_()
        (x * x).sum().backward()
        grads.append(x.grad.clone())
        x.grad = None
        x.sin().sum().backward()
        return grads, x.grad

    oracle.check(program)


def test_backward_errors(oracle: Any) -> None:
    def program(m: ModuleType) -> Any:
        x = vec(m)
        plain = vec(m, requires_grad=False)
        return (
            oracle.attempt(lambda: (plain * 2).sum().backward()),
            oracle.attempt(lambda: (x * 2).backward()),
            oracle.attempt(lambda: (x * 2).backward(m.tensor([1.0, 2.0]))),
            oracle.attempt(lambda: m.autograd.grad((plain * 2).sum(), x)),
            x.grad,
        )

    outcome = oracle.check(program)
    assert outcome[0].first_line == "element 0 of tensors does not require grad and does not have a grad_fn"
    assert outcome[1].first_line == "grad can be implicitly created only for scalar outputs"
    assert outcome[2].first_line.startswith("Mismatch in shape")


GRAD_FN_CASES: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda x, y: x + y,
    "mul": lambda x, y: x * y,
    "mul_scalar": lambda x, y: x * 2,
    "exp": lambda x, y: x.exp(),
    "sum": lambda x, y: x.sum(),
    "sum_dim": lambda x, y: x.sum(1),
    "mean": lambda x, y: x.mean(),
    "view": lambda x, y: x.view(3, 2),
    "reshape": lambda x, y: x.reshape(6),
    "transpose": lambda x, y: x.transpose(0, 1),
    "t": lambda x, y: x.t(),
    "getitem_slice": lambda x, y: x[:, 1:],
    "getitem_int": lambda x, y: x[1],
    "matmul_2d": lambda x, y: x @ y.t(),
    "clone": lambda x, y: x.clone(),
    "detach": lambda x, y: x.detach(),
}


def _two_matrices(m: ModuleType, requires: tuple[bool, bool]) -> tuple[Any, Any]:
    x = m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=requires[0])
    y = m.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -3.0]], requires_grad=requires[1])
    return x, y


@pytest.mark.parametrize("name", sorted(GRAD_FN_CASES))
@pytest.mark.parametrize("requires", [(True, True), (True, False), (False, True), (False, False)])
def test_requires_grad_propagation_and_grad_fn_names(oracle: Any, name: str, requires: tuple[bool, bool]) -> None:
    def program(m: ModuleType) -> Any:
        out = GRAD_FN_CASES[name](*_two_matrices(m, requires))
        grad_fn = None if out.grad_fn is None else (out.grad_fn.name(), type(out.grad_fn).__name__)
        if out.requires_grad and not out.is_leaf:
            out.sum().backward()
        return out, out.is_leaf, grad_fn

    oracle.check(program)


@pytest.mark.parametrize("name", ["add", "exp", "matmul_2d", "clone", "mean"])
def test_no_grad_results_do_not_require_grad(oracle: Any, name: str) -> None:
    def program(m: ModuleType) -> Any:
        with m.no_grad():
            out = GRAD_FN_CASES[name](*_two_matrices(m, (True, True)))
        return out, out.is_leaf, out.grad_fn is None

    oracle.check(program)


@pytest.mark.parametrize("name", ["view", "reshape", "transpose", "getitem_slice"])
def test_views_made_in_no_grad_still_require_grad(oracle: Any, name: str) -> None:
    # PyTorch: the view requires grad (its base does) yet is a leaf, and in-place on it with grad on is an error.
    def program(m: ModuleType) -> Any:
        with m.no_grad():
            out = GRAD_FN_CASES[name](*_two_matrices(m, (True, True)))
        return out, out.is_leaf, oracle.attempt(lambda: out.mul_(2))

    oracle.check(program)


def test_inplace_arithmetic_without_a_graph(oracle: Any) -> None:
    """What an optimizer does under no_grad, and the cases that must still take the checked path."""

    def program(m: ModuleType) -> Any:
        p = vec(m, [1.0, 2.0, 3.0, 4.0])
        g = m.tensor([0.5, 0.5, -1.0, 2.0])
        with m.no_grad():
            p -= 0.1 * g
            p += 1
            p *= m.tensor(3.0)
            p /= 2.0
            view = p[1:]
            view += 1  # the base sees it, and the version is shared
            p.add_(p.flip(0))  # overlapping read and write
        plain = m.tensor([1.0, 2.0])
        plain.mul_(plain)  # nothing requires grad: no graph even with grad mode on
        wide = m.tensor([1.0, 2.0], dtype=m.float64)
        wide += m.tensor([0.5, 0.25])  # another dtype: promoted and cast back
        ints = m.tensor([1, 2])
        narrowing = oracle.attempt(lambda: ints.__iadd__(1.5))
        expanded = m.zeros(1).expand(3)
        overlap = oracle.attempt(lambda: expanded.add_(1))
        recorded = oracle.attempt(lambda: p.add_(1))  # a leaf requiring grad, with grad mode on
        return p, p._version, view._version, plain, plain._version, wide, narrowing, overlap, recorded, p.grad_fn

    oracle.check(program)


def test_gradients_meeting_in_a_buffer_never_change_a_tensor_someone_holds(oracle: Any) -> None:
    """The engine adds a second gradient into the first in place only when nothing else can see the first."""

    def program(m: ModuleType) -> Any:
        kept: list[Any] = []

        class Keep(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 1

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                out = grad * 2
                kept.append(out)
                return out

        x = vec(m)
        y = x * 3
        (Keep.apply(y) * 5 + Keep.apply(y)).sum().backward()  # both kept gradients meet in y's buffer
        return sorted(k.tolist() for k in kept), x.grad

    oracle.check(program)
