"""Where glassgrad.diagnostics plugs into the core, which never imports it.

The core (tensor, graph, grad mode, engine) records the facts: each node's creation site and
step, which backward call freed it, where an in-place op last changed a tensor. What is made of
them (the explanation after PyTorch's sentence in an error, the watches) lives in
glassgrad.diagnostics, which fills these two seams:

- `explainer`: registered when glassgrad.diagnostics is imported (glassgrad's own __init__ does);
  until then graph errors carry PyTorch's sentence alone;
- `watcher`: the watches while they are on (diagnostics.watches.enable()/watch()), else None.
  The core checks it for None before each call, so watches cost nothing while off;
- `tracked`: while the watches are on, their list of weak references to the nodes made since, which
  the core appends to itself (a call into the watches for every node would cost W1 a tenth more);
  past `tracked_limit` entries it asks the watcher to drop the dead ones (`prune()`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .._sites import Position
    from ..tensor import Tensor
    from .graph import Node, SavedTensor


class Explainer(Protocol):
    """The text that follows PyTorch's first sentence in each graph error ('' for none)."""

    def freed(self, node: Node, saved: SavedTensor | None) -> str: ...

    def version(self, node: Node, saved: SavedTensor) -> str: ...

    def no_grad_fn(self, tensor: Tensor) -> str: ...

    def non_scalar_root(self, tensor: Tensor) -> str: ...

    def leaf_inplace(self, tensor: Tensor, view: bool) -> str: ...


class Watcher(Protocol):
    """Told of every backward pass and optimizer step while the watches are on; the nodes made go to `tracked`."""

    def prune(self) -> None: ...

    def before_backward(
        self,
        roots: list[Any],
        reachable: Iterable[Any],
        keep_graph: bool,
        position: Position | None,
        create_graph: bool = False,
        accumulate: bool = True,
    ) -> None: ...

    def after_backward(self) -> None: ...

    def optimizer_stepped(self) -> None: ...


class _PyTorchSentenceAlone:
    def freed(self, node: Node, saved: SavedTensor | None) -> str:
        return ""

    def version(self, node: Node, saved: SavedTensor) -> str:
        return ""

    def no_grad_fn(self, tensor: Tensor) -> str:
        return ""

    def non_scalar_root(self, tensor: Tensor) -> str:
        return ""

    def leaf_inplace(self, tensor: Tensor, view: bool) -> str:
        return ""


explainer: Explainer = _PyTorchSentenceAlone()
watcher: Watcher | None = None
tracked: list[Any] | None = None
tracked_limit = 0
