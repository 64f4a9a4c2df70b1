"""The holder of a leaking graph, found from the user's frames outwards without scanning the heap, in the same words
as the heap's referrers give it; the heap is searched only where the frames hold nothing that grows."""

from __future__ import annotations

import gc
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

import glassgrad
from glassgrad.diagnostics import GraphWarning, watches
from glassgrad.diagnostics.holders import holders_of, kept_by_frames

from . import scripts


class Keeper:
    def __init__(self, x: glassgrad.Tensor) -> None:
        self.losses = [x * 6]
        self.last = x * 7


def _has_graph(obj: Any) -> bool:
    return type(obj) is glassgrad.Tensor and obj.grad_fn is not None


def test_the_frames_name_each_holder_as_the_referrers_do() -> None:
    x = glassgrad.ones(2, requires_grad=True)
    total = x * 2
    history = [x * 3]
    outputs = [{"loss": x * 4}]
    runs = {"epochs": [[x * 5]]}
    keeper, other = Keeper(x), Keeper(x)
    # Each tensor is reached through a call, never bound to a variable here: that would be its nearest holder.
    reach = {
        "variable `total` (local in test_the_frames_name_each_holder_as_the_referrers_do)": lambda: total,
        "list `history` (local in test_the_frames_name_each_holder_as_the_referrers_do)": lambda: history[0],
        "list `outputs` (local in test_the_frames_name_each_holder_as_the_referrers_do) (through a dict in it)": (
            lambda: outputs[0]["loss"]
        ),
        "dict `runs` (local in test_the_frames_name_each_holder_as_the_referrers_do) (through a list inside) "
        "(through a list in it)": lambda: runs["epochs"][0][0],
        "list `losses`, an attribute of a Keeper": lambda: keeper.losses[0],
        "attribute `last` of a Keeper": lambda: other.last,
    }
    # The referrers first, and one owner each: reading an instance's attributes makes CPython build its __dict__,
    # which then stands between the instance and what it holds.
    by_referrers = holders_of([get() for get in reach.values()], set())
    kept = kept_by_frames(_has_graph)
    for (description, get), heap in zip(reach.items(), by_referrers, strict=True):
        assert kept[id(get())][1][0] == heap
        assert heap is not None and heap.description == description


def _warning(script: scripts.Script) -> str:
    """The one warning of a script run under the watches."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", GraphWarning)
        with glassgrad.diagnostics.watch():
            assert script.run("glassgrad") is None
    [warning] = [w for w in caught if issubclass(w.category, GraphWarning)]
    return str(warning.message)


@pytest.mark.parametrize(
    ("name", "added", "holder"),
    [("ACCUMULATOR", "accumulate", "variable `total` (global)"), ("LOSSES_KEPT_FOR_LOGGING", "append", "list `history` (global)")],
)
def test_a_leak_the_frames_hold_is_named_without_scanning_the_heap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, added: str, holder: str
) -> None:
    def no_heap_scan() -> list[Any]:
        raise AssertionError("the holder search scanned the heap")

    monkeypatch.setattr(watches.gc, "get_objects", no_heap_scan)
    monkeypatch.setattr(gc, "get_referrers", no_heap_scan)
    script = scripts.write(tmp_path, "leak", getattr(scripts, name))
    assert f"It is held by {holder}, added to at\n  {script.site(added)}" in _warning(script)


STALE_IN_FRAMES = """
torch.manual_seed(0)
w = torch.randn(4, 4, requires_grad=True)
x = torch.randn(2, 4)
first = (x @ w).sum()  # a graph from before the loop, never backwarded: old, but not what grows
def log(value, kept=[]):
    kept.append(value)  # @append
for step in range(8):
    loss = (x @ w).tanh().sum()  # @loss
    loss.backward()
    log(loss)
    w.grad = None
"""


def test_what_grows_outside_the_frames_is_found_in_the_heap(tmp_path: Path) -> None:
    """The frames hold only a graph from long ago; the list that grows (a default argument) is not theirs to see."""
    script = scripts.write(tmp_path, "hidden", STALE_IN_FRAMES)
    assert f"end in a tensor made at\n  {script.site('loss')}" in _warning(script)


def test_heap_scans_keep_to_their_share_of_the_time() -> None:
    budget = watches._HeapBudget(began=time.perf_counter() - 1.0)
    assert budget.allows()  # the first scan, whatever it costs
    budget.spent = 2 * watches.HEAP_SHARE  # twice the share of the second the watches have been on
    assert not budget.allows()
    budget.began -= 3.0  # the program ran on: 4 s, the spent time is now half the share
    assert budget.allows()


def test_a_heap_scan_out_of_budget_waits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The search defers to a later backward rather than scan the heap past its share: the warning waits with it."""

    def no_heap_scan() -> list[Any]:
        raise AssertionError("the holder search scanned the heap")

    monkeypatch.setattr(watches._HeapBudget, "allows", lambda self: False)
    monkeypatch.setattr(watches.gc, "get_objects", no_heap_scan)
    script = scripts.write(tmp_path, "hidden", STALE_IN_FRAMES)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", GraphWarning)
        with glassgrad.diagnostics.watch():
            assert script.run("glassgrad") is None
    assert not [w for w in caught if issubclass(w.category, GraphWarning)]
