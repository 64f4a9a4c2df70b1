"""Draw a Chrome trace (trace-event JSON, as export_chrome_trace writes it) as a timeline image.

    python tools/trace_timeline.py trace.json timeline.png [--from-ms A --to-ms B]

Perfetto's UI needs a network this project's machines lack, so docs/profiler.md shows the trace drawn by
this script instead: one row per nesting depth, each complete ('X') event a bar as long as its duration,
coloured by kind (user ranges, forward ops, backward nodes), named where the bar has room. It also checks
the file against the format first: every complete event has a name, ts, dur, pid and tid, and the events
of each thread nest. Needs matplotlib (the `docs` extra).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

_COLOURS = {"user_annotation": "#8fbc8f", "forward": "#6a9fd8", "backward": "#e8a25c"}


def depths(events: list[dict[str, Any]]) -> list[tuple[dict[str, Any], int]]:
    """Each event with its nesting depth in its thread; raises ValueError where two events overlap partly."""
    placed = []
    for tid in sorted({e["tid"] for e in events}):
        ends: list[float] = []
        for event in sorted((e for e in events if e["tid"] == tid), key=lambda e: (e["ts"], -e["dur"])):
            while ends and event["ts"] >= ends[-1]:
                ends.pop()
            end = event["ts"] + event["dur"]
            if ends and end > ends[-1] + 1e-3:
                raise ValueError(f"{event['name']} at {event['ts']} overlaps the event it starts in")
            placed.append((event, len(ends)))
            ends.append(end)
    return placed


def kind(event: dict[str, Any]) -> str:
    if event.get("cat") == "user_annotation":
        return "user_annotation"
    return "backward" if "Backward" in event["name"] or "AccumulateGrad" in event["name"] else "forward"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("image")
    parser.add_argument("--from-ms", type=float, default=None)
    parser.add_argument("--to-ms", type=float, default=None)
    args = parser.parse_args()
    with open(args.trace) as f:
        trace = json.load(f)
    events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    for event in events:
        missing = {"name", "ts", "dur", "pid", "tid"} - event.keys()
        if missing:
            raise ValueError(f"an 'X' event lacks {sorted(missing)}: {event}")
    placed = depths(events)
    origin = min(e["ts"] for e in events)
    start = origin + 1000 * (args.from_ms or 0)
    stop = origin + 1000 * args.to_ms if args.to_ms is not None else max(e["ts"] + e["dur"] for e in events)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    deepest = max(depth for _, depth in placed)
    fig, ax = plt.subplots(figsize=(16, 0.45 * (deepest + 1) + 1.6), dpi=110)
    span = stop - start
    for event, depth in placed:
        left, right = max(event["ts"], start), min(event["ts"] + event["dur"], stop)
        if right <= left:
            continue
        x, width = (left - origin) / 1000, (right - left) / 1000
        ax.broken_barh([(x, width)], (depth, 0.9), facecolors=_COLOURS[kind(event)], edgecolors="white", linewidth=0.4)
        label = event["name"].removeprefix("autograd::engine::evaluate_function: ")
        if (right - left) / span * 16 * 110 > 6.2 * len(label):  # the bar's width in pixels fits the label
            ax.text(x + width / 2, depth + 0.45, label, ha="center", va="center", fontsize=7, clip_on=True)
    ax.set_xlim((start - origin) / 1000, (stop - origin) / 1000)
    ax.set_ylim(deepest + 1, 0)
    ax.set_yticks([d + 0.45 for d in range(deepest + 1)], [f"depth {d}" for d in range(deepest + 1)], fontsize=8)
    ax.set_xlabel("ms since the first event (one thread: on the CPU, backward runs on the calling thread)")
    ax.legend(handles=[Patch(color=c, label=k.replace("_", " ")) for k, c in _COLOURS.items()], loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=8)
    ax.set_title(f"{args.trace.rpartition('/')[2]}: {len(events)} complete events", fontsize=10)
    fig.tight_layout()
    fig.savefig(args.image)


if __name__ == "__main__":
    main()
