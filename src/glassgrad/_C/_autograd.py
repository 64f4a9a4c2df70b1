"""torch._C._autograd: the saved-tensor object and the engine's switches that PyTorch's Python layer (and code that
reaches under it) calls directly."""

from __future__ import annotations

from ..autograd import engine, graph
from ..autograd.graph import SavedTensor
from ..autograd.graph import set_versions as _unsafe_set_version_counter
from ..tensor import Tensor


def _make_saved_tensor(tensor: Tensor, is_output: bool) -> SavedTensor:
    """A SavedTensor of `tensor`, packed by the saved_tensors_hooks in force, as a node would keep it."""
    return SavedTensor("", tensor, is_output)


def _saved_tensors_hooks_is_enabled() -> bool:
    return graph.saved_tensors_hooks_disabled_message() is None


def _get_current_graph_task_keep_graph() -> bool:
    """Whether the backward now running keeps its graph (retain_graph)."""
    if not engine.running:
        raise RuntimeError("_get_current_graph_task_keep_graph can only be called during the backward pass")
    return bool(engine.running[-1].keep_graph)


__all__ = [
    "SavedTensor", "_get_current_graph_task_keep_graph", "_make_saved_tensor", "_saved_tensors_hooks_is_enabled",
    "_unsafe_set_version_counter",
]
