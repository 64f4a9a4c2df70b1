"""torch.export: capturing a program into an ExportedProgram graph. glassgrad runs programs eagerly and records
autograd graphs only, so importing works and every name raises, saying glassgrad does not provide it."""

from __future__ import annotations

from ._missing import unprovided_module as _unprovided_module

__getattr__ = _unprovided_module(
    __name__, "glassgrad runs programs eagerly and has no tracer that captures one into a graph"
)
