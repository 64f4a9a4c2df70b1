"""The glassgrad command. `glassgrad doctor script.py [args]` runs a script with the watches on and
reports what its graphs did: warnings with the lines to change, live saved bytes per step, and the
graphs still alive at the end."""

from __future__ import annotations

import argparse
import runpy
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

from . import diagnostics
from .tensor import Tensor


def _largest_graph(namespace: dict[str, Any]) -> tuple[str, diagnostics.GraphReport] | None:
    """The biggest graph behind any tensor the script left in its globals."""
    best: tuple[str, diagnostics.GraphReport] | None = None
    for name, value in namespace.items():
        if isinstance(value, Tensor) and value.grad_fn is not None:
            report = diagnostics.inspect(value)
            if best is None or len(report.nodes) > len(best[1].nodes):
                best = (name, report)
    return best


def _run_script(script: str, args: list[str]) -> tuple[int, dict[str, Any], BaseException | None]:
    sys.argv = [script, *args]
    sys.path.insert(0, str(Path(script).resolve().parent))
    namespace: dict[str, Any] = {}
    try:
        namespace = runpy.run_path(script, run_name="__main__")
    except SystemExit as exit_:
        code = exit_.code
        return (code if isinstance(code, int) else (0 if code is None else 1)), namespace, None
    except BaseException as error:  # the report still runs; the script's status is its failure
        return 1, namespace, error
    return 0, namespace, None


def doctor(script: str, args: list[str], html: str | None = None) -> int:
    from rich.console import Console
    from rich.panel import Panel
    from rich.table import Table

    console = Console(stderr=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", diagnostics.GraphWarning)
        with diagnostics.watch() as state:
            status, namespace, error = _run_script(script, args)
            history = list(state.history)
        messages = list(state.messages)
    for w in caught:
        if not issubclass(w.category, diagnostics.GraphWarning):
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    if error is not None:
        console.print("".join(traceback.format_exception(error)), markup=False, highlight=False)

    console.rule(f"glassgrad doctor: {script}")
    peak = max((b for _, _, b in history), default=0)
    console.print(f"{len(history)} backward passes, peak live saved bytes {peak:,}, exit status {status}")
    for message in messages:
        console.print(Panel(message, title="warning", border_style="yellow"), markup=False, highlight=False)
    if not messages:
        console.print("No graph-lifetime warnings.")
    live = diagnostics.live_graphs()
    if live:
        table = Table("saved bytes", "nodes", "created at", title="graphs alive at exit, by creation site")
        for row in live[:10]:
            table.add_row(f"{row.saved_bytes:,}", str(row.nodes), diagnostics.sites.format_site(row.site))
        console.print(table)
    if error is not None:
        console.print(Panel(str(error).split("\n")[0], title=f"the script failed: {type(error).__name__}", border_style="red"),
                      markup=False, highlight=False)
    if html is not None:
        largest = _largest_graph(namespace)
        report = largest[1] if largest else diagnostics.GraphReport()
        title = f"glassgrad doctor: {script}" + (f" (graph of `{largest[0]}`)" if largest else "")
        Path(html).write_text(diagnostics.html_report(report, history, messages, title=title), encoding="utf-8")
        console.print(f"HTML report written to {html}")
    return status




def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="glassgrad", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    doctor_parser = commands.add_parser("doctor", help="run a script with the graph watches on and report")
    doctor_parser.add_argument("--html", metavar="OUT.html", help="also write a self-contained HTML report")
    doctor_parser.add_argument("script")
    doctor_parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    return doctor(options.script, options.args, options.html)


if __name__ == "__main__":
    sys.exit(main())
