"""Gradients with sparse COO tensors against PyTorch 2.13: sparse leaves get sparse `.grad`s, gradients of every
layout accumulate as PyTorch adds them, Embedding(sparse=True) feeds SGD, Adagrad and SparseAdam."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from .test_coo import coo, facts

pytestmark = pytest.mark.torch_oracle

WEIGHTS = np.arange(6.0).reshape(2, 3) - 2.5


def grad_of(m: Any, loss: Any, leaf: Any) -> Any:
    loss(m, leaf).backward()
    return leaf.grad


def same_grad(mine: Any, theirs: Any) -> None:
    assert mine.is_sparse == theirs.is_sparse
    if theirs.is_sparse:
        assert facts(mine)[:3] + facts(mine)[4:] == facts(theirs)[:3] + facts(theirs)[4:]  # but is_coalesced()
    else:
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "loss",
    [
        lambda m, x: (x.to_dense() * m.tensor(WEIGHTS)).sum(),
        lambda m, x: (m.ones(2, 3, dtype=m.float64) + x).sum(),  # dense + sparse: a dense gradient
        lambda m, x: x.sum(),
        lambda m, x: m.sparse.sum(x),
        lambda m, x: m.sparse.sum(x, 1).to_dense().pow(2).sum(),
        lambda m, x: (x.coalesce().values() ** 2).sum(),
        lambda m, x: m.sparse.mm(x, m.tensor(WEIGHTS).t()).sum(),
        lambda m, x: x.mm(m.tensor(WEIGHTS).t()).sum(),  # Tensor.mm: a dense gradient
        lambda m, x: m.mm(x, m.tensor(WEIGHTS).t()).sum(),
        lambda m, x: (m.tensor(WEIGHTS).t() @ x).pow(2).sum(),
        lambda m, x: m.sum(x),
        lambda m, x: (x * 3 + x).to_dense().sum(),
        lambda m, x: (x * m.tensor(WEIGHTS)).to_dense().sum(),
        lambda m, x: m.sparse.softmax(x, 1).to_dense()[0, 2],
        lambda m, x: x.t().to_dense()[2, 1],
    ],
)
def test_a_sparse_leaf_gets_torchs_gradient(loss: Any) -> None:
    same_grad(grad_of(glassgrad, loss, coo(glassgrad, requires_grad=True)), grad_of(torch, loss, coo(torch, requires_grad=True)))


@pytest.mark.parametrize(
    "losses",
    [
        [lambda m, x: (x.to_dense() * m.tensor(WEIGHTS)).sum()] * 2,  # sparse + sparse
        [lambda m, x: (x.to_dense() * m.tensor(WEIGHTS)).sum(), lambda m, x: (m.ones(2, 3, dtype=m.float64) + x).sum()],
        [lambda m, x: (m.ones(2, 3, dtype=m.float64) + x).sum(), lambda m, x: x.to_dense().sum()],
    ],
)
def test_gradients_accumulate_across_backward_calls(losses: list[Any]) -> None:
    grads = []
    for m in (glassgrad, torch):
        x = coo(m, requires_grad=True)
        for loss in losses:
            loss(m, x).backward()
        grads.append(x.grad)
    np.testing.assert_allclose(grads[0].to_dense().numpy(), grads[1].to_dense().numpy(), rtol=1e-12)
    assert grads[0].is_sparse == grads[1].is_sparse


def _fixed_gradient(m: Any) -> Any:
    class Fixed(m.autograd.Function):
        """Identity forward; backward hands back the gradient it was given, whatever its layout."""

        @staticmethod
        def forward(ctx: Any, x: Any, grad: Any) -> Any:
            ctx.grad = grad
            return x.clone()

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            return ctx.grad, None

    return Fixed


@pytest.mark.parametrize("order", [("s1", "dense", "s2"), ("dense", "s1", "s2"), ("s1", "s2")])
def test_an_engine_sums_sparse_and_dense_gradients_of_one_input(order: tuple[str, ...]) -> None:
    results = []
    for m in (glassgrad, torch):
        grads = {
            "s1": coo(m, [[0, 3, 4], [0, 2, 2]], np.ones((3, 2)), (6, 3, 2)),
            "s2": coo(m, [[0, 1, 3, 4], [0, 1, 2, 2]], np.arange(8.0).reshape(4, 2), (6, 3, 2)),
            "dense": m.tensor(np.linspace(0, 1, 36).reshape(6, 3, 2)),
        }
        x = m.zeros(6, 3, 2, dtype=m.float64, requires_grad=True)
        fixed = _fixed_gradient(m)
        total = fixed.apply(x, grads[order[0]])
        for name in order[1:]:
            total = total + fixed.apply(x, grads[name])
        total.sum().backward()
        results.append(x.grad.to_dense() if x.grad.is_sparse else x.grad)
    np.testing.assert_allclose(results[0].numpy(), results[1].numpy(), rtol=1e-12)


def test_constructor_and_values_differentiate_as_torchs() -> None:
    """torch's own pattern: build from values, add a sparse constant, coalesce, take values, rebuild."""

    def fn(m: Any, v: Any) -> Any:
        x = m.sparse_coo_tensor(m.tensor([[0, 1, 0], [1, 0, 1]]), v, (2, 2), check_invariants=True)
        y = (x + coo(m, [[0, 1], [1, 1]], [1.0, 2.0], (2, 2))).coalesce()
        z = m.sparse_coo_tensor(y.indices(), y.values().tanh(), y.size(), check_invariants=True)
        return z.coalesce().values()

    outs = []
    for m in (glassgrad, torch):
        v = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
        out = fn(m, v)
        out.backward(m.tensor([1.0, 2.0, 3.0], dtype=m.float64)[: out.shape[0]])
        outs.append((out.detach().numpy(), v.grad.numpy()))
    for mine, theirs in zip(*outs, strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)
    v = glassgrad.tensor([0.5, -1.0, 2.0], dtype=glassgrad.float64, requires_grad=True)
    assert glassgrad.autograd.gradcheck(lambda v: fn(glassgrad, v), (v,))


def test_a_row_of_a_sparse_tensor_refuses_backward_as_torchs() -> None:
    for m in (glassgrad, torch):
        row = coo(m, requires_grad=True)[0]
        assert row.requires_grad
        with pytest.raises(NotImplementedError, match="Could not run 'aten::select_backward'"):
            row.to_dense().sum().backward()


def test_values_underscore_is_not_differentiable() -> None:
    for m in (glassgrad, torch):
        values = coo(m).detach().requires_grad_()._values()
        assert values.grad_fn is None and not values.requires_grad


def test_dense_sparse_mask_and_to_sparse_backward() -> None:
    for to_sparse in (lambda t: t.to_sparse(), lambda t: t.to_sparse_coo()):
        grads = []
        for m in (glassgrad, torch):
            t = m.tensor([1.0, -2.0, 0.5], dtype=m.float64, requires_grad=True)
            mask = m.tensor([1.0, 0.0, 1.0]).to_sparse()
            (t.sparse_mask(mask).to_dense() * 3).sum().backward()
            s = to_sparse(m.tensor([[0.0, 1.0], [2.0, 0.0]], dtype=m.float64)).requires_grad_()
            grad = m.autograd.grad(s.to_dense(), s, m.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=m.float64))[0]
            grads.append((t.grad.numpy(), facts(grad)))
        np.testing.assert_allclose(grads[0][0], grads[1][0])
        assert grads[0][1] == grads[1][1]


# torch's sparse-by-sparse mm goes through CSR and warns that CSR is in beta, once per process: whether this test
# sees the warning depends on which tests ran before it in the same worker.
@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta:UserWarning")
@pytest.mark.parametrize(("a_sparse", "b_sparse"), [(True, False), (True, True)])
def test_sparse_mm_gradients_match_torch(a_sparse: bool, b_sparse: bool) -> None:
    grads = []
    for m in (glassgrad, torch):
        a = m.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]], dtype=m.float64)
        b = m.tensor([[1.0, 0.0], [0.0, -1.0], [4.0, 0.5]], dtype=m.float64)
        a = (a.to_sparse() if a_sparse else a).requires_grad_()
        b = (b.to_sparse() if b_sparse else b).requires_grad_()
        out = m.sparse.mm(a, b)
        (out.to_dense() if out.is_sparse else out).sum().backward()
        grads.append((a.grad, b.grad))
    for mine, theirs in zip(*grads, strict=True):
        np.testing.assert_allclose(mine.to_dense().numpy(), theirs.to_dense().numpy(), rtol=1e-12)
        assert mine.is_sparse == theirs.is_sparse


# -- Embedding(sparse=True) and the optimizers ----------------------------------------------------------------
def embedding_grad(m: Any, **kwargs: Any) -> Any:
    m.manual_seed(0)
    table = m.nn.Embedding(5, 2, sparse=True, **kwargs)
    with m.no_grad():
        table.weight.copy_(m.tensor(np.arange(10.0).reshape(5, 2) / 7))
    (table(m.tensor([[1, 3], [1, 0]])) * m.tensor([1.0, -2.0])).sum().backward()
    return table


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 1}, {"padding_idx": 0}])
def test_embedding_sparse_gradient_matches_torch(kwargs: dict[str, Any]) -> None:
    mine, theirs = embedding_grad(glassgrad, **kwargs), embedding_grad(torch, **kwargs)
    assert facts(mine.weight.grad)[:3] == facts(theirs.weight.grad)[:3]
    np.testing.assert_allclose(mine.weight.grad._values().numpy(), theirs.weight.grad._values().numpy(), rtol=1e-6)


def test_embedding_sparse_scale_grad_by_freq_is_refused_at_backward() -> None:
    for m in (glassgrad, torch):
        with pytest.raises(RuntimeError, match="scale_grad_by_freq not supported with sparse gradients"):
            embedding_grad(m, scale_grad_by_freq=True)


@pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled")  # PyTorch's Adagrad, inside
@pytest.mark.parametrize(
    ("optimizer", "kwargs"),
    [
        ("SGD", {"lr": 0.1}),
        ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
        ("SGD", {"lr": 0.1, "maximize": True}),
        ("Adagrad", {"lr": 0.5, "lr_decay": 0.1}),
        ("SparseAdam", {"lr": 0.05}),
        ("SparseAdam", {"lr": 0.05, "betas": (0.5, 0.8), "maximize": True}),
    ],
)
def test_optimizers_step_with_sparse_gradients_as_torchs(optimizer: str, kwargs: dict[str, Any]) -> None:
    weights = []
    for m in (glassgrad, torch):
        table = embedding_grad(m)
        opt = getattr(m.optim, optimizer)(table.parameters(), **kwargs)
        for _ in range(3):
            opt.step()
            opt.zero_grad()
            (table(m.tensor([[2, 3], [3, 3]])) ** 2).sum().backward()
        weights.append(table.weight.detach().numpy())
    np.testing.assert_allclose(weights[0], weights[1], rtol=1e-5)


@pytest.mark.parametrize(
    ("optimizer", "kwargs"),
    [("Adam", {}), ("AdamW", {}), ("RMSprop", {}), ("NAdam", {}), ("Adagrad", {"weight_decay": 0.1}),
     ("SGD", {"weight_decay": 0.1, "lr": 0.1})],
)
def test_optimizers_refuse_sparse_gradients_as_torchs(optimizer: str, kwargs: dict[str, Any]) -> None:
    messages = []
    for m in (glassgrad, torch):
        opt = getattr(m.optim, optimizer)(embedding_grad(m).parameters(), **kwargs)
        with pytest.raises(RuntimeError) as refused:
            opt.step()
        messages.append(str(refused.value))
    assert messages[0] == messages[1]


def test_sparse_adam_refuses_a_dense_gradient() -> None:
    for m in (glassgrad, torch):
        p = m.zeros(2, requires_grad=True)
        p.grad = m.ones(2)
        with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients"):
            m.optim.SparseAdam([p]).step()


def test_zeroed_sparse_gradients_accumulate_again() -> None:
    """zero_grad(set_to_none=False) empties a sparse .grad; the next backward adds into it, sparse."""
    grads = []
    for m in (glassgrad, torch):
        table = embedding_grad(m)
        opt = m.optim.SGD(table.parameters(), lr=0.1)
        opt.step()
        opt.zero_grad(set_to_none=False)
        (table(m.tensor([4, 2])) * 3).sum().backward()
        grads.append(table.weight.grad)
    assert grads[0].is_sparse and grads[1].is_sparse
    np.testing.assert_allclose(grads[0].to_dense().numpy(), grads[1].to_dense().numpy())
