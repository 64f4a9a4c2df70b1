"""`%load_ext glassgrad` in a real Jupyter kernel (ipykernel, driven by nbclient): errors explained under the cell,
the watches' warnings under the cell that caused them, every cell."""

from __future__ import annotations

from pathlib import Path

import pytest

nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install '.[test]')")
nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install '.[test]')")
pytest.importorskip("ipykernel", reason="ipykernel is not installed (pip install '.[test]')")

pytestmark = pytest.mark.torch_oracle

SECOND_BACKWARD = """\
x = torch.ones(3, requires_grad=True)
loss = x.exp().sum()
loss.backward()
loss.backward()
"""
RUNNING_TOTAL = """\
w = torch.ones(3, requires_grad=True)
total = 0
for step in range(5):
    loss = (w * 2).sum()
    loss.backward()
    total = total + loss
"""


def executed(tmp_path: Path, *cells: str) -> list[list[dict]]:
    """Every cell's outputs, run in one fresh kernel."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    client = nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    return [cell.outputs for cell in notebook.cells]


def text(outputs: list[dict]) -> str:
    parts = []
    for output in outputs:
        if output["output_type"] == "stream":
            parts.append(output["text"])
        elif output["output_type"] == "error":
            parts.append("\n".join(output["traceback"]))
    return "\n".join(parts)


def test_the_glass_is_on_for_every_cell(tmp_path: Path) -> None:
    loaded, imported, failed, leaking, again, unloaded = executed(
        tmp_path, "%load_ext glassgrad", "import torch", SECOND_BACKWARD, RUNNING_TOTAL, RUNNING_TOTAL,
        "%unload_ext glassgrad\n" + RUNNING_TOTAL,
    )
    assert loaded == [] and imported == []
    [error] = [o for o in failed if o["output_type"] == "error"]
    assert error["ename"] == "RuntimeError" and error["evalue"].startswith("Trying to backward through the graph a second time")
    assert "glassgrad: ExpBackward0 needs its saved 'result'" in text(failed)
    for cell in (leaking, again):  # said under each cell that does it
        assert "GraphWarning" in text(cell) and "total = total + loss" in text(cell)
    assert "GraphWarning" not in text(unloaded)
