"""Pictures of graphs: Graphviz DOT and SVG, and a self-contained interactive HTML report.

DOT is written here as text; SVG layout needs Graphviz's `dot` program (Debian's `graphviz`,
driven through the `graphviz` Python package). The HTML report lays its graph out itself
(layers by distance from the root), so it needs nothing beyond a browser, not even a network.
"""

from __future__ import annotations

import html
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass

from .._sites import format_site, source_line
from .inspect import GraphReport, NodeInfo

STATE_COLOURS = {"alive": "#f4a261", "retained": "#e63946", "released": "#adb5bd", "none": "#ffffff", "leaf": "#8ecae6"}


def node_state(node: NodeInfo) -> str:
    if node.leaf_shape is not None:
        return "leaf"
    states = {b.state for b in node.saved}
    for state in ("retained", "alive", "released"):
        if state in states:
            return state
    return "none"


def _label(node: NodeInfo) -> str:
    lines = [node.name.removeprefix("torch::autograd::")]
    if node.leaf_shape is not None:
        lines.append(f"leaf {'x'.join(map(str, node.leaf_shape)) or 'scalar'}")
    for b in node.saved:
        lines.append(f"{b.name}: {'x'.join(map(str, b.shape)) or 'scalar'} {b.dtype} {b.nbytes:,} B ({b.state})")
    if node.site is not None:
        lines.append(format_site(node.site).rsplit("/", 1)[-1])
    return "\n".join(lines)


def to_dot(report: GraphReport, name: str = "glassgrad") -> str:
    """The graph as Graphviz DOT text, nodes coloured by the state of their saved buffers."""
    out = [f'digraph "{name}" {{', "  rankdir=TB;", '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];']
    for i, node in enumerate(report.nodes):
        label = _label(node).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        out.append(f'  n{i} [label="{label}", fillcolor="{STATE_COLOURS[node_state(node)]}"];')
    out += [f"  n{i} -> n{child};" for i, node in enumerate(report.nodes) for child in node.children]
    out.append("}")
    return "\n".join(out)


class GraphvizMissing(RuntimeError):
    """SVG export needs Graphviz's `dot` program and the graphviz Python package."""


def to_svg(report: GraphReport) -> str:
    """The graph laid out by Graphviz as SVG text."""
    if shutil.which("dot") is None:
        raise GraphvizMissing(
            "SVG export needs Graphviz's `dot` program, which is not on PATH. Install it (Debian: apt-get install "
            "graphviz), or write the DOT text from to_dot() and lay it out elsewhere."
        )
    try:
        import graphviz
    except ImportError:
        raise GraphvizMissing("SVG export needs the graphviz Python package: pip install 'glassgrad[viz]'") from None
    return graphviz.Source(to_dot(report)).pipe(format="svg", encoding="utf-8")


# -- the HTML report -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Placed:
    x: float
    y: float
    r: float


def _layout(report: GraphReport, width: float = 900) -> tuple[list[_Placed], float]:
    """Layers by longest distance from a root; nodes spread evenly in each layer, sized by saved bytes."""
    depth = [0] * len(report.nodes)
    for i, node in enumerate(report.nodes):  # nodes come in a depth-first order from the roots
        for child in node.children:
            depth[child] = max(depth[child], depth[i] + 1)
    for _ in range(len(report.nodes)):  # settle to the longest path (a DAG: at most n rounds)
        changed = False
        for i, node in enumerate(report.nodes):
            for child in node.children:
                if depth[child] < depth[i] + 1:
                    depth[child], changed = depth[i] + 1, True
        if not changed:
            break
    layers: dict[int, list[int]] = {}
    for i, d in enumerate(depth):
        layers.setdefault(d, []).append(i)
    largest = max((n.saved_bytes + sum(b.nbytes for b in n.saved) for n in report.nodes), default=1) or 1
    placed: list[_Placed] = [_Placed(0, 0, 0)] * len(report.nodes)
    for d, members in layers.items():
        for k, i in enumerate(members):
            size = sum(b.nbytes for b in report.nodes[i].saved)
            placed[i] = _Placed(width * (k + 1) / (len(members) + 1), 50 + 90 * d, 10 + 22 * (size / largest) ** 0.5)
    return placed, 100 + 90 * max(depth, default=0)


def _graph_svg(report: GraphReport) -> str:
    placed, height = _layout(report)
    parts = [f'<svg id="graph" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 900 {height:.0f}" width="100%">']
    for i, node in enumerate(report.nodes):
        for child in node.children:
            a, b = placed[i], placed[child]
            parts.append(f'<line class="edge" x1="{a.x:.1f}" y1="{a.y:.1f}" x2="{b.x:.1f}" y2="{b.y:.1f}"/>')
    for i, node in enumerate(report.nodes):
        p = placed[i]
        state = node_state(node)
        parts.append(
            f'<g class="node" data-index="{i}"><title>{html.escape(_label(node))}</title>'
            f'<circle cx="{p.x:.1f}" cy="{p.y:.1f}" r="{p.r:.1f}" fill="{STATE_COLOURS[state]}" class="{state}"/>'
            f'<text x="{p.x:.1f}" y="{p.y + p.r + 12:.1f}">{html.escape(node.name.removeprefix("torch::autograd::"))}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _plot_svg(history: Sequence[tuple[int, int, int]]) -> str:
    """Live saved bytes per step as a polyline with its axes labelled."""
    w, h, pad = 900, 220, 50
    if not history:
        return f'<svg id="plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}"><text x="{pad}" y="{h / 2}">no steps recorded</text></svg>'
    steps = [s for s, _, _ in history]
    values = [b for _, _, b in history]
    top = max(values) or 1
    span = max(steps[-1] - steps[0], 1)
    points = " ".join(
        f"{pad + (w - 2 * pad) * (s - steps[0]) / span:.1f},{h - pad - (h - 2 * pad) * v / top:.1f}" for s, v in zip(steps, values, strict=True)
    )
    return (
        f'<svg id="plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="100%">'
        f'<line class="axis" x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}"/>'
        f'<line class="axis" x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}"/>'
        f'<text x="{pad}" y="{pad - 10}">{top:,} bytes</text>'
        f'<text x="{w - pad}" y="{h - pad + 20}" text-anchor="end">step {steps[-1]}</text>'
        f'<text x="{pad}" y="{h - pad + 20}">step {steps[0]}</text>'
        f'<polyline class="series" points="{points}"/></svg>'
    )


_STYLE = """
body { font-family: Helvetica, Arial, sans-serif; margin: 2em; color: #222; }
.edge { stroke: #999; stroke-width: 1.2; }
.node circle { stroke: #333; stroke-width: 1; cursor: pointer; }
.node text { font-size: 10px; text-anchor: middle; }
.node.selected circle { stroke: #000; stroke-width: 3; }
.axis { stroke: #333; }
.series { fill: none; stroke: #e63946; stroke-width: 2; }
#details { white-space: pre; font-family: monospace; background: #f6f6f6; padding: 1em; min-height: 3em; }
.warning { white-space: pre-wrap; font-family: monospace; background: #fff3cd; padding: .5em; margin: .5em 0; }
.legend span { display: inline-block; padding: 0 .6em; margin-right: .4em; border: 1px solid #333; }
"""

_SCRIPT = """
const nodes = JSON.parse(document.getElementById('nodes').textContent);
document.querySelectorAll('#graph .node').forEach(function (g) {
  g.addEventListener('click', function () {
    document.querySelectorAll('#graph .node.selected').forEach(function (s) { s.classList.remove('selected'); });
    g.classList.add('selected');
    document.getElementById('details').textContent = nodes[Number(g.dataset.index)];
  });
});
document.body.dataset.ready = 'yes';
"""


def html_report(report: GraphReport, history: Sequence[tuple[int, int, int]] = (), warnings: Sequence[str] = (), title: str = "glassgrad report") -> str:
    """One self-contained page: the graph, live saved bytes per step, and the watches' warnings."""
    details = [f"{_label(n)}\n\n{source_line(n.site)}" for n in report.nodes]
    legend = "".join(f'<span style="background:{c}">{s}</span>' for s, c in STATE_COLOURS.items())
    warning_items = "".join(f'<div class="warning">{html.escape(w)}</div>' for w in warnings) or "<p>No warnings.</p>"
    nodes_json = json.dumps(details).replace("</", "<\\/")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>{_STYLE}</style></head>
<body>
<h1>{html.escape(title)}</h1>
<p>{len(report.nodes)} nodes, {len(report.leaves)} leaves, {report.saved_bytes:,} saved bytes alive.
Nodes are coloured by the state of their saved buffers and sized by their bytes; hover for the creation site, click for details.</p>
<p class="legend">{legend}</p>
{_graph_svg(report)}
<div id="details">Click a node.</div>
<h2>Live saved bytes per step</h2>
{_plot_svg(history)}
<h2>Warnings</h2>
{warning_items}
<script type="application/json" id="nodes">{nodes_json}</script>
<script>{_SCRIPT}</script>
</body></html>
"""
