"""Watches warn at the right line within three iterations of a faulty loop, and never on a correct one."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import glassgrad
from glassgrad.diagnostics import GraphWarning

from . import scripts


def watched(tmp_path: Path, name: str, body: str) -> tuple[scripts.Script, list[warnings.WarningMessage], BaseException | None]:
    script = scripts.write(tmp_path, name, body)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", GraphWarning)
        with glassgrad.diagnostics.watch():
            error = script.run("glassgrad")
    return script, [w for w in caught if issubclass(w.category, GraphWarning)], error


def test_correct_training_loop_gives_no_warning(tmp_path: Path) -> None:
    _, caught, error = watched(tmp_path, "correct", scripts.CORRECT_LOOP)
    assert error is None
    assert caught == []


def test_hidden_state_carried_across_iterations(tmp_path: Path) -> None:
    script, caught, error = watched(tmp_path, "rnn", scripts.RECURRENT_WITHOUT_DETACH)
    assert error is not None  # the watch speaks before the error fires
    assert len(caught) == 1
    assert caught[0].lineno == script.line_of("hidden")
    assert f"made by TanhBackward0 at\n  {script.site('hidden')}" in str(caught[0].message)


@pytest.mark.parametrize(
    ("name", "made", "added", "holder"),
    [
        ("ACCUMULATOR", "accumulate", "accumulate", "variable `total` (global)"),
        ("LOSSES_KEPT_FOR_LOGGING", "loss", "append", "list `history` (global)"),
    ],
)
def test_graphs_kept_alive_across_steps(tmp_path: Path, name: str, made: str, added: str, holder: str) -> None:
    script, caught, error = watched(tmp_path, name.lower(), getattr(scripts, name))
    assert error is None
    assert len(caught) == 1
    assert caught[0].lineno == script.line_of(added)  # the line to change
    message = str(caught[0].message)
    assert f"end in a tensor made at\n  {script.site(made)}" in message
    assert f"It is held by {holder}, added to at\n  {script.site(added)}" in message
    assert "Keep loss.item() or loss.detach() there instead" in message


def test_graphs_kept_alive_are_noticed_within_three_iterations(tmp_path: Path) -> None:
    body = scripts.ACCUMULATOR.replace("range(8)", "range(3)")
    _, caught, _ = watched(tmp_path, "short", body)
    assert len(caught) == 1


def test_every_accumulator_of_a_loop_is_named(tmp_path: Path) -> None:
    script, caught, error = watched(tmp_path, "two", scripts.TWO_ACCUMULATORS)
    assert error is None
    assert sorted(w.lineno for w in caught) == [script.line_of("total"), script.line_of("norm")]


def test_retain_graph_on_a_penalty_is_kept_for_a_backward_through_the_graph_it_differentiated(tmp_path: Path) -> None:
    # PyTorch's gradient graph of leaky_relu leads back into `fake`'s graph, which the loss's backward goes through
    _, caught, error = watched(tmp_path, "penalty", scripts.PENALTY_RETAINED_FOR_THE_LOSS)
    assert error is None
    assert caught == []


def test_retain_graph_that_no_backward_uses(tmp_path: Path) -> None:
    script, caught, error = watched(tmp_path, "retain", scripts.RETAIN_FOR_NOTHING)
    assert error is None
    assert caught, "expected a note about retain_graph=True"
    assert caught[0].lineno == script.line_of("retain")
    assert "no later backward went through that graph" in str(caught[0].message)


def test_tracking_stays_bounded_without_backward() -> None:
    """Ops that never reach a backward (evaluation with grad on) must not pile up dead references."""
    from glassgrad.diagnostics import watches

    x = glassgrad.ones(3, requires_grad=True)
    with glassgrad.diagnostics.watch() as state:
        kept = [x * 3 for _ in range(10)]  # alive throughout: every pruning must keep them
        for _ in range(5 * watches.MIN_PRUNE):
            (x * 2).sum()  # two nodes, dead at once
        assert len(state.nodes) <= 2 * watches.MIN_PRUNE + 2
        tracked = {id(ref()) for ref in state.nodes}
        assert all(id(t.grad_fn) in tracked for t in kept)


def test_history_counts_the_bytes_saved_before_each_backward() -> None:
    x = glassgrad.randn(1000, requires_grad=True)
    with glassgrad.diagnostics.watch() as watches:
        x.exp().sin().sum().backward()  # exp saves its result and sin its input: 1000 float32 values each
        y = x.exp()
        y.sum().backward(retain_graph=True)  # a graph kept alive keeps what it saved
        y.sum().backward()
        x.sum().backward()  # y's graph is alive, but that backward released what it saved
    assert [saved_bytes for _, _, saved_bytes in watches.history] == [8000, 4000, 4000, 0]
