"""Hooks over several tensors at once, and callbacks at the end of a backward: torch.autograd.graph's
register_multi_grad_hook and the engine's queue_callback.

They sit above the engine because they ask it which backward is running and which nodes that backward will run;
autograd/__init__.py puts register_multi_grad_hook into torch.autograd.graph's namespace, where PyTorch has it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Literal

from ..tensor import Tensor
from . import engine
from .graph import RemovableHandle, edge_to


class MultiHandle(RemovableHandle):
    """One handle over the per-tensor hooks a multi-grad hook is made of."""

    def __init__(self, handles: tuple[RemovableHandle, ...]) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def _current_task() -> engine.GraphTask:
    if not engine.running:
        raise AssertionError("expected this hook to be called inside a backward call")
    return engine.running[-1]


def register_multi_grad_hook(
    tensors: Sequence[Tensor], fn: Callable[..., None], *, mode: Literal["all", "any"] = "all"
) -> RemovableHandle:
    """mode "all": fn(grads) once per backward, after the gradient of every one of `tensors` that backward computes
    (None for the others); mode "any": fn(grad) with the first of them a backward computes."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    if mode == "all":
        hook_for = _all_mode(tensors, fn)
        return MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)))
    ran: set[int] = set()  # backward calls whose first gradient fn has seen
    lock = threading.Lock()

    def first_only(grad: Tensor) -> None:
        task = _current_task()
        with lock:
            if task.id in ran:
                return
            ran.add(task.id)
        fn(grad)

    return MultiHandle(tuple(t.register_hook(first_only) for t in tensors if t.requires_grad))


def _all_mode(tensors: Sequence[Tensor], fn: Callable[..., None]) -> Callable[[int], Callable[[Tensor], None]]:
    nodes = [edge_to(t)[0] for t in tensors]
    pending: dict[int, tuple[list[Tensor | None], list[int]]] = {}  # per backward call: the gradients, and how many are due
    lock = threading.Lock()

    def hook_for(index: int) -> Callable[[Tensor], None]:
        def collect(grad: Tensor) -> None:
            task = _current_task()
            with lock:
                if task.id not in pending:  # the first of them in this backward: count the ones it will compute
                    due = sum(node is not None and task.will_execute(node) for node in nodes)
                    pending[task.id] = ([None] * len(tensors), [due])
                grads, left = pending[task.id]
                grads[index] = grad
                left[0] -= 1
                done = left[0] == 0
                if done:
                    del pending[task.id]
            if done:
                fn(grads)

        return collect

    return hook_for


def queue_callback(callback: Callable[[], Any]) -> None:
    """Run `callback` when the backward now running has finished (Variable._execution_engine.queue_callback)."""
    if not engine.running:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    engine.running[-1].callbacks.append(callback)
