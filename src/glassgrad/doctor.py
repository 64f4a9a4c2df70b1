"""glassgrad doctor: run a program with the glass on, on glassgrad's engine or on real PyTorch, and report.

The engine is the one the program imports: a script that says `import torch` runs on real PyTorch when
it is installed (on glassgrad otherwise), one that says `import glassgrad` runs on glassgrad. `engine=`
(the command's --engine) overrides: "glassgrad" runs an `import torch` script on glassgrad through an
import alias, "torch" runs it on real PyTorch with the torch glass (diagnostics/torch_glass.py).

For notebooks and training code that stays in one process, `watch_torch()` turns the glass on real
PyTorch on for a block.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import runpy
import sys
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _sites as sites
from . import diagnostics
from .diagnostics.inspect import GraphReport, SiteBytes
from .diagnostics.torch_glass import watch_torch
from .diagnostics.views import NATIVE, GraphView
from .distributed.distributed_c10d import launched_rank

ENGINES = ("glassgrad", "torch")

__all__ = ["ENGINES", "Report", "choose_engine", "diagnose", "run", "watch_torch"]


class UsageError(ValueError):
    """The program cannot run on the engine asked for."""


def imported_engines(script: str) -> set[str]:
    """Which of torch and glassgrad the script imports (anywhere in its text)."""
    tree = ast.parse(Path(script).read_text(encoding="utf-8"), filename=script)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names & set(ENGINES)


def torch_installed() -> bool:
    return importlib.util.find_spec("torch") is not None


def choose_engine(script: str, asked: str | None = None) -> tuple[str, bool]:
    """(engine, alias): the engine to run on, and whether `import torch` must be turned into glassgrad."""
    imports = imported_engines(script)
    if asked == "torch":
        if "glassgrad" in imports:
            raise UsageError(f"{script} imports glassgrad, so it cannot run on real PyTorch; drop --engine torch")
        if not torch_installed():
            raise UsageError("--engine torch needs PyTorch installed (pip install torch==2.13.0)")
        return "torch", False
    if asked == "glassgrad" or "glassgrad" in imports or "torch" not in imports:
        return "glassgrad", "torch" in imports
    return ("torch", False) if torch_installed() else ("glassgrad", True)


def _missing_import(error: ImportError) -> str | None:
    """`from torch import x` of a name glassgrad lacks reaches the user as Python's ImportError: name it."""
    found = re.match(r"cannot import name '(\w+)' from '(glassgrad[\w.]*)'", str(error))
    if found is None:
        return None
    name, module = found.groups()
    user = [f for f in traceback.extract_tb(error.__traceback__) if not sites.is_internal(f.filename)]
    where = f" (imported at {user[-1].filename}:{user[-1].lineno})" if user else ""
    return f"glassgrad does not implement torch{module.removeprefix('glassgrad')}.{name} yet{where}"


def run(script: str, args: list[str], alias: bool) -> tuple[int, dict[str, Any], BaseException | None]:
    """Run the script as __main__ with `args`; (exit status, its globals, the exception it ended with)."""
    from .torch_alias import torch_is_glassgrad

    sys.argv = [script, *args]
    sys.path.insert(0, str(Path(script).resolve().parent))
    namespace: dict[str, Any] = {}
    with torch_is_glassgrad() if alias else nullcontext():
        try:
            namespace = runpy.run_path(script, run_name="__main__")
        except SystemExit as exit_:
            code = exit_.code
            return (code if isinstance(code, int) else (0 if code is None else 1)), namespace, None
        except BaseException as error:  # the report still runs; the script's status is its failure
            if alias and isinstance(error, ImportError) and (note := _missing_import(error)):
                error.add_note(note)
            return 1, namespace, error
    return 0, namespace, None


def per_rank(path: str, rank: tuple[int, int] | None) -> str:
    """report.json -> report.rank1.json when several ranks each write their own report."""
    if rank is None or rank[1] == 1:
        return path
    target = Path(path)
    return str(target.with_name(f"{target.stem}.rank{rank[0]}{target.suffix}"))


def full_message(error: BaseException) -> str:
    """What a person reads: the message, then the notes (where the torch glass puts its explanation)."""
    return "\n\n".join([str(error), *getattr(error, "__notes__", ())])


def error_json(error: BaseException) -> dict[str, Any]:
    """The error and, under "cause", the one it was raised from or while handling (a library that wraps PyTorch's
    error in its own keeps the explanation on the inner one), chained as Python's traceback chains them."""
    chain = [error]
    while True:
        inner = error.__cause__ if error.__cause__ is not None or error.__suppress_context__ else error.__context__
        if inner is None or any(inner is seen for seen in chain):
            break
        chain.append(error := inner)
    described: dict[str, Any] | None = None
    for each in reversed(chain):
        described = {"type": type(each).__name__, "message": full_message(each), "cause": described}
    assert described is not None
    return described


@dataclass
class Report:
    script: str
    engine: str
    exit_status: int
    error: BaseException | None = None
    history: list[tuple[int, int, int]] = field(default_factory=list)  # (step, live nodes, live saved bytes) per backward
    cuda_allocated: list[int] | None = None  # torch.cuda.memory_allocated() before each backward, on real PyTorch with a GPU
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (category, message)
    live: list[SiteBytes] = field(default_factory=list)
    graph: GraphReport | None = None
    graph_name: str | None = None
    rank: tuple[int, int] | None = field(default_factory=launched_rank)  # (rank, world size) under MPI or torchrun

    @property
    def where(self) -> str:
        return "" if self.rank is None else f" (rank {self.rank[0]} of {self.rank[1]})"

    @property
    def peak_saved_bytes(self) -> int:
        return max((b for _, _, b in self.history), default=0)

    def engine_line(self) -> str:
        if self.engine == "torch":
            import torch

            return f"engine: torch {torch.__version__} (real PyTorch, with the glass)"
        from . import __version__

        return f"engine: glassgrad {__version__}"

    def to_json(self) -> dict[str, Any]:
        """The machine-readable report (README: "The doctor's JSON report")."""
        return {
            "script": self.script,
            "engine": self.engine,
            "rank": None if self.rank is None else self.rank[0],
            "world_size": 1 if self.rank is None else self.rank[1],
            "exit_status": self.exit_status,
            "backward_passes": len(self.history),
            "peak_saved_bytes": self.peak_saved_bytes,
            "cuda_memory_allocated": self.cuda_allocated,
            "error": None if self.error is None else error_json(self.error),
            "warnings": [{"category": category, "message": message} for category, message in self.warnings],
            "graphs_alive_at_exit": [
                {"created_at": sites.format_site(row.site), "nodes": row.nodes, "saved_bytes": row.saved_bytes} for row in self.live
            ],
        }


def _largest_graph(view: GraphView, namespace: dict[str, Any]) -> tuple[str, GraphReport] | None:
    """The biggest graph behind any tensor the script left in its globals."""
    best: tuple[str, GraphReport] | None = None
    for name, value in namespace.items():
        if issubclass(type(value), view.tensor_type) and view.grad_fn(value) is not None:
            report = view.describe([view.grad_fn(value)])
            if best is None or len(report.nodes) > len(best[1].nodes):
                best = (name, report)
    return best


@contextmanager
def _glass(engine: str) -> Iterator[tuple[GraphView, Any]]:
    """The watches of the engine: (its view, its WatchState) while the block runs."""
    if engine == "torch":
        with watch_torch() as glass:
            yield glass.view, glass
    else:
        with diagnostics.watch() as state:
            yield NATIVE, state


def _globals_at(error: BaseException, script: str) -> dict[str, Any]:
    """The script's globals as they were when it failed (runpy returns none then): from its module frame."""
    traceback_ = error.__traceback__
    while traceback_ is not None:
        code = traceback_.tb_frame.f_code
        if code.co_name == "<module>" and code.co_filename == script:  # runpy compiles it under the path as given
            return traceback_.tb_frame.f_globals
        traceback_ = traceback_.tb_next
    return {}


def diagnose(script: str, args: list[str], engine: str | None = None) -> Report:
    """Run the script with the glass on and gather what it saw."""
    chosen, alias = choose_engine(script, engine)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", diagnostics.GraphWarning)
        with _glass(chosen) as (view, glass):
            status, namespace, error = run(script, args, alias)
            state = glass.watches if chosen == "torch" else glass
            state.ended(namespace if error is None else _globals_at(error, script))
            report = Report(script, chosen, status, error, list(state.history))
            if chosen == "torch" and glass.cuda_allocated is not None:
                report.cuda_allocated = list(glass.cuda_allocated)
            report.live = glass.live_graphs() if chosen == "torch" else diagnostics.live_graphs()
            largest = _largest_graph(view, namespace)
    for w in caught:
        if issubclass(w.category, diagnostics.GraphWarning):
            report.warnings.append((w.category.__name__, str(w.message)))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    if largest is not None:
        report.graph_name, report.graph = largest
    return report


def _traceback(error: BaseException) -> str:
    """The script's traceback without the frames of the runner and the glass (glassgrad's own, runpy's)."""
    shown = traceback.TracebackException.from_exception(error)
    frames = [f for f in shown.stack if not sites.is_internal(f.filename) and not f.filename.startswith("<frozen runpy")]
    shown.stack = traceback.StackSummary.from_list(frames)
    return "".join(shown.format())


def render(report: Report) -> None:
    """The report on the terminal (stderr), with rich."""
    from rich.console import Console
    from rich.panel import Panel
    from rich.table import Table

    console = Console(stderr=True)
    if report.error is not None:
        console.print(_traceback(report.error), markup=False, highlight=False)
    console.rule(f"glassgrad doctor: {report.script}{report.where}")
    console.print(report.engine_line(), markup=False, highlight=False)
    console.print(
        f"{len(report.history)} backward passes, peak live saved bytes {report.peak_saved_bytes:,}, exit status {report.exit_status}"
    )
    for _, message in report.warnings:
        console.print(Panel(message, title=f"warning{report.where}", border_style="yellow"), markup=False, highlight=False)
    if report.cuda_allocated:
        console.print(f"CUDA memory allocated before a backward: peak {max(report.cuda_allocated):,} bytes")
    if not report.warnings:
        console.print("No graph-lifetime warnings.")
    if report.live:
        table = Table("saved bytes", "nodes", "created at", title="graphs alive at exit, by creation site")
        for row in report.live[:10]:
            table.add_row(f"{row.saved_bytes:,}", str(row.nodes), sites.format_site(row.site))
        console.print(table)
    if report.error is not None:
        title = f"the script failed{report.where}: {type(report.error).__name__}"
        console.print(Panel(full_message(report.error), title=title, border_style="red"), markup=False, highlight=False)


def html(report: Report) -> str:
    title = f"glassgrad doctor: {report.script}{report.where}" + (f" (graph of `{report.graph_name}`)" if report.graph_name else "")
    messages = [message for _, message in report.warnings]
    return diagnostics.html_report(report.graph or GraphReport(), report.history, messages, title=title)
