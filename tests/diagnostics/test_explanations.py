"""Every graph error keeps PyTorch's first line, then names the lines to look at and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import scripts
from .scripts import Script

pytestmark = pytest.mark.torch_oracle


def failure(tmp_path: Path, name: str, body: str) -> tuple[Script, str]:
    """Run the script under both libraries; both must fail alike. Returns glassgrad's message."""
    script = scripts.write(tmp_path, name, body)
    expected = script.run("torch")
    actual = script.run("glassgrad")
    assert expected is not None, "the script must fail under PyTorch too"
    assert actual is not None, f"glassgrad did not raise; PyTorch raised {expected!r}"
    assert type(actual) is type(expected)
    message = str(actual)
    assert message.split("\n")[0] == str(expected).split("\n")[0]
    return script, message


def test_same_graph_backwarded_twice(tmp_path: Path) -> None:
    script, message = failure(tmp_path, "twice", scripts.SAME_LOSS_TWICE)
    assert f"recorded at {script.site('created')}" in message
    assert f"freed by the backward call at {script.site('freed')}" in message
    assert "add them\n  and call backward once" in message


def test_recurrent_state_not_detached(tmp_path: Path) -> None:
    script, message = failure(tmp_path, "rnn", scripts.RECURRENT_WITHOUT_DETACH)
    assert f"freed by the backward call at {script.site('backward')}" in message
    assert "reaches into a graph built before that call" in message
    assert f"made by TanhBackward0 at\n  {script.site('hidden')}" in message
    assert "detach() it where the iteration starts" in message


def test_two_losses_sharing_a_subgraph(tmp_path: Path) -> None:
    script, message = failure(tmp_path, "two_losses", scripts.TWO_LOSSES)
    assert f"TanhBackward0 needs its saved 'result' (1x2 float32, 8 bytes),\n  recorded at {script.site('shared')}" in message
    assert f"freed by the backward call at {script.site('first')}" in message
    assert "(loss1 + loss2).backward()" in message


def test_optimizer_step_between_two_backwards(tmp_path: Path) -> None:
    script, message = failure(tmp_path, "step", scripts.STEP_BETWEEN_BACKWARDS)
    assert "MmBackward0 saved 'mat2' (2x1 float32, 8 bytes) at version 0" in message
    assert f"recorded at {script.site('saved')}" in message
    assert f"modified in place (now version 1), last at {script.site('modified')}" in message
    assert "call\n  optimizer.step() after the last backward" in message


def test_function_saved_tensors_read_after_free(tmp_path: Path) -> None:
    script, message = failure(tmp_path, "function", scripts.FUNCTION_AFTER_FREE)
    assert f"recorded at {script.site('created')}" in message
    assert f"freed by the backward call at {script.site('freed')}" in message
    assert "ctx.saved_tensors was read after the graph was freed" in message


@pytest.mark.parametrize(
    ("name", "body", "explanation"),
    [
        ("no_grad_fn", "x = torch.ones(3)\n(x * 2).sum().backward()\n", "`x` was created by torch.ones(...) without requires_grad=True"),
        ("non_scalar", "x = torch.ones(3, requires_grad=True)\ny = x * 2  # @made\ny.backward()\n", "loss.sum() or loss.mean()"),
        ("leaf_inplace", "w = torch.ones(3, requires_grad=True)\nw += 1\n", "with torch.no_grad():"),
    ],
)
def test_other_graph_errors_say_which_tensor(tmp_path: Path, name: str, body: str, explanation: str) -> None:
    script, message = failure(tmp_path, name, body)
    assert explanation in message
    if name == "non_scalar":
        assert f"made at {script.site('made')}" in message
