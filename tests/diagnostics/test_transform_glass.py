"""The glass on programs that use function transforms (torch.func, torch.autograd.functional), under both engines.

A transform's own backwards and retains are not the program's: correct programs stay silent, a transform's
graphs are gone when it returns, and what goes wrong inside one is reported at the user's lines.
"""

from __future__ import annotations

import weakref
from pathlib import Path

import pytest

import glassgrad

from . import scripts
from .test_doctor_engines import ENGINES, MODIFIED, diagnosed, plain

pytestmark = pytest.mark.torch_oracle


def graph_warnings(report: dict) -> list[dict]:
    # glassgrad's vmap may say, once, that it ran an op as a loop: a performance note, not the glass's business
    return [w for w in report["warnings"] if w["category"] == "GraphWarning"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", sorted(scripts.TRANSFORM_LOOPS))
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")  # PyTorch's hvp warns so
@pytest.mark.filterwarnings("ignore::glassgrad.func.VmapLoopWarning")
def test_correct_transform_loops_stay_silent(tmp_path: Path, engine: str, name: str) -> None:
    report = diagnosed(plain(tmp_path, name, scripts.TRANSFORM_LOOPS[name]), engine)
    assert report["error"] is None, report["error"]
    assert graph_warnings(report) == []
    assert report["backward_passes"] >= 30


@pytest.mark.parametrize("engine", ENGINES)
def test_transform_results_kept_across_iterations_are_named(tmp_path: Path, engine: str) -> None:
    script = plain(tmp_path, "kept", scripts.TRANSFORM_RESULTS_KEPT)
    [warning] = graph_warnings(diagnosed(script, engine))
    assert f"end in a tensor made at\n  {script.site('made')}" in warning["message"]
    assert f"It is held by list `history` (global), added to at\n  {script.site('append')}" in warning["message"]


@pytest.mark.parametrize("engine", ENGINES)
def test_an_error_inside_a_transform_names_the_users_lines(tmp_path: Path, engine: str) -> None:
    script = plain(tmp_path, "modified", scripts.MODIFIED_INSIDE_TRANSFORM)
    message = diagnosed(script, engine)["error"]["message"]
    assert message.startswith(MODIFIED)
    assert f"recorded at {script.site('saved')}" in message
    assert f"last at {script.site('modified')}" in message


def test_graphs_made_inside_a_transform_are_freed_when_it_returns() -> None:
    nodes: list[weakref.ref] = []

    def f(w: glassgrad.Tensor) -> glassgrad.Tensor:
        y = (w.sin() * 2).sum()
        nodes.append(weakref.ref(y.grad_fn))
        return y

    w = glassgrad.ones(3)
    glassgrad.func.grad(f)(w)
    assert nodes[-1]() is None
    glassgrad.func.jacrev(f)(w)
    assert nodes[-1]() is None
    glassgrad.autograd.functional.hessian(f, w)
    assert nodes[-1]() is None
    _, vjp_fn = glassgrad.func.vjp(f, w)
    vjp_fn(glassgrad.tensor(1.0))
    vjp_fn(glassgrad.tensor(2.0))
    assert nodes[-1]() is not None  # vjp_fn keeps its graph so that it can be called again
    del vjp_fn
    assert nodes[-1]() is None


def test_the_watches_count_one_transform_call_as_one_step() -> None:
    x = glassgrad.randn(4)
    with glassgrad.diagnostics.watch() as watches:
        for _ in range(5):
            glassgrad.func.hessian(lambda t: (t.sin() ** 2).sum())(x)  # 8 backwards each
    assert len(watches.history) == 5
    assert watches.messages == []
