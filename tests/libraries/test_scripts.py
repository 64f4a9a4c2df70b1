"""transformers and Lightning scripts (examples/libraries) run unchanged under `glassgrad run` and follow
PyTorch's losses step for step from the same weights: PyTorch's run saves its initial state_dict, glassgrad's
run loads it, and the two lists of losses agree to float32 tolerance."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("transformers", reason="transformers is not installed (pip install 'glassgrad[libraries]')")
pytest.importorskip("lightning", reason="lightning is not installed (pip install 'glassgrad[libraries]')")

pytestmark = pytest.mark.torch_oracle
SCRIPTS = Path(__file__).resolve().parents[2] / "examples" / "libraries"


def _run(command: list[str], cwd: Path) -> None:
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, cwd=cwd)
    assert result.returncode == 0, result.stderr[-3000:]


def _both_engines(script: str, tmp_path: Path, *options: str) -> tuple[dict, dict]:
    init, on_torch, on_glassgrad = tmp_path / "init.pt", tmp_path / "torch.json", tmp_path / "glassgrad.json"
    _run([sys.executable, str(SCRIPTS / script), *options, "--save-init", str(init), "--losses", str(on_torch)], tmp_path)
    _run(
        [sys.executable, "-m", "glassgrad.cli", "run", str(SCRIPTS / script), *options, "--init", str(init),
         "--losses", str(on_glassgrad)],
        tmp_path,
    )
    return json.loads(on_torch.read_text()), json.loads(on_glassgrad.read_text())


def test_gpt2_trains_step_for_step_with_pytorch_and_generates_the_same_tokens(tmp_path: Path) -> None:
    torch_run, glassgrad_run = _both_engines("gpt2_train.py", tmp_path, "--steps", "20")
    assert len(glassgrad_run["losses"]) == 20
    np.testing.assert_allclose(glassgrad_run["losses"], torch_run["losses"], rtol=1e-5)
    assert glassgrad_run["losses"][-1] < glassgrad_run["losses"][0] - 0.5  # it learns
    assert glassgrad_run["generated"] == torch_run["generated"]


def test_gpt2_in_bfloat16_trains_with_pytorchs_losses_to_bfloat16_precision(tmp_path: Path) -> None:
    torch_run, glassgrad_run = _both_engines("gpt2_train.py", tmp_path, "--steps", "3", "--dtype", "bfloat16")
    np.testing.assert_allclose(glassgrad_run["losses"], torch_run["losses"], rtol=1e-2)  # bfloat16 keeps 8 bits


def test_bert_classification_with_gradient_accumulation(tmp_path: Path) -> None:
    torch_run, glassgrad_run = _both_engines("bert_classify.py", tmp_path, "--steps", "4")
    np.testing.assert_allclose(glassgrad_run["losses"], torch_run["losses"], rtol=1e-5)


def test_lightning_trainer_fits_a_lightning_module(tmp_path: Path) -> None:
    torch_run, glassgrad_run = _both_engines("lightning_train.py", tmp_path, "--steps", "6")
    assert len(glassgrad_run["losses"]) == 6
    np.testing.assert_allclose(glassgrad_run["losses"], torch_run["losses"], rtol=1e-5)
