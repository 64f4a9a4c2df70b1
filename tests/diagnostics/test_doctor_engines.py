"""The doctor on plain `import torch` programs, under both engines: the same lines named, the same silence.

glassgrad's engine runs them through the import alias; real PyTorch runs them under the torch glass.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

from glassgrad import _sites as sites
from glassgrad import doctor

from . import scripts

pytestmark = pytest.mark.torch_oracle

ENGINES = ["glassgrad", "torch"]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "faulty"
FREED = "Trying to backward through the graph a second time"
MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace operation"


def plain(tmp_path: Path, name: str, body: str) -> scripts.Script:
    """The script as its users write it: `import torch` and nothing else."""
    text = "import torch\n" + textwrap.dedent(body)
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return scripts.Script(path, text)


def diagnosed(script: scripts.Script | Path, engine: str) -> dict:
    path = script.path if isinstance(script, scripts.Script) else script
    return doctor.diagnose(str(path), [], engine).to_json()


def everything_said(report: dict) -> str:
    return "\n".join([(report["error"] or {}).get("message", ""), *(w["message"] for w in report["warnings"])])


def lines_named(report: dict) -> set[str]:
    return set(re.findall(r"[\w/.-]+\.py:\d+", everything_said(report)))


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_faulty_examples_name_the_same_lines_on_both_engines(example: str) -> None:
    reports = {engine: diagnosed(EXAMPLES / example, engine) for engine in ENGINES}
    assert reports["glassgrad"]["engine"] == "glassgrad" and reports["torch"]["engine"] == "torch"
    named = {engine: lines_named(report) for engine, report in reports.items()}
    assert named["glassgrad"], f"{example}: the doctor named no line"
    assert named["glassgrad"] == named["torch"]
    for key in ("exit_status", "backward_passes"):
        assert reports["glassgrad"][key] == reports["torch"][key]
    if reports["torch"]["error"] is not None:
        assert reports["glassgrad"]["error"]["type"] == reports["torch"]["error"]["type"]
        first = reports["torch"]["error"]["message"].split(". ")[0]
        assert reports["glassgrad"]["error"]["message"].startswith(first)


@pytest.mark.parametrize("engine", ENGINES)
def test_hidden_state_carried_without_detach(tmp_path: Path, engine: str) -> None:
    script = plain(tmp_path, "rnn", scripts.RECURRENT_WITHOUT_DETACH)
    report = diagnosed(script, engine)
    message = report["error"]["message"]
    assert message.startswith(FREED)
    assert f"recorded at {script.site('hidden')}" in message
    assert f"It was freed by the backward call at {script.site('backward')}" in message
    assert f"made by TanhBackward0 at\n  {script.site('hidden')}" in message
    assert "detach() it where the iteration starts" in message
    assert [w["category"] for w in report["warnings"]] == ["GraphWarning"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ["STEP_BETWEEN_BACKWARDS", "OPTIMIZER_STEP_BETWEEN_BACKWARDS"])
def test_in_place_change_between_backwards(tmp_path: Path, engine: str, name: str) -> None:
    script = plain(tmp_path, name.lower(), getattr(scripts, name))
    message = diagnosed(script, engine)["error"]["message"]
    assert message.startswith(MODIFIED)
    assert f"recorded at {script.site('saved')}" in message
    assert f"last at {script.site('modified')}" in message


@pytest.mark.parametrize("engine", ENGINES)
def test_saved_tensors_read_after_the_free(tmp_path: Path, engine: str) -> None:
    script = plain(tmp_path, "ctx", scripts.FUNCTION_AFTER_FREE)
    message = diagnosed(script, engine)["error"]["message"]
    assert message.startswith(FREED)
    assert "CubeBackward needs its saved 'saved_tensors[0]'" in message
    assert f"recorded at {script.site('created')}" in message
    assert f"freed by the backward call at {script.site('freed')}" in message
    assert "ctx.saved_tensors was read after the graph was freed" in message


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("name", "made", "added", "holder"),
    [
        ("ACCUMULATOR", "accumulate", "accumulate", "variable `total` (global)"),
        ("LOSSES_KEPT_FOR_LOGGING", "loss", "append", "list `history` (global)"),
    ],
)
def test_graphs_kept_alive_name_their_holder(tmp_path: Path, engine: str, name: str, made: str, added: str, holder: str) -> None:
    script = plain(tmp_path, name.lower(), getattr(scripts, name))
    report = diagnosed(script, engine)
    assert report["error"] is None
    [warning] = report["warnings"]
    assert f"end in a tensor made at\n  {script.site(made)}" in warning["message"]
    assert f"It is held by {holder}, added to at\n  {script.site(added)}" in warning["message"]


@pytest.mark.parametrize("engine", ENGINES)
def test_retain_graph_that_no_backward_uses(tmp_path: Path, engine: str) -> None:
    script = plain(tmp_path, "retain", scripts.RETAIN_FOR_NOTHING)
    [warning] = diagnosed(script, engine)["warnings"]
    assert f"retain_graph=True at {script.site('retain')}" in warning["message"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", sorted(scripts.CORRECT_LOOPS))
def test_correct_loops_stay_silent(tmp_path: Path, engine: str, name: str) -> None:
    report = diagnosed(plain(tmp_path, name, scripts.CORRECT_LOOPS[name]), engine)
    assert report["error"] is None, report["error"]
    assert report["warnings"] == []
    assert report["backward_passes"] >= 1000


def _train(steps: int) -> list[np.ndarray]:
    """A short training run on real PyTorch: its losses, then every parameter and gradient."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    rnn = torch.nn.GRU(3, 5, batch_first=True)
    optimizer = torch.optim.Adam([*model.parameters(), *rnn.parameters()], lr=1e-2)
    results = []
    for _ in range(steps):
        x, y = torch.randn(8, 6), torch.randint(0, 3, (8,))
        out, _ = rnn(model(x).unsqueeze(1))
        loss = torch.nn.functional.cross_entropy(model(x), y) + out.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        results.append(loss.detach().numpy().copy())
    params = [*model.parameters(), *rnn.parameters()]
    return results + [p.detach().numpy().copy() for p in params] + [p.grad.numpy().copy() for p in params]


def test_the_torch_glass_changes_no_result() -> None:
    plain_run = _train(20)
    with doctor.watch_torch():
        watched = _train(20)
    for a, b in zip(plain_run, watched, strict=True):
        np.testing.assert_array_equal(a, b)  # bitwise: the glass only reads


def test_watch_torch_puts_the_explanation_on_the_error_as_a_note() -> None:
    with doctor.watch_torch(), pytest.raises(RuntimeError) as caught:
        w = torch.ones(3, requires_grad=True)
        loss = w.exp().sum()
        loss.backward()
        loss.backward()
    assert str(caught.value).startswith(FREED)
    assert "glassgrad: ExpBackward0 needs its saved 'result'" in caught.value.__notes__[0]
    assert "test_doctor_engines.py" in caught.value.__notes__[0]


def test_the_torch_glass_leaves_torch_as_it_was() -> None:
    run_backward, apply = torch.autograd._engine_run_backward, torch.autograd.Function.apply
    with doctor.watch_torch():
        pass
    assert torch.autograd._engine_run_backward is run_backward and torch.autograd.Function.apply == apply
    assert "saved_tensors" not in vars(torch.autograd.function.BackwardCFunction)
    assert not torch.overrides._is_torch_function_mode_enabled()


def _ops_seen_in_step(optimizer: torch.optim.Optimizer, *args: object, **kwargs: object) -> list[str]:
    """The ops the torch glass's mode saw while `optimizer.step(*args, **kwargs)` ran."""
    seen: list[str] = []
    with doctor.watch_torch() as glass:
        op = glass._op

        def counting(func: object, args: object, kwargs: object) -> object:
            seen.append(getattr(func, "__name__", ""))
            return op(func, args, kwargs)

        glass._op = counting  # type: ignore[method-assign]
        optimizer.step(*args, **kwargs)
    return seen


class _HandWritten(torch.optim.Optimizer):
    """An optimizer of the user's own: its lines are the ones to name, so the mode stays on for its step."""

    def __init__(self, params: list[torch.nn.Parameter]) -> None:
        super().__init__(params, {})

    @torch.no_grad()
    def step(self, closure: object = None) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                p.sub_(0.1 * p.grad)


def test_the_mode_steps_aside_for_a_library_step_but_not_for_user_code() -> None:
    w = torch.nn.Parameter(torch.ones(3))
    w.grad = torch.ones(3)
    assert not [name for name in _ops_seen_in_step(torch.optim.AdamW([w])) if name.endswith("_")]

    def closure() -> torch.Tensor:
        loss = (w * 2).sum()
        loss.backward()
        return loss

    for seen in (_ops_seen_in_step(torch.optim.SGD([w]), closure), _ops_seen_in_step(torch.optim.SGD([w]), closure=closure)):
        assert "mul" in seen  # the user's forward, inside step()
        assert not [name for name in seen if name.endswith("_")]  # but not the update
    assert "sub_" in _ops_seen_in_step(_HandWritten([w]))


def test_a_library_step_records_what_it_changed() -> None:
    w = torch.nn.Parameter(torch.ones(3))
    optimizer = torch.optim.AdamW([w])
    with doctor.watch_torch() as glass:
        (w * 2).sum().backward()
        optimizer.step(); line = sys._getframe().f_lineno  # noqa: E702
    for tensor in (w, optimizer.state[w]["exp_avg"]):
        change = glass.modified[glass._storage_key(tensor)]
        site = sites.resolve(change.position)
        assert site is not None and site[1] == line


def test_the_glass_comes_back_after_a_step_that_raised() -> None:
    w = torch.nn.Parameter(torch.ones(3))
    optimizer = torch.optim.AdamW([w])
    with doctor.watch_torch():
        w.grad = torch.ones(3).to_sparse()
        with pytest.raises(RuntimeError):
            optimizer.step()  # AdamW takes no sparse gradients: the post hook that puts the mode back never runs
        assert torch._C._len_torch_function_stack() == 0
        (w * 2).sum().backward()
        assert torch._C._len_torch_function_stack() == 1
        assert (w * 2).grad_fn.metadata  # recorded again
    assert not torch.overrides._is_torch_function_mode_enabled()


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "glassgrad", *args], capture_output=True, text=True, timeout=300, check=False, cwd=cwd
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_the_gru_script_from_the_command_line(tmp_path: Path, engine: str) -> None:
    result = cli(
        "doctor", "--engine", engine, "--json", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html"),
        str(EXAMPLES / "gru_hidden_state.py"), cwd=tmp_path,
    )
    assert result.returncode == 1
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["engine"] == engine
    message = report["error"]["message"]
    text = (EXAMPLES / "gru_hidden_state.py").read_text().splitlines()
    line = {marker: next(i for i, t in enumerate(text, 1) if marker in t) for marker in ("rnn(x, hidden)", "loss.backward()")}
    assert message.startswith(FREED)
    assert f"gru_hidden_state.py:{line['rnn(x, hidden)']}" in message
    assert f"freed by the backward call at {EXAMPLES / 'gru_hidden_state.py'}:{line['loss.backward()']}" in message
    assert "hidden = hidden.detach()" in message
    assert f"engine: {'torch' if engine == 'torch' else 'glassgrad'}" in result.stderr


def test_default_engine_is_the_one_the_script_imports(tmp_path: Path) -> None:
    torch_script = tmp_path / "t.py"
    torch_script.write_text("import torch\n")
    glassgrad_script = tmp_path / "g.py"
    glassgrad_script.write_text("import glassgrad as torch\n")
    assert doctor.choose_engine(str(torch_script)) == ("torch", False)
    assert doctor.choose_engine(str(torch_script), "glassgrad") == ("glassgrad", True)
    assert doctor.choose_engine(str(glassgrad_script)) == ("glassgrad", False)
    with pytest.raises(doctor.UsageError):
        doctor.choose_engine(str(glassgrad_script), "torch")


def test_glassgrad_run_names_what_glassgrad_lacks(tmp_path: Path) -> None:
    script = tmp_path / "uses_missing.py"
    script.write_text("import torch\nx = torch.ones(2)\ny = torch.not_a_function_of_torch(x)\n")
    result = cli("run", str(script), cwd=tmp_path)
    assert result.returncode == 1
    assert f"glassgrad does not implement torch.not_a_function_of_torch yet (used at {script}:3" in result.stderr
    script.write_text("import torch\nfrom torch.nn.functional import not_there\n")
    result = cli("run", str(script), cwd=tmp_path)
    assert f"glassgrad does not implement torch.nn.functional.not_there yet (imported at {script}:2)" in result.stderr
    script.write_text("import torch\nimport torch.not_a_module\n")
    result = cli("run", str(script), cwd=tmp_path)
    assert f"glassgrad does not implement torch.not_a_module yet (imported at {script}:2" in result.stderr


def test_glassgrad_run_runs_an_import_torch_program_on_glassgrad(tmp_path: Path) -> None:
    script = tmp_path / "which.py"
    script.write_text("import torch\nimport torch.nn as nn\nprint(type(nn.Linear(2, 2)).__module__, torch.ones(2).sum().item())\n")
    result = cli("run", str(script), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["glassgrad.nn.modules.linear", "2.0"]


INPLACE_IN_A_MODULE = """
from torch import nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        h = torch.sigmoid(self.fc(x))  # @saved
        return CHANGE  # @modified


net = Net()
net(torch.randn(2, 4)).sum().backward()
"""


@pytest.mark.parametrize(
    ("change", "by"),
    [("self.act(h)", " by ReLU(inplace=True), called"), ("F.relu(h, inplace=True)", " by relu(..., inplace=True), called"), ("h.add_(1)", ""),
     ("F.relu(h, True)", " by relu(..., inplace=True), called")],
)
def test_in_place_change_by_a_module_is_named_on_real_pytorch(tmp_path: Path, change: str, by: str) -> None:
    script = plain(tmp_path, "inplace_module", INPLACE_IN_A_MODULE.replace("CHANGE", change))
    message = diagnosed(script, "torch")["error"]["message"]
    assert message.startswith(MODIFIED)
    assert f"recorded at {script.site('saved')}" in message
    assert f"last{by} at {script.site('modified')}" in message
    assert ("pass inplace=False there" in message) == bool(by)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("raise_", ["raise ValueError('training failed') from error", "raise ValueError('training failed')"])
def test_the_json_report_carries_the_cause_of_a_wrapped_error(tmp_path: Path, engine: str, raise_: str) -> None:
    script = plain(tmp_path, "wrapped", f"""
        x = torch.ones(3, requires_grad=True)
        loss = x.exp().sum()
        loss.backward()
        try:
            loss.backward()
        except RuntimeError as error:
            {raise_}
    """)
    error = diagnosed(script, engine)["error"]
    assert (error["type"], error["message"]) == ("ValueError", "training failed")
    cause = error["cause"]
    assert cause["type"] == "RuntimeError" and cause["cause"] is None
    assert cause["message"].startswith(FREED)
    assert "ExpBackward0 needs its saved 'result'" in cause["message"]


ON_THE_DEVICE = """
device = "cuda" if torch.cuda.is_available() else "cpu"
w = torch.randn(256, 256, device=device, requires_grad=True)
kept = []
for step in range(3):
    kept.append(torch.randn(256, 256, device=device) @ w)  # each step keeps one more 256x256 graph alive
    (w * 2).sum().backward()
"""


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_memory_allocated_per_backward_on_a_gpu(tmp_path: Path) -> None:
    report = diagnosed(plain(tmp_path, "cuda", ON_THE_DEVICE), "torch")
    allocated = report["cuda_memory_allocated"]
    assert len(allocated) == report["backward_passes"] == 3
    assert allocated[0] < allocated[1] < allocated[2]  # the kept products on the GPU


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the report of a machine without a GPU")
def test_no_cuda_memory_in_the_report_without_a_gpu(tmp_path: Path) -> None:
    report = diagnosed(plain(tmp_path, "cuda", ON_THE_DEVICE), "torch")
    assert report["cuda_memory_allocated"] is None
    assert report["backward_passes"] == 3
