"""lobpcg against PyTorch 2.13 beyond the OpInfos: the generalized problem (A x = lambda B x), whose backward
PyTorch refuses, larger matrices and more eigenpairs, and the arguments that only steer PyTorch's iteration."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from ..nn.oracle import assert_raises_like_torch

pytestmark = pytest.mark.torch_oracle

RNG = np.random.default_rng(0)
_M = RNG.standard_normal((12, 12))
A = _M @ _M.T + np.diag(np.arange(12.0) * 3)
_N = RNG.standard_normal((12, 12))
B = np.eye(12) + 0.1 * _N @ _N.T
WEIGHTS = RNG.standard_normal((12, 12))


def _solve(m: Any, largest: bool | None, with_b: bool, grad: bool, **kw: Any) -> tuple[np.ndarray, ...]:
    m.manual_seed(0)
    a = m.tensor(A, requires_grad=grad)
    values, vectors = m.lobpcg(a, k=3, B=m.tensor(B) if with_b else None, largest=largest, **kw)
    projector = vectors @ vectors.mT
    out = (values.detach().numpy(), projector.detach().numpy())
    if not grad:
        return out
    (gradient,) = m.autograd.grad((values * m.tensor([1.0, -2.0, 0.5], dtype=m.float64)).sum()
                                  + (projector * m.tensor(WEIGHTS)).sum(), a)
    return (*out, gradient.numpy())


@pytest.mark.parametrize("largest", [None, True, False])
@pytest.mark.parametrize("with_b", [False, True])
def test_eigenpairs_match_torch(largest: bool | None, with_b: bool) -> None:
    for mine, ref in zip(_solve(glassgrad, largest, with_b, grad=False), _solve(torch, largest, with_b, grad=False), strict=True):
        np.testing.assert_allclose(mine, ref, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("largest", [True, False])
def test_gradient_matches_torch(largest: bool) -> None:
    for mine, ref in zip(_solve(glassgrad, largest, False, grad=True), _solve(torch, largest, False, grad=True), strict=True):
        np.testing.assert_allclose(mine, ref, rtol=1e-5, atol=1e-6)


def test_arguments_that_steer_the_iteration_do_not_change_the_answer_like_torch() -> None:
    start = RNG.standard_normal((12, 3))
    options = {"niter": 500, "tol": 1e-10, "method": "basic", "ortho_iparams": {"ortho_i_max": 4}}
    mine = _solve(glassgrad, True, False, grad=False, X=glassgrad.tensor(start), **options)
    ref = _solve(torch, True, False, grad=False, X=torch.tensor(start), **options)
    np.testing.assert_allclose(mine[0], ref[0], rtol=1e-8)


def test_backward_of_the_generalized_problem_is_refused_like_torch() -> None:
    def backward(m: Any) -> None:
        values, _ = m.lobpcg(m.tensor(A, requires_grad=True), k=2, B=m.tensor(B))
        values.sum().backward()

    assert_raises_like_torch(backward)


def test_batches_match_torch() -> None:
    stack = np.stack([A, 2 * A + np.eye(12)])
    mine = glassgrad.lobpcg(glassgrad.tensor(stack), k=2)[0].numpy()
    np.testing.assert_allclose(mine, torch.lobpcg(torch.tensor(stack), k=2)[0].numpy(), rtol=1e-8)
