"""torch._C._functions: the engine's own node classes, for isinstance checks, and two that tests and libraries call
on tensors to put a special node into a graph (DelayedError, UndefinedGrad)."""

from __future__ import annotations

from typing import Any

from ..autograd import grad_mode
from ..autograd.graph import AccumulateGrad, NodeBase
from ..tensor import Tensor


class _Aliasing(NodeBase):
    """A node made by calling one of the classes below on tensors: each output aliases an input's data and flows
    its gradient to that input through this node."""

    def __init__(self, inputs: tuple[Tensor, ...]) -> None:
        super().__init__(inputs)
        self._count = len(inputs)

    @property
    def num_outputs(self) -> int:
        return self._count

    @classmethod
    def wrap(cls, inputs: tuple[Any, ...], *args: Any) -> Tensor | tuple[Tensor, ...]:
        outputs = tuple(Tensor._wrap(t._data) for t in inputs)
        if grad_mode.is_grad_enabled() and any(t.requires_grad for t in inputs):
            node = cls(inputs, *args)
            for nr, out in enumerate(outputs):
                out._with_history(node, nr)
        return outputs[0] if len(outputs) == 1 else outputs


class Error(_Aliasing):
    """Its backward raises the message it was made with."""

    def __init__(self, inputs: tuple[Tensor, ...], message: str) -> None:
        super().__init__(inputs)
        self._message = message

    def name(self) -> str:
        return "torch::autograd::Error"

    def apply(self, grad_outputs: list[Tensor | None], needed: Any = None) -> tuple[Tensor | None, ...]:
        raise RuntimeError(self._message)


class UndefinedGradBackward(_Aliasing):
    """Its backward passes no gradient (None) on to every input."""

    def name(self) -> str:
        return "torch::autograd::UndefinedGradBackward"

    def apply(self, grad_outputs: list[Tensor | None], needed: Any = None) -> tuple[Tensor | None, ...]:
        return (None,) * self._count


class DelayedError(NodeBase):
    """DelayedError(message, num_inputs)(*tensors): aliases of the tensors whose backward raises `message`."""

    def __init__(self, message: str, num_inputs: int) -> None:
        super().__init__()
        self._message = message

    def __call__(self, *inputs: Tensor) -> Tensor | tuple[Tensor, ...]:
        return Error.wrap(inputs, self._message)


class UndefinedGrad(NodeBase):
    """UndefinedGrad()(*tensors): aliases of the tensors through which no gradient flows back (None)."""

    def __call__(self, *inputs: Tensor) -> Tensor | tuple[Tensor, ...]:
        return UndefinedGradBackward.wrap(inputs)


__all__ = ["AccumulateGrad", "DelayedError", "Error", "UndefinedGrad", "UndefinedGradBackward"]
