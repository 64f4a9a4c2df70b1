"""Shared fixtures: every test must leave grad mode on and no saved-tensor hooks installed."""

from __future__ import annotations

import os
import threading

import pytest
import torch
from hypothesis import settings

import glassgrad
from glassgrad.autograd import grad_mode
from glassgrad.autograd.graph import _hook_stack as saved_tensors_hook_stack

torch.set_num_threads(1)  # the oracle's thread pool only contends with the tests on a 2-core machine

# `make test` draws the same examples every run (seeded from each test), so neither CI nor a newcomer's first run
# turns red by chance; `make test-thorough` (HYPOTHESIS_PROFILE=thorough) and the dev profile keep drawing new ones.
settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile("thorough", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _grad_mode_restored():
    yield
    leaked_mode = not grad_mode.state.grad_enabled or grad_mode.state.inference
    # The ops' shortcut (while no thread has grad mode off, record) needs this thread listed exactly while it is off
    listed = (threading.get_ident() in grad_mode.usage.grad_disabled) == (not grad_mode.state.grad_enabled)
    leaked_hooks = bool(saved_tensors_hook_stack)
    grad_mode._switch_grad(True)
    grad_mode.state.inference = False
    saved_tensors_hook_stack.clear()
    assert listed, "grad mode and the set of threads with it off disagree"
    assert not leaked_mode, "the test left grad mode off or inference mode on"
    assert not leaked_hooks, "the test left saved_tensors_hooks installed"


_HYPOTHESIS_SETTINGS: dict[int, object] = {}


@pytest.fixture(autouse=True)
def _hypothesis_settings_not_nested(request: pytest.FixtureRequest) -> None:
    """Give each parametrized @given test its own settings back before every case.

    Hypothesis's pytest plugin (6.170) wraps a parametrized test's settings in a new Settings whose parent is the
    old one at every call, so one test with a thousand cases (test_matches_torch, one per OpInfo) builds a chain a
    thousand deep and its settings lookups hit Python's recursion limit.
    """
    fn = getattr(request.function, "__func__", request.function)
    if hasattr(fn, "_hypothesis_internal_use_settings"):
        fn._hypothesis_internal_use_settings = _HYPOTHESIS_SETTINGS.setdefault(id(fn), fn._hypothesis_internal_use_settings)


@pytest.fixture
def gg():
    return glassgrad
