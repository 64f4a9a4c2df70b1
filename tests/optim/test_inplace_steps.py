"""SGD's and Adam's steps update each parameter's own buffer in place, as PyTorch's add_/addcdiv_ do: the same
storage, the version bumped as PyTorch bumps it, and no more temporary arrays than the update needs (one)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad
from tests.allocations import SLACK, peak_bytes

CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "maximize": True}),
    ("Adam", {}),
    ("Adam", {"amsgrad": True, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.01}),
]
IDS = [f"{name}-{'-'.join(kw)}" for name, kw in CONFIGS]


def _run(lib: Any, name: str, kwargs: dict[str, Any], steps: int = 3) -> tuple[Any, list[int]]:
    """A float32 parameter after `steps` steps, and its version change per step."""
    p = lib.tensor(np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4), requires_grad=True)
    opt = getattr(lib.optim, name)([p], **kwargs)
    bumps = []
    for _ in range(steps):
        opt.zero_grad()
        (p * p * p).sum().backward()
        before = p._version
        opt.step()
        bumps.append(p._version - before)
    return p, bumps


@pytest.mark.torch_oracle
@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=IDS)
def test_steps_match_pytorch_in_place(name: str, kwargs: dict[str, Any]) -> None:
    mine, my_bumps = _run(glassgrad, name, kwargs)
    ref, ref_bumps = _run(torch, name, kwargs)
    np.testing.assert_allclose(mine.detach().numpy(), ref.detach().numpy(), rtol=1e-6, atol=1e-7)
    if name != "AdamW":  # PyTorch's AdamW bumps twice (mul_, then addcdiv_); glassgrad once
        assert my_bumps == ref_bumps


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=IDS)
def test_step_writes_the_parameter_buffer_through_one_temporary(name: str, kwargs: dict[str, Any]) -> None:
    p = glassgrad.randn(256, 256, requires_grad=True)
    opt = getattr(glassgrad.optim, name)([p], **kwargs)
    (p * p).sum().backward()
    opt.step()  # the first step makes the state buffers
    buffer = p._data
    peak = peak_bytes(opt.step)
    assert p._data is buffer
    # weight decay and Nesterov make the new gradient PyTorch makes too; the update itself adds one more
    made_by_pytorch_too = ("weight_decay" in kwargs and name != "AdamW") + ("nesterov" in kwargs) + ("maximize" in kwargs)
    assert peak <= (1 + made_by_pytorch_too) * p.numel() * 4 + SLACK
