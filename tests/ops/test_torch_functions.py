"""What the OpInfo harness does not see of issue 18's functions: identities, return types, node names, saved
tensors and error messages, each compared with PyTorch 2.13."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

BOTH = pytest.mark.parametrize("m", [torch, glassgrad], ids=["torch", "glassgrad"])


def raised(fn: Any) -> tuple[str, str]:
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


def same_message(fn: Any) -> None:
    """glassgrad raises PyTorch's exception type, and its message begins with PyTorch's first line."""
    (got_type, got), (want_type, want) = raised(lambda: fn(glassgrad)), raised(lambda: fn(torch))
    assert got_type == want_type
    assert got.startswith(want.split("\n")[0]), f"{got!r} does not begin with {want.splitlines()[0]!r}"


# -- stacking.py --------------------------------------------------------------------------------
@BOTH
def test_atleast_and_broadcast_tensors_return_inputs_that_fit_unchanged(m: Any) -> None:
    x = m.ones(2, 3, requires_grad=True)
    assert m.atleast_1d(x) is x and m.atleast_2d(x) is x
    assert m.atleast_3d(x) is not x and m.atleast_3d(x)._base is x
    a, b = m.broadcast_tensors(x, m.ones(3))
    assert a is x and b.shape == (2, 3)
    assert m.atleast_1d() == () and m.broadcast_tensors() == ()


def test_broadcast_shapes_gives_a_size() -> None:
    for shapes in [((2, 1), (3,), 3), (), (None, [5, 1], (1, 2))]:
        got = glassgrad.broadcast_shapes(*shapes)
        assert isinstance(got, glassgrad.Size)
        assert tuple(got) == tuple(torch.broadcast_shapes(*shapes))


@pytest.mark.parametrize("call", [
    lambda m: m.broadcast_shapes((2, 3), [3, 1]),
    lambda m: m.broadcast_shapes((-1,)),
    lambda m: m.broadcast_shapes(1.5),
    lambda m: m.broadcast_tensors(m.ones(2, 3), m.ones(4)),
    lambda m: m.broadcast_tensors(m.ones(2), [1.0]),
])
def test_stacking_errors_match_torch(call: Any) -> None:
    same_message(call)


# -- binary.py: copysign, clamp_min, clamp_max; torch.relu_ --------------------------------------
def _values_and_grads(m: Any, fn: Any, *inputs: list[float]) -> list[np.ndarray]:
    xs = [m.tensor(x, dtype=m.float64, requires_grad=True) for x in inputs]
    out = fn(m, *xs)
    grads = m.autograd.grad(out.sum(), xs, allow_unused=True, materialize_grads=True)
    return [np.signbit(out.detach().numpy()), out.detach().numpy(), *(g.numpy() for g in grads)]


@pytest.mark.parametrize("fn", [
    lambda m, x, o: m.copysign(x, o), lambda m, x, o: m.copysign(x, -0.0),
    lambda m, x, o: m.clamp_min(x, o), lambda m, x, o: m.clamp_max(x, o),
    lambda m, x, o: m.clamp_min(x, 0.0), lambda m, x, o: m.clamp_max(x, -0.0),
])
def test_signed_zeros_and_ties_match_torch(fn: Any) -> None:
    """Signs of zero and ties between input and bound: where the OpInfos' finite differences cannot look."""
    x, other = [0.0, -0.0, 1.0, -1.0, 2.0, 0.0], [-0.0, 0.0, -0.0, 1.0, 2.0, float("nan")]
    for got, want in zip(_values_and_grads(glassgrad, fn, x, other), _values_and_grads(torch, fn, x, other), strict=True):
        np.testing.assert_array_equal(got, want)


@BOTH
def test_inplace_functions_return_their_input(m: Any) -> None:
    x = m.tensor([-1.0, 2.0]) * 1
    assert m.relu_(x) is x and m.clamp_min_(x, 0.5) is x and m.clamp_max_(x, m.tensor(1.5)) is x
    assert x.tolist() == [0.5, 1.5]


@pytest.mark.parametrize("call", [
    lambda m: m.clamp_min(m.ones(2), None), lambda m: m.copysign(m.tensor([1, 2]), m.ones(3)),
    lambda m: m.relu_(m.tensor([True])), lambda m: m.logaddexp2(m.tensor([1]), m.tensor([2])),
])
def test_binary_errors_match_torch(call: Any) -> None:
    same_message(call)


# -- reduction.py: nansum, nanmean ----------------------------------------------------------------
@BOTH
def test_nanmean_is_nansum_over_a_count(m: Any) -> None:
    x = m.tensor([[1.0, float("nan")], [2.0, 3.0]], requires_grad=True)
    r = m.nanmean(x, 1)
    assert r.grad_fn.name() == "DivBackward0" and r.grad_fn.next_functions[0][0].name() == "NansumBackward0"
    m.nansum(x, dtype=m.float64).backward()
    assert x.grad.dtype == m.float32 and x.grad.tolist() == [[1.0, 0.0], [1.0, 1.0]]


# -- scans.py: logcumsumexp, cummax, cummin, diff ---------------------------------------------------
def _grads(m: Any, fn: Any, data: list[Any]) -> list[np.ndarray]:
    x = m.tensor(data, dtype=m.float64, requires_grad=True)
    out = fn(m, x)
    seed = m.arange(out.numel(), dtype=m.float64).reshape(out.shape) - 2
    (grad,) = m.autograd.grad(out, x, seed)
    return [out.detach().numpy(), grad.numpy()]


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(("fn", "data"), [
    (lambda m, x: m.cummax(x, 1).values, [[1.0, 1.0, 0.0, 1.0, NAN, 2.0, NAN], [-0.0, 0.0, -0.0, 3.0, 3.0, 1.0, 3.0]]),
    (lambda m, x: m.cummin(x, 1).values, [[1.0, 1.0, 2.0, 1.0, NAN, 0.0, NAN], [0.0, -0.0, 0.0, -3.0, -3.0, 1.0, -3.0]]),
    (lambda m, x: m.logcumsumexp(x, 1), [[-INF, -INF, 1.0, -INF, 2.0], [INF, 1.0, NAN, 2.0, -INF]]),
    (lambda m, x: m.logcumsumexp(x, 0), [[800.0, -800.0], [800.0, 800.0]]),
])
def test_ties_infinities_and_nans_match_torch(fn: Any, data: list[Any]) -> None:
    for got, want in zip(_grads(glassgrad, fn, data), _grads(torch, fn, data), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)


@BOTH
def test_scans_save_what_pytorch_saves(m: Any) -> None:
    x = m.ones(3, requires_grad=True)
    for out, saved in [(m.cummax(x, 0).values, ("dim", "indices", "self")), (m.logcumsumexp(x, 0), ("dim", "result", "self"))]:
        assert all(hasattr(out.grad_fn, f"_saved_{name}") for name in saved)
    assert m.diff(x, n=0).grad_fn.name().endswith("CopyBackwards")
    empty = m.ones(0)
    assert m.diff(empty) is empty


# -- distance.py: cdist ---------------------------------------------------------------------------
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, INF])
@pytest.mark.parametrize("rows", [3, 26])  # 26 rows: the matrix-product path for p = 2
def test_cdist_at_zero_distance_matches_torch(p: float, rows: int) -> None:
    """Rows of x2 that repeat rows of x1 (distance 0) or share a coordinate with them: PyTorch's subgradients.

    Small integers keep the matrix-product path's |a|^2 - 2ab + |b|^2 exact, so both libraries see the same zeros.
    """
    a = np.random.default_rng(0).integers(-3, 4, (rows, 3)).astype(np.float64)
    b = np.concatenate([a[:2], a[2:4] * [1.0, 0.0, 2.0]])

    def run(m: Any) -> list[Any]:
        x1, x2 = m.tensor(a, requires_grad=True), m.tensor(b, requires_grad=True)
        out = m.cdist(x1, x2, p)
        grads = m.autograd.grad(out, (x1, x2), m.ones_like(out) + out.detach())
        return [out.grad_fn.name().replace("torch::autograd::", ""), out.detach().numpy(), *(g.numpy() for g in grads)]

    (name, *got), (want_name, *want) = run(glassgrad), run(torch)
    assert name == want_name
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


# -- matrix_functions.py and linalg.multi_dot ---------------------------------------------------------
@pytest.mark.parametrize("a", [
    [[1000.0, 0.0], [0.0, 1.0]], [[NAN, 0.0], [0.0, 1.0]], [[INF, 0.0], [0.0, 1.0]], [[1e308, 1e308], [1e308, 1e308]],
    [[[0.5, 1.0], [-2.0, 0.1]], [[NAN, 0.0], [0.0, 0.0]]],
])
def test_matrix_exp_overflow_and_nan_match_torch(a: list[Any]) -> None:
    got = glassgrad.linalg.matrix_exp(glassgrad.tensor(a, dtype=glassgrad.float64)).numpy()
    np.testing.assert_allclose(got, torch.linalg.matrix_exp(torch.tensor(a, dtype=torch.float64)).numpy(), rtol=1e-14, equal_nan=True)


@BOTH
def test_solve_triangular_of_a_singular_matrix_gives_infinities(m: Any) -> None:
    x = m.linalg.solve_triangular(m.tensor([[1.0, 2.0], [0.0, 0.0]]), m.ones(2, 1), upper=True)
    assert x.tolist() == [[-INF], [INF]]


@BOTH
def test_linalg_functions_save_what_pytorch_saves(m: Any) -> None:
    A, B = m.eye(2, requires_grad=True), m.ones(2, 1, requires_grad=True)
    x = m.linalg.solve_triangular(A, B, upper=False)
    assert all(hasattr(x.grad_fn, f"_saved_{name}") for name in ("self", "result", "upper", "left", "unitriangular"))
    assert hasattr(m.linalg.matrix_exp(A).grad_fn, "_saved_self") and m.matrix_exp(A).grad_fn.name().endswith("LinalgMatrixExpBackward0")
    chain = m.linalg.multi_dot([m.ones(2, requires_grad=True), A, A])
    assert chain.grad_fn.name().endswith("ViewBackward0") and chain.grad_fn.next_functions[0][0].name().endswith("MmBackward0")


@pytest.mark.parametrize("call", [
    lambda m: m.cummax([1.0], 0), lambda m: m.logcumsumexp([1.0], 0), lambda m: m.diff([1.0]),
    lambda m: m.bincount([1]), lambda m: m.bincount(m.tensor([1]), [1.0]),
    lambda m: m.searchsorted(m.ones(3), m.ones(1), sorter=[0, 1, 2]), lambda m: m.searchsorted([1.0], m.ones(1)),
    lambda m: m.cdist([[1.0]], m.ones(1, 1)), lambda m: m.linalg.matrix_exp([[1.0]]),
    lambda m: m.linalg.solve_triangular(m.eye(2), [[1.0], [1.0]], upper=True), lambda m: m.linalg.multi_dot([m.ones(2), [1.0]]),
])
def test_lists_for_tensors_raise_type_error_like_torch(call: Any) -> None:
    assert raised(lambda: call(glassgrad))[0] == raised(lambda: call(torch))[0] == "TypeError"
