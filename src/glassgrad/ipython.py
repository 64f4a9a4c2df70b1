"""`%load_ext glassgrad`: the glass on for every cell of an IPython or Jupyter session.

Programs in a notebook say `import torch`: real PyTorch, when it is installed, runs under the torch glass
(diagnostics/torch_glass.py) from the moment the extension loads; glassgrad's own engine has its watches on too.
A graph error raised in a cell carries glassgrad's explanation as an exception note, shown under PyTorch's
message in the cell's traceback; a watch's GraphWarning is shown under the cell that caused it, once per cell.
`%unload_ext glassgrad` takes it all off again.
"""

from __future__ import annotations

from typing import Any

from . import diagnostics
from .diagnostics.watches import WatchState
from .doctor import torch_installed


class CellGlass:
    """The glass of one IPython session, with the IPython events it listens to."""

    def __init__(self) -> None:
        self.torch_glass: Any = None

    def load(self, ipython: Any) -> None:
        diagnostics.enable()
        if torch_installed():
            from .diagnostics.torch_glass import TorchGlass

            self.torch_glass = TorchGlass()
            self.torch_glass.install()
        ipython.events.register("pre_run_cell", self.pre_run_cell)
        ipython.events.register("post_run_cell", self.post_run_cell)

    def unload(self, ipython: Any) -> None:
        ipython.events.unregister("pre_run_cell", self.pre_run_cell)
        ipython.events.unregister("post_run_cell", self.post_run_cell)
        if self.torch_glass is not None:
            self.torch_glass.uninstall()
        diagnostics.disable()

    def _watches(self) -> list[WatchState]:
        from .autograd import seams

        states = [seams.watcher] if isinstance(seams.watcher, WatchState) else []
        return states + ([self.torch_glass.watches] if self.torch_glass is not None else [])

    def pre_run_cell(self, info: Any = None) -> None:
        """A new cell: what an earlier cell was warned about is said again if this one does it too."""
        for state in self._watches():
            state.warned.clear()

    def post_run_cell(self, result: Any = None) -> None:
        """Warnings queued by finalizers during the cell (a retained graph that died unused) are shown under it."""
        for state in self._watches():
            state.flush()


_session: CellGlass | None = None


def load(ipython: Any) -> None:
    global _session
    if _session is None:
        _session = CellGlass()
        _session.load(ipython)


def unload(ipython: Any) -> None:
    global _session
    if _session is not None:
        _session.unload(ipython)
        _session = None
