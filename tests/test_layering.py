"""The floors of docs/architecture.md hold: import-linter checks pyproject.toml's contracts over every import.

Every import counts, function-level and TYPE_CHECKING ones included (a compiled core resolves those too),
so a lazy `from ..ops import x` inside a core function breaks the contracts as much as a module-level one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter", reason="import-linter is in the test extra: pip install -e '.[test]'")

import glassgrad

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(glassgrad.__file__).resolve().parent
LINT = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"


def _lint(source_dir: Path, config_dir: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports over the glassgrad package in `source_dir`, with the contracts of `config_dir`/pyproject.toml."""
    env = {**os.environ, "PYTHONPATH": str(source_dir)}
    return subprocess.run(
        [sys.executable, "-c", LINT], cwd=config_dir, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_core_sits_below_ops_and_diagnostics() -> None:
    result = _lint(PACKAGE.parent, ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken." in result.stdout


@pytest.mark.parametrize(
    ("module", "anchor", "bad_import", "reported"),
    [
        # a lazy import of an op inside a method of Tensor
        ("tensor.py", "    def detach(self) -> Tensor:\n", "        from .ops.creation import zeros  # noqa: F401\n",
         "glassgrad.tensor -> glassgrad.ops.creation"),
        # a module-level import of the diagnostics by the engine
        ("autograd/engine.py", "from .. import _sites as sites\n", "from ..diagnostics import explain  # noqa: F401\n",
         "glassgrad.autograd.engine -> glassgrad.diagnostics.explain"),
    ],
)
def test_a_core_import_of_a_layer_above_breaks_the_contracts(
    tmp_path: Path, module: str, anchor: str, bad_import: str, reported: str
) -> None:
    shutil.copytree(PACKAGE, tmp_path / "src" / "glassgrad", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    path = tmp_path / "src" / "glassgrad" / module
    text = path.read_text()
    assert text.count(anchor) == 1
    path.write_text(text.replace(anchor, anchor + bad_import))
    result = _lint(tmp_path / "src", tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Contracts: 0 kept, 2 broken." in result.stdout
    assert reported in result.stdout
