"""ASGD, Rprop and Adafactor follow PyTorch's parameter trajectory and state (float64 parameters, default dtype float32)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from ..nn.oracle import assert_raises_like_torch
from .test_optimizers import trajectory

pytestmark = pytest.mark.torch_oracle

OPTIMIZERS = {
    "asgd": lambda o, p: o.ASGD(p, lr=0.05),
    "asgd_averaging_wd_maximize": lambda o, p: o.ASGD(p, lr=0.02, lambd=0.1, alpha=0.5, t0=2, weight_decay=0.1, maximize=True),
    "rprop": lambda o, p: o.Rprop(p, lr=0.05),
    "rprop_bounds_maximize": lambda o, p: o.Rprop(p, lr=0.3, etas=(0.3, 1.5), step_sizes=(0.01, 0.4), maximize=True),
    "adafactor": lambda o, p: o.Adafactor(p),
    "adafactor_wd_eps_d": lambda o, p: o.Adafactor(p, lr=0.05, beta2_decay=-0.5, eps=(1e-4, 1e-2), d=2.0, weight_decay=0.1),
}


def _compare_state(sd: dict[str, Any], ref_sd: dict[str, Any]) -> None:
    assert sd["param_groups"] == ref_sd["param_groups"]
    assert {k: sorted(v) for k, v in sd["state"].items()} == {k: sorted(v) for k, v in ref_sd["state"].items()}
    for index, state in ref_sd["state"].items():
        for key, value in state.items():
            mine = sd["state"][index][key]
            assert str(mine.dtype).rpartition(".")[2] == str(value.dtype).rpartition(".")[2], key
            np.testing.assert_allclose(mine.numpy(), value.numpy(), rtol=1e-6, err_msg=key)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_trajectory_and_state_match_torch(name: str) -> None:
    ref, _, ref_opt = trajectory(torch, OPTIMIZERS[name], 8)
    mine, _, opt = trajectory(glassgrad, OPTIMIZERS[name], 8)
    np.testing.assert_allclose(mine, ref, rtol=1e-9, atol=1e-12)
    _compare_state(opt.state_dict(), ref_opt.state_dict())


def _matrix_run(lib: Any, make: Any, steps: int) -> tuple[np.ndarray, Any]:
    """A 3x4 weight and a 2x2x3 one: Adafactor factors the second moment of each (row and column averages)."""
    rng = np.random.default_rng(2)
    w = lib.nn.Parameter(lib.tensor(rng.standard_normal((3, 4)), dtype=lib.float64))
    v = lib.nn.Parameter(lib.tensor(rng.standard_normal((2, 2, 3)), dtype=lib.float64))
    x = lib.tensor(rng.standard_normal((5, 3)), dtype=lib.float64)
    opt = make(lib.optim, [w, v])
    for _ in range(steps):
        opt.zero_grad()
        ((x @ w).tanh().pow(2).sum() + (v * v.flip(-1)).sum() + (v**4).sum()).backward()
        opt.step()
    return np.concatenate([w.detach().numpy().ravel(), v.detach().numpy().ravel()]), opt


@pytest.mark.parametrize("name", ["adafactor", "adafactor_wd_eps_d", "rprop", "asgd"])
def test_matrix_parameters_follow_torch(name: str) -> None:
    ref, ref_opt = _matrix_run(torch, OPTIMIZERS[name], 6)
    mine, opt = _matrix_run(glassgrad, OPTIMIZERS[name], 6)
    np.testing.assert_allclose(mine, ref, rtol=1e-9, atol=1e-12)
    _compare_state(opt.state_dict(), ref_opt.state_dict())


def test_state_dict_round_trip_continues_the_trajectory() -> None:
    straight, _ = _matrix_run(glassgrad, OPTIMIZERS["adafactor"], 6)
    rng = np.random.default_rng(2)
    w = glassgrad.nn.Parameter(glassgrad.tensor(rng.standard_normal((3, 4)), dtype=glassgrad.float64))
    v = glassgrad.nn.Parameter(glassgrad.tensor(rng.standard_normal((2, 2, 3)), dtype=glassgrad.float64))
    x = glassgrad.tensor(rng.standard_normal((5, 3)), dtype=glassgrad.float64)

    def run(opt: Any, steps: int) -> None:
        for _ in range(steps):
            opt.zero_grad()
            ((x @ w).tanh().pow(2).sum() + (v * v.flip(-1)).sum() + (v**4).sum()).backward()
            opt.step()

    first = glassgrad.optim.Adafactor([w, v])
    run(first, 3)
    resumed = glassgrad.optim.Adafactor([w, v])
    resumed.load_state_dict(first.state_dict())
    run(resumed, 3)
    np.testing.assert_allclose(np.concatenate([w.detach().numpy().ravel(), v.detach().numpy().ravel()]), straight, rtol=1e-12)


@pytest.mark.parametrize("make", [
    lambda o, p: o.ASGD(p, lr=-1.0),
    lambda o, p: o.ASGD(p, weight_decay=-1.0),
    lambda o, p: o.Rprop(p, etas=(1.5, 1.2)),
    lambda o, p: o.Rprop(p, lr=-0.1),
    lambda o, p: o.Adafactor(p, beta2_decay=0.5),
    lambda o, p: o.Adafactor(p, eps=(-1.0, 1e-3)),
    lambda o, p: o.Adafactor(p, d=0.5),
    lambda o, p: o.Adafactor(p, weight_decay=-0.1),
])
def test_constructor_errors_like_torch(make: Any) -> None:
    assert_raises_like_torch(lambda lib: make(lib.optim, [lib.nn.Parameter(lib.zeros(2))]))
