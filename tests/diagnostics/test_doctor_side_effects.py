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
import re
import subprocess
import sys
from pathlib import Path

import pytest

from glassgrad import _sites as sites
from glassgrad import doctor

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
    # the user's line first, then as context the line of transformers' loss function that made the tensor
    made = rf"end in a tensor made at\n  {re.escape(site['loss'])} in <module>\n        .*# @loss\n        inside transformers/loss/"
    assert re.search(made + r"loss_utils\.py:\d+ in \w+\n", warning["message"])
    assert f"added to at\n  {site['append']}" in warning["message"]
    # every node the library made is grouped under the user's call that ran the model
    assert [row["created_at"].split(" in ")[0] for row in report["graphs_alive_at_exit"]] == [site["loss"]]


def _unpacks_and_recomputations(second_backward: bool) -> tuple[int, int]:
    """How often a program's own saved-tensor hook unpacked, and how often a checkpointed block ran."""
    import torch
    from torch.utils.checkpoint import checkpoint

    unpacked, ran = [0], [0]

    def unpack(tensor: torch.Tensor) -> torch.Tensor:
        unpacked[0] += 1
        return tensor

    def block(a: torch.Tensor) -> torch.Tensor:
        ran[0] += 1
        return (a * 2).sin().exp()

    x = torch.randn(3, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        hooked = (x.exp() * x.cos()).sum()
    loss = checkpoint(block, x, use_reentrant=False).sum() + hooked
    loss.backward(retain_graph=not second_backward)
    if second_backward:
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time") as caught:
            loss.backward()
        assert "glassgrad:" in caught.value.__notes__[0]  # explained, from what the glass kept
    return unpacked[0], ran[0]


@pytest.mark.parametrize("second_backward", [False, True], ids=["backward", "explained error"])
def test_the_glass_runs_no_hook_and_no_recomputation(second_backward: bool) -> None:
    plain = _unpacks_and_recomputations(second_backward=False)
    with doctor.watch_torch():
        watched = _unpacks_and_recomputations(second_backward)
    assert watched == plain == (4, 2)  # the backward unpacks the four saved tensors once; the block runs twice
