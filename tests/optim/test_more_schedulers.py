"""ConstantLR, MultiplicativeLR, PolynomialLR, CyclicLR, CosineAnnealingWarmRestarts and ChainedScheduler follow
PyTorch's lr (and momentum) trajectory, and their state_dicts resume a run where it stopped."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from ..nn.oracle import assert_raises_like_torch
from .test_optimizers import loss_fn, make_params, trajectory

SCHEDULERS = {
    "constant": lambda s, o: s.ConstantLR(o, factor=0.25, total_iters=3),
    "multiplicative": lambda s, o: s.MultiplicativeLR(o, lambda epoch: 0.9 if epoch % 2 else 0.5),
    "polynomial": lambda s, o: s.PolynomialLR(o, total_iters=6, power=2.0),
    "cyclic": lambda s, o: s.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=2),
    "cyclic_triangular2": lambda s, o: s.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="triangular2", base_momentum=0.7),
    "cyclic_exp_range": lambda s, o: s.CyclicLR(o, 0.01, [0.1], step_size_up=2, mode="exp_range", gamma=0.9),
    "cyclic_scale_fn": lambda s, o: s.CyclicLR(o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 0.5**x, scale_mode="iterations",
                                               cycle_momentum=False),
    "warm_restarts": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=3, eta_min=0.001),
    "warm_restarts_mult": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2),
    "chained": lambda s, o: s.ChainedScheduler([s.ConstantLR(o, factor=0.5, total_iters=2), s.ExponentialLR(o, gamma=0.9)]),
}


def _sgd(o: Any, p: Any) -> Any:
    return o.SGD(p, lr=0.05, momentum=0.9)


@pytest.mark.torch_oracle
@pytest.mark.parametrize("name", SCHEDULERS)
def test_scheduler_trajectory_matches_torch(name: str) -> None:
    ref, ref_lrs, ref_opt = trajectory(torch, _sgd, 10, SCHEDULERS[name])
    mine, lrs, opt = trajectory(glassgrad, _sgd, 10, SCHEDULERS[name])
    np.testing.assert_allclose(np.array(lrs), np.array(ref_lrs), rtol=1e-12)
    np.testing.assert_allclose(mine, ref, rtol=1e-9, atol=1e-12)
    assert opt.param_groups[0]["momentum"] == pytest.approx(ref_opt.param_groups[0]["momentum"], rel=1e-12)


@pytest.mark.torch_oracle
def test_cyclic_lr_cycles_adams_beta1() -> None:
    def adam(o: Any, p: Any) -> Any:
        return o.Adam(p, lr=0.05)

    def make(s: Any, o: Any) -> Any:
        return s.CyclicLR(o, 0.01, 0.1, step_size_up=2, base_momentum=0.8, max_momentum=0.95)

    ref, ref_lrs, ref_opt = trajectory(torch, adam, 6, make)
    mine, lrs, opt = trajectory(glassgrad, adam, 6, make)
    np.testing.assert_allclose(np.array(lrs), np.array(ref_lrs), rtol=1e-12)
    np.testing.assert_allclose(mine, ref, rtol=1e-9, atol=1e-12)
    assert opt.param_groups[0]["betas"] == pytest.approx(ref_opt.param_groups[0]["betas"])


@pytest.mark.torch_oracle
@pytest.mark.parametrize("t_mult", [1, 3])
def test_warm_restarts_with_fractional_epochs_matches_torch(t_mult: int) -> None:
    def lrs(lib: Any) -> list[float]:
        opt = lib.optim.SGD(make_params(lib), lr=0.1)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=t_mult, eta_min=0.01)
        out = []
        for epoch in (0.5, 1.25, 2.0, 3.7, 7.2, 9.9, 1.0):
            sched.step(epoch)
            out.append((sched.get_last_lr()[0], sched.T_cur, sched.T_i, sched.last_epoch))
        return out

    np.testing.assert_allclose(np.array(lrs(glassgrad)), np.array(lrs(torch)), rtol=1e-12)


@pytest.mark.parametrize("name", SCHEDULERS)
def test_state_dict_resumes_the_lr_trajectory(name: str) -> None:
    straight = trajectory(glassgrad, _sgd, 7, SCHEDULERS[name])[1]
    params = make_params(glassgrad)
    lrs = []

    def run(opt: Any, scheduler: Any, steps: int) -> None:
        for _ in range(steps):
            opt.zero_grad()
            loss_fn(glassgrad, *params).backward()
            opt.step()
            scheduler.step()
            lrs.append(scheduler.get_last_lr())

    opt = _sgd(glassgrad.optim, params)
    sched = SCHEDULERS[name](glassgrad.optim.lr_scheduler, opt)
    run(opt, sched, 4)
    # A checkpoint as training scripts write one; a state_dict pickles (it holds no functions).
    saved = pickle.loads(pickle.dumps({"optimizer": opt.state_dict(), "scheduler": sched.state_dict()}))
    opt = _sgd(glassgrad.optim, params)
    resumed = SCHEDULERS[name](glassgrad.optim.lr_scheduler, opt)
    opt.load_state_dict(saved["optimizer"])
    resumed.load_state_dict(saved["scheduler"])
    run(opt, resumed, 3)
    np.testing.assert_allclose(np.array(lrs), np.array(straight), rtol=1e-12)


@pytest.mark.torch_oracle
@pytest.mark.parametrize("make", [
    lambda s, o: s.ConstantLR(o, factor=1.5),
    lambda s, o: s.MultiplicativeLR(o, 0.5),
    lambda s, o: s.MultiplicativeLR(o, [lambda e: 1.0, lambda e: 1.0]),
    lambda s, o: s.CyclicLR(o, 0.01, 0.1, mode="sawtooth"),
    lambda s, o: s.CyclicLR(o, [0.01, 0.02], 0.1),
    lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=0),
    lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    lambda s, o: s.ChainedScheduler([]),
    lambda s, o: s.ChainedScheduler([s.ReduceLROnPlateau(o)]),
])
def test_scheduler_errors_like_torch(make: Any) -> None:
    assert_raises_like_torch(lambda lib: make(lib.optim.lr_scheduler, lib.optim.SGD(make_params(lib), lr=0.1, momentum=0.5)))


@pytest.mark.torch_oracle
def test_cyclic_lr_needs_momentum_like_torch() -> None:
    assert_raises_like_torch(lambda lib: lib.optim.lr_scheduler.CyclicLR(lib.optim.Adagrad(make_params(lib)), 0.01, 0.1))
