"""The glass on transformers and Lightning scripts, run by `glassgrad doctor --engine glassgrad` (issue 33):
the classic mistakes (a loss kept for logging, a backward twice) are named at the user's lines, never at a line
inside the library that made the tensor (that line follows the user's, as context), and the correct loops draw
no warning at all.

The programs (tests/libraries/programs) are tiny: one GPT-2 layer of width 16, a few steps."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers", reason="transformers is not installed (pip install 'glassgrad[libraries]')")
pytest.importorskip("lightning", reason="lightning is not installed (pip install 'glassgrad[libraries]')")

PROGRAMS = Path(__file__).resolve().parent / "programs"
FREED = "Trying to backward through the graph a second time"


def site(program: str, marker: str) -> str:
    """`path:line` of the line that ends with `# @marker`."""
    path = PROGRAMS / program
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if line.rstrip().endswith(f"# @{marker}"):
            return f"{path}:{number}"
    raise KeyError(marker)


def doctor(program: str, tmp_path: Path) -> dict:
    """The JSON report of `glassgrad doctor --engine glassgrad program`, run in a fresh process."""
    out = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "-m", "glassgrad.cli", "doctor", "--engine", "glassgrad", "--json", str(out), str(PROGRAMS / program)],
        capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path,
    )
    assert out.exists(), result.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["engine"] == "glassgrad"
    return report


def made_inside_the_loss_function(program: str, marker: str) -> str:
    """A pattern for a site named at the user's line, with the line of transformers' loss function that made the
    tensor after it, named from the package."""
    return rf"{re.escape(site(program, marker))} in <module>\n        .*# @{marker}\n        inside transformers/loss/loss_utils\.py:\d+ in \w+\n"


def library_lines(message: str) -> list[str]:
    """Lines of site-packages named in a message: the glass should name the user's lines instead."""
    return [line for line in message.splitlines() if "site-packages" in line]


@pytest.mark.parametrize(("program", "steps"), [("gpt2_correct.py", 6), ("lightning_correct.py", 4)])
def test_correct_loops_draw_no_warning(program: str, steps: int, tmp_path: Path) -> None:
    report = doctor(program, tmp_path)
    assert report["error"] is None, report["error"]
    assert report["exit_status"] == 0
    assert report["backward_passes"] == steps  # it trained, under the glass
    assert report["warnings"] == []


def test_gpt2_losses_kept_for_logging_are_named_at_the_append(tmp_path: Path) -> None:
    report = doctor("gpt2_losses_kept.py", tmp_path)
    assert report["error"] is None, report["error"]
    [warning] = report["warnings"]
    message = warning["message"]
    assert warning["category"] == "GraphWarning"
    assert re.search("end in a tensor made at\n  " + made_inside_the_loss_function("gpt2_losses_kept.py", "loss"), message)
    assert f"added to at\n  {site('gpt2_losses_kept.py', 'append')}" in message
    assert ".item()" in message and ".detach()" in message
    assert library_lines(message) == []


def test_gpt2_backward_twice_is_named_at_the_users_lines(tmp_path: Path) -> None:
    report = doctor("gpt2_backward_twice.py", tmp_path)
    message = report["error"]["message"]
    assert report["error"]["type"] == "RuntimeError"
    assert message.startswith(FREED)
    assert re.search("recorded at " + made_inside_the_loss_function("gpt2_backward_twice.py", "loss"), message)
    assert f"freed by the backward call at {site('gpt2_backward_twice.py', 'first')}" in message
    assert library_lines(message) == []
    assert report["warnings"] == []
