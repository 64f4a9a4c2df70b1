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
from ..ops.creation import ones_like, zeros_like
from ..ops.shape import stack
from ..tensor import Tensor
from ._batched import LEVELS, BatchedTensor, core, levels_of, rewrap, select, spread


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
        plain, rewrap_like_x = spread(x)  # inside vmap: batched at every level, for per-element gradients
        if self.outer_grad and plain.requires_grad:
            return rewrap_like_x(plain.view_as(plain))  # a new tensor to differentiate by, whose history runs on
        leaf = forward_ad.keeping_tangent(plain, plain.detach().requires_grad_())
        self.leaves[id(leaf)] = leaf
        return rewrap_like_x(leaf)

    def reaches_outside(self, tensors: Sequence[Any]) -> bool:
        """Whether the graph of any of `tensors` reaches a leaf or a node this level did not make."""
        if not self.outer_grad:
            return False
        stack: list[Node] = []
        for t in tensors:
            if not isinstance(t, Tensor) or not t.requires_grad:
                continue
            t = core(t)
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
            if node._seq_nr < self.start:
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
        extra = max((_cotangent_only_level(o, c) for o, c in pairs), default=0)
        if extra:
            return self._per_element(extra, outputs, inputs, cots, retain_graph, create_graph)
        if not pairs:
            return tuple(rewrap(zeros_like(core(x)), levels_of(x)) for x in inputs)
        with grad_mode.enable_grad():
            # On the plain tensors that hold the graph: inside vmap, every element's gradient is its own slice.
            grads = engine.grad(
                [core(o) for o, _ in pairs],
                [core(x) for x in inputs],
                [_cotangent_core(o, c) for o, c in pairs],
                retain_graph=retain_graph,
                create_graph=create_graph,
                allow_unused=True,
            )
        grads = tuple(
            rewrap(zeros_like(core(x)) if g is None else g, levels_of(x)) for g, x in zip(grads, inputs, strict=True)
        )
        return tuple(self.unwrap(g) if create_graph else g for g in grads)


    def _per_element(
        self,
        level: int,
        outputs: Sequence[Tensor],
        inputs: Sequence[Tensor],
        cotangents: list[Tensor | None],
        retain_graph: bool | None,
        create_graph: bool,
    ) -> tuple[Tensor, ...]:
        """Gradients for cotangents batched at a vmap level the outputs are not batched at (vmap over a vjp_fn
        made outside it, the Jacobian-by-vmap pattern): one backward per element of that level, stacked."""
        if any(level in levels_of(t) or max(levels_of(t), default=0) > level for t in [*outputs, *inputs]):
            raise NotImplementedError(
                "vmap: cotangents batched at a level below the outputs' own vmap levels; glassgrad cannot batch "
                "that backward pass."
            )
        rows = []
        for i in range(LEVELS[level - 1].batch_size):
            last = i == LEVELS[level - 1].batch_size - 1
            sliced = [select(c, level, i) for c in cotangents]
            rows.append(self.gradients(outputs, inputs, sliced, retain_graph if last else True, create_graph))
        return tuple(BatchedTensor.wrap(stack(list(column)), level) for column in zip(*rows, strict=True))


def _cotangent_only_level(output: Tensor, cotangent: Tensor | None) -> int:
    """The innermost vmap level the cotangent is batched at and its output is not (0 if none)."""
    return max(set(levels_of(cotangent)) - set(levels_of(output)), default=0)


def _cotangent_core(output: Tensor, cotangent: Tensor | None) -> Tensor | None:
    """The cotangent's core tensor, batched at the output's vmap levels to match the output's core tensor (ones
    for a batched output with none: each element's own scalar)."""
    levels = levels_of(output)
    if cotangent is None:
        return ones_like(core(output)) if levels else None
    return spread(cotangent, levels)[0]
