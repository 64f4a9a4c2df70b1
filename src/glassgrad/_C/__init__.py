"""torch._C: the few names of PyTorch's C extension that libraries reach for from Python.

Lightning annotates with `_TensorMeta` (the metaclass of Tensor), parses `.to()` arguments with
`_nn._parse_to` and logs API usage with `_log_api_usage_once`; these are their glassgrad equivalents.
"""

import weakref

from .._missing import module_getattr as _module_getattr
from ..autograd import engine
from ..autograd.forward_ad import set_fwd_grad_enabled as _set_fwd_grad_enabled
from ..autograd.grad_mode import _set_view_replay_enabled, _switch_grad, is_grad_enabled, is_multithreading_enabled
from ..autograd.grad_mode import is_view_replay_enabled as _is_view_replay_enabled
from ..autograd.graph import AccumulateGrad, Node
from ..ops.creation import Generator
from ..tensor import Tensor
from . import _autograd, _functions, _nn

_TensorMeta = type(Tensor)


def _log_api_usage_once(event: str) -> None:
    """PyTorch's usage logging: nothing is logged here."""


def _set_grad_enabled(mode: bool) -> None:
    _switch_grad(bool(mode))


# -- what the backward now running is doing (hooks and saved-tensor hooks ask) -----------------------------
def _current_graph_task_id() -> int:
    """The id of the backward call now running (each call a new one, counting up), -1 outside any."""
    return engine.running[-1].id if engine.running else -1


def _current_autograd_node() -> Node | None:
    """The node the backward now running is executing, None outside a backward."""
    return engine.running[-1].current if engine.running else None


def _will_engine_execute_node(node: Node) -> bool:
    """Whether the backward now running will run `node` (or has run it)."""
    if not isinstance(node, Node):
        raise RuntimeError(f"_will_engine_execute_node expects an grad_fn, but got {type(node).__name__}")
    if not engine.running:
        raise RuntimeError("_get_should_execute_nodes should only be called during the backward pass")
    task = engine.running[-1]
    if not task.accumulate and isinstance(node, AccumulateGrad):
        raise RuntimeError(
            "A leaf node was passed to _will_engine_execute_node but we are currently running autograd.grad(). "
            "This is currently not supported."
        )
    return task.will_execute(node)


def _current_graph_task_execution_order() -> list[Node]:
    """The nodes of the backward now running, in the order it runs them."""
    if not engine.running:
        raise RuntimeError("_current_graph_task_execution_order should only be called during the backward pass")
    if is_multithreading_enabled():
        raise RuntimeError(
            "get_current_graph_task_execution_order expects the current backward to be executed with multithreading "
            "disabled, e.g. by running:\n\n>>> with torch.autograd.set_multithreading_enabled(False):\n"
            "...     torch.autograd.grad(...)\n"
        )
    return engine.running[-1].execution_order()


class _WeakTensorRef:
    """A weak reference to a tensor that says whether the tensor is gone."""

    def __init__(self, tensor: Tensor) -> None:
        self._ref = weakref.ref(tensor)

    def expired(self) -> bool:
        return self._ref() is None


# -- cached tensors (CUDA graphs' registry of tensors whose storage they own): only the bookkeeping ----------
# by id: a WeakSet would compare tensors with ==, which is elementwise
_cached: dict[int, weakref.ref[Tensor]] = {}
_caching = [False]


def _set_cached_tensors_enabled(enabled: bool) -> None:
    _caching[0] = enabled


def _add_cached_tensor(tensor: Tensor) -> None:
    if not _caching[0]:
        raise RuntimeError("Tensor caching is not enabled: call torch._C._set_cached_tensors_enabled(True) first")
    key = id(tensor)
    _cached[key] = weakref.ref(tensor, lambda _: _cached.pop(key, None))


def _remove_cached_tensor(tensor: Tensor) -> None:
    if _is_cached_tensor(tensor):
        del _cached[id(tensor)]


def _is_cached_tensor(tensor: Tensor) -> bool:
    ref = _cached.get(id(tensor))
    return ref is not None and ref() is tensor


__all__ = [
    "Generator", "_TensorMeta", "_WeakTensorRef", "_add_cached_tensor", "_autograd", "_current_autograd_node",
    "_current_graph_task_execution_order", "_current_graph_task_id", "_functions", "_is_cached_tensor", "_log_api_usage_once", "_nn", "_remove_cached_tensor",
    "_is_view_replay_enabled", "_set_cached_tensors_enabled", "_set_fwd_grad_enabled", "_set_grad_enabled",
    "_set_view_replay_enabled", "_will_engine_execute_node",
    "is_grad_enabled",
]
__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
