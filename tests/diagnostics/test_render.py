"""Pictures: DOT text, Graphviz SVG, and an HTML report that a real browser draws without errors."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import glassgrad as gg
from glassgrad import diagnostics


def small_graph() -> gg.Tensor:
    x = gg.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    w = gg.tensor([[0.1], [0.2], [0.3]], requires_grad=True)
    return (x @ w).tanh().sum()


def test_inspect_lists_nodes_buffers_and_states() -> None:
    loss = small_graph()
    report = diagnostics.inspect(loss)
    assert [n.name for n in report.nodes][:3] == ["SumBackward0", "TanhBackward0", "MmBackward0"]
    assert len(report.leaves) == 2
    tanh = report.nodes[1]
    assert [(b.name, b.shape, b.nbytes, b.state) for b in tanh.saved] == [("result", (1, 1), 4, "alive")]
    loss.backward()
    assert {b.state for n in diagnostics.inspect(loss).nodes for b in n.saved} == {"released"}
    assert diagnostics.inspect(loss).saved_bytes == 0


def test_live_graphs_groups_saved_bytes_by_creation_site() -> None:
    loss = small_graph()
    rows = [r for r in diagnostics.live_graphs() if r.site is not None and r.site[0].co_filename == __file__]
    graph_line = small_graph.__code__.co_firstlineno + 3  # `return (x @ w).tanh().sum()`
    assert any(r.site[1] == graph_line and r.saved_bytes > 0 for r in rows), rows
    assert diagnostics.live_graph_bytes() >= diagnostics.inspect(loss).saved_bytes


def test_dot_text_has_every_node_and_edge() -> None:
    dot = diagnostics.to_dot(diagnostics.inspect(small_graph()))
    assert dot.startswith('digraph "glassgrad"')
    assert len(re.findall(r"^  n\d+ \[label=", dot, re.M)) == 5
    assert len(re.findall(r"^  n\d+ -> n\d+;", dot, re.M)) == 4


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed (make test installs it)")
def test_svg_through_graphviz() -> None:
    svg = diagnostics.to_svg(diagnostics.inspect(small_graph()))
    assert "<svg" in svg and "TanhBackward0" in svg


def test_svg_without_graphviz_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(diagnostics.GraphvizMissing, match="apt-get install graphviz"):
        diagnostics.to_svg(diagnostics.inspect(small_graph()))


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(chromium() is None, reason="Debian's chromium is not installed (make test installs it)")
def test_html_report_draws_in_headless_chromium(tmp_path: Path) -> None:
    loss = small_graph()
    page = tmp_path / "report.html"
    page.write_text(diagnostics.html_report(diagnostics.inspect(loss), [(0, 5, 120), (1, 5, 40), (2, 9, 300)], ["a warning"]))
    browser = subprocess.run(
        [
            chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000", "--dump-dom", page.as_uri(),
        ],
        capture_output=True, text=True, timeout=120, check=True,
    )
    dom = browser.stdout
    assert 'data-ready="yes"' in dom, "the report's script did not run to the end"
    assert len(re.findall(r'<g class="node"', dom)) == 5
    assert re.search(r'<polyline class="series" points="[\d., ]+"', dom)
    console_errors = [line for line in browser.stderr.splitlines() if "CONSOLE" in line and ("Uncaught" in line or "ERROR" in line)]
    assert console_errors == []
