"""The doctor on real PyTorch only observes: a program prints the same and ends with the same parameters and
buffers, bit for bit, with and without it.

Each program runs twice in a fresh process with the same seed, plainly and under `glassgrad doctor --engine torch`.
The programs are the ones where reading a node's saved tensors would run code: activation checkpointing (its
saved-tensor hooks recompute the block, and BatchNorm's running statistics and the dropout RNG with it), autocast,
and the libraries that use them (transformers' gradient checkpointing, Lightning's training loop).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from glassgrad import _sites as sites

pytestmark = pytest.mark.torch_oracle

PROGRAMS = Path(__file__).resolve().parent / "programs"


def output(program: str, args: list[str], doctor: bool) -> str:
    command = [sys.executable, *(["-m", "glassgrad", "doctor", "--engine", "torch"] if doctor else []), program, *args]
    done = subprocess.run(command, cwd=PROGRAMS, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def assert_unchanged(program: str, *args: str) -> str:
    plain = output(program, list(args), doctor=False)
    assert plain.strip(), "the program printed nothing to compare"
    assert output(program, list(args), doctor=True) == plain
    return plain


def needs(module: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(importlib.util.find_spec(module) is None, reason=f"{module} is not installed (pip install '.[test]')")


def test_checkpoint_with_batchnorm() -> None:
    printed = assert_unchanged("cnn_checkpoint.py")
    # each kind: 20 steps, each running the block twice (forward and one recomputation)
    assert printed.count("num_batches_tracked 40") == 2


def test_autocast_bfloat16() -> None:
    assert_unchanged("autocast_cpu.py")


@needs("transformers")
def test_gpt2_with_gradient_checkpointing() -> None:
    assert_unchanged("gpt2_checkpointing.py")


@needs("lightning")
def test_lightning_fit() -> None:
    assert_unchanged("lightning_fit.py")


@needs("transformers")
@pytest.mark.skipif(
    not hasattr(sites, "is_users"), reason="needs the user's frame chosen past library frames (_sites.is_users, issue 31)"
)
def test_a_loss_made_inside_transformers_is_named_at_the_users_call(tmp_path: Path) -> None:
    program = PROGRAMS / "gpt2_losses_kept.py"
    lines = program.read_text().splitlines()
    site = {marker: f"{program.name}:{next(i for i, t in enumerate(lines, 1) if t.endswith(f'# @{marker}'))}" for marker in ("loss", "append")}
    command = [sys.executable, "-m", "glassgrad", "doctor", "--engine", "torch", "--json", str(tmp_path / "r.json"), program.name]
    done = subprocess.run(command, cwd=PROGRAMS, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads((tmp_path / "r.json").read_text())
    [warning] = report["warnings"]
    assert f"end in a tensor made at\n  {site['loss']}" in warning["message"]
    assert f"added to at\n  {site['append']}" in warning["message"]
    # every node the library made is grouped under the user's call that ran the model
    assert [row["created_at"].split(" in ")[0] for row in report["graphs_alive_at_exit"]] == [site["loss"]]
