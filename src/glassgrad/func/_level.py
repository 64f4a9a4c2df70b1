"""One application of a reverse-mode transform (grad, vjp, jacrev) on glassgrad's single tape.

functorch gives every transform its own level and wraps tensors per level, so that what a transform
computes for itself never shows to the code around it. glassgrad has one tape, so a level is told
apart by what it made:

- each differentiated argument becomes a fresh leaf, owned by the level; an argument that the code
  outside is itself differentiating (it requires grad, and grad mode was on when the transform was
  entered) becomes a view of it instead, so that the outer graph goes on through the transform;
- a result is "outside-connected" when its graph reaches something the level did not make: a leaf it
  does not own, or a node recorded before the level began. Only then must its gradients be built
  with create_graph, and only such results keep their history when handed back; the others are
  detached, as functorch's unwrapping leaves them.

So grad(grad(f)), a MAML inner step over parameters that require grad, and per-sample gradients of
detached parameters all get what functorch gives them, and a level whose results are not connected
keeps no graph alive once it returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..autograd import engine, forward_ad, grad_mode
from ..autograd.graph import AccumulateGrad, Node, _sequence
from ..ops.creation import zeros_like
from ..tensor import Tensor


class Level:
    """What one transform call made, and whether its results reach beyond it."""

    def __init__(self) -> None:
        self.outer_grad = grad_mode.is_grad_enabled()  # the code around the transform records only if this was on
        self.start = next(_sequence)  # every node numbered below this was recorded before the level began
        self.leaves: dict[int, Tensor] = {}  # the leaves made for the differentiated arguments, by id

    def differentiable(self, x: Any) -> Tensor:
        """The tensor a differentiated argument is replaced with inside the transform."""
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if self.outer_grad and x.requires_grad:
            return x.view_as(x)  # a new tensor to differentiate by, whose history runs on into the outer graph
        leaf = forward_ad.keeping_tangent(x, x.detach().requires_grad_())
        self.leaves[id(leaf)] = leaf
        return leaf

    def reaches_outside(self, tensors: Sequence[Any]) -> bool:
        """Whether the graph of any of `tensors` reaches a leaf or a node this level did not make."""
        if not self.outer_grad:
            return False
        stack: list[Node] = []
        for t in tensors:
            if not isinstance(t, Tensor) or not t.requires_grad:
                continue
            if t.grad_fn is None:
                if id(t) not in self.leaves:
                    return True
                continue
            stack.append(t.grad_fn)
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if type(node) is AccumulateGrad:
                if id(node.variable) not in self.leaves:
                    return True
                continue
            if node._sequence_nr < self.start:
                return True
            stack.extend(child for child, _ in node.next_functions if child is not None)
        return False

    def unwrap(self, x: Any) -> Any:
        """A result as the code outside the transform sees it: with its history only if that reaches outside."""
        if isinstance(x, Tensor) and x.requires_grad and not self.reaches_outside([x]):
            return forward_ad.keeping_tangent(x, x.detach())
        return x

    def connected(self, outputs: Sequence[Tensor], cotangents: Sequence[Tensor | None] = ()) -> bool:
        """Whether gradients of `outputs` (weighted by `cotangents`) need a graph: the code outside can
        differentiate them only if the outputs or the cotangents reach outside the level."""
        return self.reaches_outside(outputs) or (
            self.outer_grad and any(c is not None and c.requires_grad for c in cotangents)
        )

    def gradients(
        self,
        outputs: Sequence[Tensor],
        inputs: Sequence[Tensor],
        cotangents: Sequence[Tensor | None] | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
    ) -> tuple[Tensor, ...]:
        """d(outputs)/d(inputs) weighted by the cotangents; zeros where an input does not reach the outputs.

        create_graph should be what connected() says: a graph that nothing outside can differentiate would only
        keep memory alive. Results are unwrapped (see unwrap).
        """
        cots = [None] * len(outputs) if cotangents is None else list(cotangents)
        pairs = [(o, c) for o, c in zip(outputs, cots, strict=True) if o.requires_grad]
        if not pairs:
            return tuple(zeros_like(x) for x in inputs)
        with grad_mode.enable_grad():
            grads = engine.grad(
                [o for o, _ in pairs],
                list(inputs),
                None if cotangents is None else [c for _, c in pairs],
                retain_graph=retain_graph,
                create_graph=create_graph,
                allow_unused=True,
            )
        return tuple(
            zeros_like(x) if g is None else self.unwrap(g) if create_graph else g
            for g, x in zip(grads, inputs, strict=True)
        )
