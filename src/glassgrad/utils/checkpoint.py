"""Activation checkpointing: keep nothing a function saves for backward, recompute it when needed.

use_reentrant=False (recommended, as in PyTorch) packs every tensor the function saves as a
mere index (a saved_tensors_hooks seam) and, the first time backward unpacks one, reruns the
function once under the same random state to regenerate all of them. use_reentrant=True wraps
the function in an autograd.Function whose backward reruns it with grad on and backpropagates
through the rerun.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ..autograd import grad_mode
from ..autograd.engine import backward
from ..autograd.function import Function
from ..autograd.graph import saved_tensors_hooks
from ..ops.creation import default_generator
from ..tensor import Tensor

USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants."
)


def checkpoint(
    function: Callable[..., Any], *args: Any, use_reentrant: bool | None = None, preserve_rng_state: bool = True, **kwargs: Any
) -> Any:
    """function(*args, **kwargs), saving nothing for backward: what backward needs is recomputed."""
    if use_reentrant is None:
        warnings.warn(USE_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True  # PyTorch 2.13's default when the argument is left out
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return _Reentrant.apply(function, preserve_rng_state, *args)
    return _NonReentrant(function, args, kwargs, preserve_rng_state).run()


class _NonReentrant:
    """The saved tensors of one checkpointed call: indices while forward runs, recomputed on first unpack."""

    def __init__(self, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], keep_rng: bool) -> None:
        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng_state = default_generator.get_state() if keep_rng else None
        self.count = 0
        self.recomputed: list[Tensor | None] | None = None

    def run(self) -> Any:
        with saved_tensors_hooks(self._pack, self._unpack):
            return self.function(*self.args, **self.kwargs)

    def _pack(self, tensor: Tensor) -> int:
        self.count += 1
        return self.count - 1

    def _unpack(self, index: int) -> Tensor:
        if self.recomputed is None or self.recomputed[index] is None:  # first use, or again after retain_graph
            self.recomputed = []
            rng = default_generator.get_state()
            if self.rng_state is not None:
                default_generator.set_state(self.rng_state)
            with grad_mode.enable_grad(), saved_tensors_hooks(self._keep, _never_unpacked):
                self.function(*self.args, **self.kwargs)
            default_generator.set_state(rng)
        tensor = self.recomputed[index]
        self.recomputed[index] = None  # each recomputed tensor is freed once its node has it, as in PyTorch
        assert tensor is not None
        return tensor

    def _keep(self, tensor: Tensor) -> None:
        """The rerun's own graph is thrown away: its nodes keep nothing (an output kept there would be a
        cycle through its grad_fn), only this list does, until each tensor is handed out."""
        assert self.recomputed is not None
        self.recomputed.append(tensor)


def _never_unpacked(packed: None) -> Tensor:
    raise AssertionError("the recomputed graph of a checkpoint is never differentiated")


class _Reentrant(Function):
    @staticmethod
    def forward(ctx: Any, function: Callable[..., Any], keep_rng: bool, *args: Any) -> Any:
        ctx.function = function
        ctx.rng_state = default_generator.get_state() if keep_rng else None
        ctx.inputs = args
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", UserWarning, stacklevel=4)
        return function(*args)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        inputs = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a for a in ctx.inputs]
        rng = default_generator.get_state()
        if ctx.rng_state is not None:
            default_generator.set_state(ctx.rng_state)
        with grad_mode.enable_grad():
            outputs = ctx.function(*inputs)
        default_generator.set_state(rng)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads, strict=True) if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None, *(a.grad if isinstance(a, Tensor) and a.requires_grad else None for a in inputs))


def checkpoint_sequential(
    functions: Sequence[Callable[[Any], Any]] | Any, segments: int, input: Any, use_reentrant: bool | None = None, **kwargs: Any
) -> Any:
    """Run `functions` (a list or nn.Sequential) in `segments` chunks, checkpointing all but the last."""
    if use_reentrant is None:
        warnings.warn(USE_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = len(functions) // segments
    end = -1

    def run(start: int, stop: int) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for f in functions[start : stop + 1]:
                x = f(x)
            return x

        return forward

    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, **kwargs)
    return run(end + 1, len(functions) - 1)(input)
