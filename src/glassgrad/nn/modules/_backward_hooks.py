"""Module full backward hooks, built as PyTorch builds them: identity Functions around a call's inputs and outputs.

The output identity's backward sees the gradients w.r.t. the module's outputs (and runs the pre-hooks);
the input identity's backward sees the gradients w.r.t. its inputs, which is when the user's hooks run.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ...autograd import grad_mode
from ...autograd.function import Function
from ...tensor import Tensor

GradCallback = Callable[[tuple[Tensor | None, ...]], tuple[Tensor | None, ...]]

NO_INPUT_GRAD_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since no inputs "
    "require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details."
)


class BackwardHookFunction(Function):
    """Identity on the tensors it is given; its backward hands their gradients to `on_grads`."""

    @staticmethod
    def forward(ctx: Any, on_grads: GradCallback, *tensors: Tensor) -> tuple[Tensor, ...]:
        ctx.on_grads = on_grads
        return tensors

    @staticmethod
    def backward(ctx: Any, *grads: Tensor | None) -> tuple[Any, ...]:
        return (None, *ctx.on_grads(grads))


def _pack(indices: Sequence[int], values: Sequence[Any], size: int) -> tuple[Any, ...]:
    packed: list[Any] = [None] * size
    for i, value in zip(indices, values, strict=True):
        packed[i] = value
    return tuple(packed)


class BackwardHook:
    """One module call's bookkeeping: grad_outputs are kept until the input gradients arrive."""

    def __init__(self, module: Any, hooks: list[Callable[..., Any]], pre_hooks: list[Callable[..., Any]]) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs: tuple[Any, ...] | None = None
        self.n_inputs = 0
        self.input_index: list[int] | None = None
        self.n_outputs = 0
        self.output_index: list[int] | None = None

    @staticmethod
    def _wrap(values: tuple[Any, ...], on_grads: GradCallback) -> tuple[tuple[Any, ...], list[int] | None]:
        index = [i for i, v in enumerate(values) if isinstance(v, Tensor) and v.requires_grad]
        if not index or not grad_mode.is_grad_enabled():
            return values, None
        wrapped = BackwardHookFunction.apply(on_grads, *[values[i] for i in index])
        out = list(values)
        for i, tensor in zip(index, wrapped, strict=True):
            out[i] = tensor
        return tuple(out), index

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        self.n_inputs = len(args)
        wrapped, self.input_index = self._wrap(args, self._on_input_grads)
        return wrapped

    def setup_output_hook(self, result: Any) -> Any:
        is_tuple = isinstance(result, tuple)
        outputs = result if is_tuple else (result,)
        self.n_outputs = len(outputs)
        wrapped, self.output_index = self._wrap(outputs, self._on_output_grads)
        return wrapped if is_tuple else wrapped[0]

    def _on_output_grads(self, grads: tuple[Tensor | None, ...]) -> tuple[Tensor | None, ...]:
        assert self.output_index is not None
        self.grad_outputs = _pack(self.output_index, grads, self.n_outputs)
        for pre_hook in self.pre_hooks:
            replaced = pre_hook(self.module, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(self.grad_outputs):
                raise RuntimeError(
                    f"Backward pre hook returned an invalid number of grad_output, got {len(replaced)}, but expected "
                    f"{len(self.grad_outputs)}"
                )
            self.grad_outputs = tuple(replaced)
        local = self.grad_outputs
        if self.input_index is None:
            # Nothing upstream will call the input side, so the hooks fire now with no input gradients.
            warnings.warn(NO_INPUT_GRAD_WARNING, UserWarning, stacklevel=2)
            for hook in self.hooks:
                res = hook(self.module, (None,) * self.n_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should always return None or "
                        "None for all gradients."
                    )
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_index)

    def _on_input_grads(self, grads: tuple[Tensor | None, ...]) -> tuple[Tensor | None, ...]:
        if self.grad_outputs is None:  # backward reached the inputs without passing through this call's outputs
            return grads
        assert self.input_index is not None
        grad_inputs = _pack(self.input_index, grads, self.n_inputs)
        for hook in self.hooks:
            out = hook(self.module, grad_inputs, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(grad_inputs):
                raise RuntimeError(
                    f"Backward hook returned an invalid number of grad_input, got {len(out)}, but expected "
                    f"{len(grad_inputs)}"
                )
            grad_inputs = tuple(out)
        self.grad_outputs = None
        return tuple(grad_inputs[i] for i in self.input_index)
