"""`glassgrad doctor` runs a script with the watches on, reports, and exits with the script's status."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def doctor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "glassgrad.cli", "doctor", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_doctor_names_the_line_and_keeps_the_failure_status(tmp_path: Path) -> None:
    script = EXAMPLES / "faulty" / "rnn_without_detach.py"
    html = tmp_path / "report.html"
    result = doctor("--html", str(html), str(script))
    assert result.returncode == 1
    assert "rnn_without_detach.py:15" in result.stderr  # hidden = torch.tanh(x @ w_in + hidden @ w_h)
    assert "detach() it where the iteration starts" in result.stderr
    assert html.read_text().startswith("<!DOCTYPE html>")


def test_doctor_on_a_clean_script_exits_zero(tmp_path: Path) -> None:
    script = tmp_path / "clean.py"
    script.write_text("import glassgrad as torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n")
    result = doctor(str(script))
    assert result.returncode == 0
    assert "No graph-lifetime warnings." in result.stderr
