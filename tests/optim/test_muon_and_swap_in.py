"""optim.Muon and optim.swap_in_optimizer_params_and_state against PyTorch 2.13.

Muon's Newton-Schulz iteration runs in bfloat16 in PyTorch; glassgrad rounds to bfloat16 at the same
points, so trajectories are compared at float32 resolution over several steps.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from ..nn.oracle import assert_raises_like_torch
from ..outcome import assert_same_outcome, statements

pytestmark = pytest.mark.torch_oracle

MUONS = {
    "defaults": lambda o, p: o.Muon(p),
    "lr_plain_momentum": lambda o, p: o.Muon(p, lr=0.02, nesterov=False),
    "match_rms_adamw": lambda o, p: o.Muon(p, lr=0.01, adjust_lr_fn="match_rms_adamw", weight_decay=0.0),
    "few_steps_momentum": lambda o, p: o.Muon(p, lr=0.05, momentum=0.5, ns_steps=2, ns_coefficients=(2.0, -1.5, 0.5)),
}


def _run(lib: Any, make: Any, dtype: str, steps: int = 6) -> tuple[list[np.ndarray], Any]:
    """A tall 5x3 and a wide 2x4 weight (Newton-Schulz transposes the tall one) under a small nonlinear loss."""
    rng = np.random.default_rng(0)
    kind = getattr(lib, dtype)
    w = lib.nn.Parameter(lib.tensor(rng.standard_normal((5, 3)), dtype=kind))
    v = lib.nn.Parameter(lib.tensor(rng.standard_normal((2, 4)), dtype=kind))
    x = lib.tensor(rng.standard_normal((4, 3)), dtype=kind)
    opt = make(lib.optim, [w, v])
    seen = []
    for _ in range(steps):
        opt.zero_grad()
        ((x @ w.T).tanh()[:, :4] @ v.T).pow(2).sum().backward()
        opt.step()
        seen.append(np.concatenate([w.detach().numpy().ravel(), v.detach().numpy().ravel()]))
    return seen, opt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", MUONS)
def test_muon_trajectory_and_state_match_torch(name: str, dtype: str) -> None:
    ref, ref_opt = _run(torch, MUONS[name], dtype)
    mine, opt = _run(glassgrad, MUONS[name], dtype)
    rtol = 1e-5 if dtype == "float32" else 1e-9  # the gradients' own float32 rounding differs by an ulp
    np.testing.assert_allclose(mine, ref, rtol=rtol, atol=1e-7)
    sd, ref_sd = opt.state_dict(), ref_opt.state_dict()
    assert sd["param_groups"] == ref_sd["param_groups"]
    assert sd["state"].keys() == ref_sd["state"].keys()
    for index, state in ref_sd["state"].items():
        assert list(sd["state"][index]) == list(state) == ["momentum_buffer"]
        np.testing.assert_allclose(sd["state"][index]["momentum_buffer"].numpy(), state["momentum_buffer"].numpy(),
                                   rtol=rtol, atol=1e-7)


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.optim.Muon([m.nn.Parameter(m.ones(3))]),
        lambda m: m.optim.Muon([m.nn.Parameter(m.ones(2, 2))], lr=-1.0),
        lambda m: m.optim.Muon([m.nn.Parameter(m.ones(2, 2))], momentum=-0.5),
        lambda m: m.optim.Muon([m.nn.Parameter(m.ones(2, 2))], weight_decay=-0.1),
        lambda m: m.optim.Muon([m.nn.Parameter(m.ones(2, 2))], adjust_lr_fn="bogus"),
        lambda m: m.optim.Muon([m.nn.Parameter(m.ones(2, 2))], lr=m.ones(2)),
    ],
)
def test_muon_rejects_what_torch_rejects(make: Any) -> None:
    assert_raises_like_torch(make)


@pytest.mark.parametrize("options", ["ns_steps=100", "ns_coefficients=(1.0, 2.0)"])
def test_muon_step_rejects_what_torch_rejects(options: str) -> None:
    def step(m: Any) -> None:
        p = m.nn.Parameter(m.ones(2, 2))
        opt = eval(f"m.optim.Muon([p], {options})", {"m": m, "p": p})
        p.sum().backward()
        opt.step()

    assert_raises_like_torch(step)


SWAP = """
torch = m
p = m.nn.Parameter(m.tensor([[1.0, 2.0], [3.0, 4.0]]))
q = m.nn.Parameter(m.tensor([0.5, -0.5]))
opt = m.optim.Adam([{"params": [p]}, {"params": [q], "lr": 0.1}], lr=0.01)
(p.sum() + (q * q).sum()).backward()
opt.step()
live_groups = [dict(g) for g in opt.param_groups]
swap_p, swap_q = p.detach().clone() * 2, q.detach().clone() + 1
saved = opt.state_dict()
swap_state = {"state": {k: {n: t.clone() for n, t in v.items()} for k, v in saved["state"].items()},
              "param_groups": [dict(g, lr=0.5) for g in saved["param_groups"]]}
swap_p.grad, swap_q.grad = m.ones(2, 2), m.ones(2)
{edit}
with m.optim.swap_in_optimizer_params_and_state(opt, {"p": swap_p, "q": swap_q}, swap_state):
    inside = [g["lr"] for g in opt.param_groups], [g["params"][0] is s for g, s in zip(opt.param_groups, (swap_p, swap_q))]
    opt.step()
r = (inside, swap_p, swap_q, swap_state["state"][0]["exp_avg"], swap_state["state"][1]["step"], p, q,
     [g["params"][0] is t for g, t in zip(opt.param_groups, (p, q))], [g["lr"] for g in opt.param_groups],
     opt.state[p]["step"], sorted(live_groups[0]) == sorted(opt.param_groups[0]))
"""
SWAP_EDITS = [
    "",
    "swap_state['param_groups'] = swap_state['param_groups'][:1]",
    "swap_state['param_groups'][0]['params'] = [m.ones(1)]",
    "swap_state['param_groups'][1]['params'] = [1, 2]",
    "swap_state['param_groups'][0]['extra'] = 1",
    "del swap_state['param_groups'][0]['eps']",
    "swap_state['state'][5] = {}",
    "swap_state['state'][0] = 3",
    "swap_state['state'] = [1]",
    "swap_state = [1]",
    "swap_state['param_groups'] = {}",
    "swap_state['param_groups'][0] = 1",
    "swap_q = None\nswap_p.grad = m.ones(2, 2)\nswap_state['param_groups'][1]['params'] = [1]",
    "opt.state.clear()",
]


@pytest.mark.parametrize("edit", SWAP_EDITS)
def test_swap_in_optimizer_params_and_state_matches_torch(edit: str) -> None:
    source = SWAP.replace("{edit}", edit)
    if "swap_q = None" in edit:  # one parameter too few: only p is passed
        source = source.replace('{"p": swap_p, "q": swap_q}', '{"p": swap_p}')
    assert_same_outcome(statements(source).values[0])


def test_swap_in_restores_the_live_optimizer_when_the_block_raises() -> None:
    def run(m: Any) -> tuple[Any, ...]:
        p = m.nn.Parameter(m.ones(2))
        opt = m.optim.SGD([p], lr=0.1, momentum=0.9)
        p.sum().backward()
        opt.step()
        state = opt.state_dict()
        with pytest.raises(KeyError), m.optim.swap_in_optimizer_params_and_state(opt, {"p": m.zeros(2)}, state):
            raise KeyError("inside")
        return opt.param_groups[0]["params"][0] is p, list(opt.state) == [p]

    assert run(glassgrad) == run(torch)
