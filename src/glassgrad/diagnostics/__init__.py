"""The glass: where graph nodes came from, what they hold, and why an error fired.

- inspect(t): the graph behind t, its saved buffers (bytes, state) and leaves;
- live_graphs() / live_graph_bytes(): every graph still alive, grouped by creation site;
- step(): the step counter (it advances at every backward and optimizer step);
- watch() / enable() / disable(): watches that warn about graph-lifetime mistakes as they happen;
- to_dot / to_svg / html_report: pictures of a graph.
"""

from __future__ import annotations

from ..autograd import seams, steps
from . import explain
from .inspect import GraphReport, NodeInfo, SavedBuffer, SiteBytes, describe, inspect, live_graph_bytes, live_graphs
from .render import GraphvizMissing, html_report, to_dot, to_svg
from .watches import GraphWarning, disable, enable, watch

seams.explainer = explain  # graph errors now explain themselves after PyTorch's sentence


def step() -> int:
    """The current step: how many backward passes and optimizer steps have run."""
    return steps.current


__all__ = [
    "GraphReport", "GraphWarning", "GraphvizMissing", "NodeInfo", "SavedBuffer", "SiteBytes", "describe", "disable",
    "enable", "html_report", "inspect", "live_graph_bytes", "live_graphs", "step", "to_dot", "to_svg", "watch",
]
