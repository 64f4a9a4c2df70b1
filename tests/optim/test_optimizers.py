"""Every optimizer and scheduler follows PyTorch's parameter and learning-rate trajectory (float64)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad

A = np.random.default_rng(1).standard_normal((4, 3))
TARGET = np.array([1.0, -2.0, 0.5, 3.0])
START_W, START_B = np.array([0.3, -0.7, 1.2]), np.array([0.5, -0.25])


def make_params(lib):
    return [
        lib.nn.Parameter(lib.tensor(START_W.copy(), dtype=lib.float64)),
        lib.nn.Parameter(lib.tensor(START_B.copy(), dtype=lib.float64)),
    ]


def loss_fn(lib, w, b):
    residual = lib.tensor(A, dtype=lib.float64).matmul(w) - lib.tensor(TARGET, dtype=lib.float64)
    return (residual * residual).sum() + 0.1 * (w**4).sum() + (b * b * b).sum() + (b * w[:2]).sum()


def bounded_loss_fn(lib, w, b):
    """For LBFGS, which runs far along its directions: bounded below, so the run converges instead of diverging."""
    residual = lib.tensor(A, dtype=lib.float64).matmul(w) - lib.tensor(TARGET, dtype=lib.float64)
    return (residual * residual).sum() + 0.1 * (w**4).sum() + ((b - w[:2]) ** 2).sum() + (b**4).sum()


def trajectory(lib, make_optimizer, steps=5, make_scheduler=None, closure_step=False, metrics=None, loss=loss_fn):
    params = make_params(lib)
    opt = make_optimizer(lib.optim, params)
    sched = make_scheduler(lib.optim.lr_scheduler, opt) if make_scheduler else None
    points, lrs = [], []
    for i in range(steps):
        def closure():
            opt.zero_grad()
            value = loss(lib, *params)
            value.backward()
            return value

        if closure_step:
            opt.step(closure)
        else:
            closure()
            opt.step()
        if sched is not None:
            sched.step(metrics[i]) if metrics else sched.step()
            lrs.append(sched.get_last_lr())
        points.append(np.concatenate([p.detach().numpy().copy() for p in params]))
    return np.array(points), lrs, opt


OPTIMIZERS = {
    "sgd": lambda o, p: o.SGD(p, lr=0.05),
    "sgd_momentum_dampening_wd": lambda o, p: o.SGD(p, lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01),
    "sgd_nesterov_maximize": lambda o, p: o.SGD(p, lr=0.01, momentum=0.8, nesterov=True, maximize=True),
    "sgd_groups": lambda o, p: o.SGD([{"params": [p[0]]}, {"params": [p[1]], "lr": 0.01}], lr=0.05, momentum=0.5),
    "adam": lambda o, p: o.Adam(p, lr=0.1),
    "adam_amsgrad_wd_maximize": lambda o, p: o.Adam(p, lr=0.05, amsgrad=True, weight_decay=0.1, maximize=True),
    "adamw": lambda o, p: o.AdamW(p, lr=0.1, weight_decay=0.1, amsgrad=True),
    "rmsprop": lambda o, p: o.RMSprop(p, lr=0.01),
    "rmsprop_centered_momentum_wd": lambda o, p: o.RMSprop(p, lr=0.01, alpha=0.9, centered=True, momentum=0.5, weight_decay=0.1),
    "adagrad": lambda o, p: o.Adagrad(p, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1, weight_decay=0.01),
    "adamax": lambda o, p: o.Adamax(p, lr=0.1, weight_decay=0.01),
    "adadelta": lambda o, p: o.Adadelta(p),
    "adadelta_rho_wd_maximize": lambda o, p: o.Adadelta(p, lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1, maximize=True),
    "nadam": lambda o, p: o.NAdam(p, lr=0.1),
    "nadam_decoupled": lambda o, p: o.NAdam(p, lr=0.1, weight_decay=0.1, decoupled_weight_decay=True),
    "radam": lambda o, p: o.RAdam(p, lr=0.1, weight_decay=0.01),
    "radam_decoupled": lambda o, p: o.RAdam(p, lr=0.1, weight_decay=0.1, decoupled_weight_decay=True),
}


@pytest.mark.torch_oracle
@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_trajectory_matches_torch(name: str) -> None:
    steps = 8 if name.startswith("radam") else 5  # RAdam's rectified branch starts at step 6
    ref, _, ref_opt = trajectory(torch, OPTIMIZERS[name], steps)
    mine, _, opt = trajectory(glassgrad, OPTIMIZERS[name], steps)
    np.testing.assert_allclose(mine, ref, rtol=1e-9, atol=1e-12)
    ref_sd, sd = ref_opt.state_dict(), opt.state_dict()
    assert sd["param_groups"] == ref_sd["param_groups"]
    assert {k: sorted(v) for k, v in sd["state"].items()} == {k: sorted(v) for k, v in ref_sd["state"].items()}
    for index, state in ref_sd["state"].items():
        for key, value in state.items():
            np.testing.assert_allclose(sd["state"][index][key].numpy(), value.numpy(), rtol=1e-6)


@pytest.mark.torch_oracle
@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_trajectory_matches_torch(line_search_fn: str | None) -> None:
    def make(o, p):
        return o.LBFGS(p, lr=0.5, max_iter=4, history_size=3, line_search_fn=line_search_fn)

    ref, _, _ = trajectory(torch, make, closure_step=True, loss=bounded_loss_fn)
    mine, _, _ = trajectory(glassgrad, make, closure_step=True, loss=bounded_loss_fn)
    np.testing.assert_allclose(mine, ref, rtol=1e-8, atol=1e-10)


SCHEDULERS = {
    "step": (lambda s, o: s.StepLR(o, step_size=2, gamma=0.5), None),
    "multistep": (lambda s, o: s.MultiStepLR(o, milestones=[1, 3, 3], gamma=0.5), None),
    "exponential": (lambda s, o: s.ExponentialLR(o, gamma=0.8), None),
    "cosine": (lambda s, o: s.CosineAnnealingLR(o, T_max=3, eta_min=0.001), None),
    "lambda": (lambda s, o: s.LambdaLR(o, lambda epoch: 1 / (1 + epoch)), None),
    "linear": (lambda s, o: s.LinearLR(o, start_factor=0.25, total_iters=4), None),
    "onecycle": (lambda s, o: s.OneCycleLR(o, max_lr=0.1, total_steps=10), None),
    "onecycle_linear_three_phase": (
        lambda s, o: s.OneCycleLR(o, max_lr=0.1, total_steps=10, anneal_strategy="linear", three_phase=True),
        None,
    ),
    "plateau": (lambda s, o: s.ReduceLROnPlateau(o, patience=1, factor=0.5), [5.0, 4.0, 4.5, 4.4, 4.3, 3.0, 3.5, 3.6]),
    "sequential": (
        lambda s, o: s.SequentialLR(o, [s.LinearLR(o, start_factor=0.5, total_iters=2), s.ExponentialLR(o, 0.9)], [3]),
        None,
    ),
}


@pytest.mark.torch_oracle
@pytest.mark.parametrize("name", SCHEDULERS)
def test_scheduler_lr_and_parameter_trajectory_match_torch(name: str) -> None:
    make_scheduler, metrics = SCHEDULERS[name]

    def make_optimizer(o, p):
        return o.SGD(p, lr=0.05, momentum=0.9)

    ref, ref_lrs, ref_opt = trajectory(torch, make_optimizer, 8, make_scheduler, metrics=metrics)
    mine, lrs, opt = trajectory(glassgrad, make_optimizer, 8, make_scheduler, metrics=metrics)
    np.testing.assert_allclose(np.array(lrs), np.array(ref_lrs), rtol=1e-12)
    np.testing.assert_allclose(mine, ref, rtol=1e-9, atol=1e-12)
    assert opt.param_groups[0]["momentum"] == pytest.approx(ref_opt.param_groups[0]["momentum"])


def test_scheduler_state_dict_round_trip_and_step_order_warning() -> None:
    params = make_params(glassgrad)
    opt = glassgrad.optim.SGD(params, lr=0.1)
    sched = glassgrad.optim.lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        sched.step()
    state = sched.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == 1
    fresh = glassgrad.optim.lr_scheduler.StepLR(glassgrad.optim.SGD(make_params(glassgrad), lr=0.1), step_size=2)
    fresh.load_state_dict(state)
    assert fresh.last_epoch == 1 and fresh.get_last_lr() == sched.get_last_lr()


def test_optimizer_state_dict_round_trip_continues_the_same_trajectory() -> None:
    def make(o, p):
        return o.Adam(p, lr=0.1, amsgrad=True)

    straight, _, _ = trajectory(glassgrad, make, 5)
    params = make_params(glassgrad)
    opt = make(glassgrad.optim, params)
    for _ in range(3):
        opt.zero_grad()
        loss_fn(glassgrad, *params).backward()
        opt.step()
    saved = opt.state_dict()
    assert saved["param_groups"][0]["params"] == [0, 1] and set(saved["state"]) == {0, 1}
    resumed = make(glassgrad.optim, params)
    resumed.load_state_dict(saved)
    for _ in range(2):
        resumed.zero_grad()
        loss_fn(glassgrad, *params).backward()
        resumed.step()
    np.testing.assert_allclose(np.concatenate([p.detach().numpy() for p in params]), straight[-1], rtol=1e-12)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        resumed.load_state_dict({"state": {}, "param_groups": []})


@pytest.mark.torch_oracle
def test_step_between_backwards_raises_the_version_counter_error_like_torch() -> None:
    def run(lib):
        w = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        opt = lib.optim.SGD([w], lr=0.1)
        loss = (w * w).sum()
        loss.backward(retain_graph=True)
        before = w._version
        opt.step()
        bumped = w._version - before
        with pytest.raises(RuntimeError) as err:
            loss.backward()
        return bumped, str(err.value).splitlines()[0][:120]

    assert run(glassgrad) == run(torch)


def test_zero_grad_and_param_group_errors() -> None:
    params = make_params(glassgrad)
    opt = glassgrad.optim.SGD(params, lr=0.1)
    loss_fn(glassgrad, *params).backward()
    opt.zero_grad(set_to_none=False)
    assert params[0].grad is not None and float(params[0].grad.abs().sum()) == 0
    opt.zero_grad()
    assert params[0].grad is None
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [params[0]]})
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        glassgrad.optim.Adam([])
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        glassgrad.optim.Adam(params, lr=-1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        glassgrad.optim.SGD([params[0] * 2], lr=0.1)


@pytest.mark.torch_oracle
@pytest.mark.parametrize(("name", "kwargs"), [
    *[("Adadelta", k) for k in ({"rho": 1.5}, {"rho": -0.1}, {"eps": -1.0}, {"lr": -1.0}, {"weight_decay": -1.0})],
    # an int beta is refused by Adam and AdamW only; NAdam takes it
    *[(n, {"betas": b}) for n in ("Adam", "AdamW") for b in ((0, 0.99), (1.0, 0.9), (0.9, 1.0), (-0.1, 0.9))],
])
def test_constructors_reject_what_torch_rejects(name: str, kwargs: dict) -> None:
    with pytest.raises(ValueError) as expected:
        getattr(torch.optim, name)(make_params(torch), **kwargs)
    with pytest.raises(ValueError) as actual:
        getattr(glassgrad.optim, name)(make_params(glassgrad), **kwargs)
    assert str(actual.value) == str(expected.value)


@pytest.mark.torch_oracle
def test_nadam_takes_an_int_beta_as_torch_does() -> None:
    torch.optim.NAdam(make_params(torch), betas=(0, 0.99))
    glassgrad.optim.NAdam(make_params(glassgrad), betas=(0, 0.99))


@pytest.mark.torch_oracle
@pytest.mark.parametrize("name", ["sgd_momentum_dampening_wd", "adam_amsgrad_wd_maximize", "adamw", "rmsprop", "adagrad"])
def test_nan_and_inf_gradients_step_silently_as_torch(name: str) -> None:
    """PyTorch computes NaN and inf into the parameters without a warning; so does every route here (the suite turns
    warnings into errors)."""
    def stepped(lib):
        params = make_params(lib)
        opt = OPTIMIZERS[name](lib.optim, params)
        for _ in range(2):
            params[0].grad = lib.tensor([np.nan, np.inf, 1.0], dtype=lib.float64)
            params[1].grad = lib.tensor([-np.inf, 0.5], dtype=lib.float64)
            opt.step()
        return np.concatenate([p.detach().numpy() for p in params])

    np.testing.assert_allclose(stepped(glassgrad), stepped(torch), rtol=1e-12)


@pytest.mark.torch_oracle
@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_adam_steps_a_zero_dim_parameter_like_torch(name: str) -> None:
    """A scalar parameter (a learned log-noise) takes the unfused update path, whose temporaries are 0-d arrays."""
    steps = []
    for lib in (torch, glassgrad):
        p = lib.nn.Parameter(lib.tensor(-2.0, dtype=lib.float64))
        opt = getattr(lib.optim, name)([p], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            (p.exp() * 3.0).backward()
            opt.step()
        steps.append(float(p.detach()))
    assert steps[1] == pytest.approx(steps[0], rel=1e-12)
