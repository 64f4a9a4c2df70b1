"""Activation checkpointing: keep nothing a function saves for backward, recompute it when needed.

use_reentrant=False (recommended, as in PyTorch) packs every tensor the function saves as a
mere index (a saved_tensors_hooks seam) and, the first time backward unpacks one, reruns the
function once under the same random state to regenerate all of them. use_reentrant=True wraps
the function in an autograd.Function whose backward reruns it with grad on and backpropagates
through the rerun.
"""

from __future__ import annotations

import enum
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

from ..autograd import engine, grad_mode
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


DEBUG_TIP = (
    "\nTip: To see a more detailed error message, either pass `debug=True` to\n`torch.utils.checkpoint.checkpoint(...)` "
    "or wrap the code block\nwith `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to\nenable "
    "checkpoint-debug mode globally.\n"
)
DEBUG_NOTE = "You are seeing this error because you passed `debug=True` to checkpoint (or enabled checkpoint-debug mode)."

# Set by set_checkpoint_early_stop / set_checkpoint_debug_enabled while they are active (None: each call's argument)
_early_stop: bool | None = None
_debug: bool | None = None


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with one op's outputs."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


def create_selective_checkpoint_contexts(policy_fn_or_list: Any, allow_cache_entry_mutation: bool = False) -> Any:
    """Selective checkpointing decides per ATen op call; glassgrad's ops have no dispatch level to decide at."""
    raise NotImplementedError(
        "glassgrad does not implement torch.utils.checkpoint.create_selective_checkpoint_contexts: selective "
        "checkpointing intercepts each ATen op through a TorchDispatchMode, which glassgrad's ops do not go through. "
        "checkpoint(..., use_reentrant=False) without context_fn recomputes every op instead."
    )


class CheckpointError(RuntimeError):
    """The recomputation of a checkpoint did not save what the forward pass saved."""


@contextmanager
def set_checkpoint_early_stop(enable: bool) -> Iterator[None]:
    """Whether the checkpoints run inside stop their recomputation once it has made every saved tensor (it decides
    when the forward runs, and wins over checkpoint's own early_stop=)."""
    global _early_stop
    previous, _early_stop = _early_stop, enable
    try:
        yield
    finally:
        _early_stop = previous


@contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None) -> Iterator[None]:
    global _debug
    previous, _debug = _debug, enabled
    try:
        yield
    finally:
        _debug = previous


def noop_context_fn() -> tuple[AbstractContextManager[None], AbstractContextManager[None]]:
    return nullcontext(), nullcontext()


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    context_fn: Callable[[], tuple[AbstractContextManager[Any], AbstractContextManager[Any]]] = noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
    preserve_rng_state: bool = True,
    **kwargs: Any,
) -> Any:
    """function(*args, **kwargs), saving nothing for backward: what backward needs is recomputed."""
    if use_reentrant is None:
        warnings.warn(USE_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True  # PyTorch 2.13's default when the argument is left out
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return _Reentrant.apply(function, preserve_rng_state, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(
            f"determinism_check should be one of ['default', 'none'], but got {determinism_check}"
        )
    frame = _NonReentrant(function, args, kwargs, preserve_rng_state)
    frame.early_stop = early_stop if _early_stop is None else _early_stop
    frame.check = determinism_check == "default"
    frame.debug = debug if _debug is None else _debug
    forward_context, frame.recompute_context = context_fn()
    with forward_context:
        return frame.run()


class _StopRecomputation(Exception):
    """Raised inside a recomputation once it has made every tensor the forward saved (early stop)."""


def _metadata(tensor: Tensor) -> dict[str, Any]:
    return {"shape": tensor.shape, "dtype": tensor.dtype, "device": tensor.device}


class _NonReentrant:
    """The saved tensors of one checkpointed call: indices while forward runs, recomputed on first unpack."""

    early_stop = check = debug = True
    recompute_context: AbstractContextManager[Any] = nullcontext()

    def __init__(self, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], keep_rng: bool) -> None:
        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng_state = default_generator.get_state() if keep_rng else None
        self.saved_metadata: list[dict[str, Any]] = []
        # recomputed tensors per backward call (or per GraphExecGroup), each handed out once
        self.recomputed_for: dict[Any, list[Tensor | None]] = {}
        self.recomputed: list[Tensor | None] | None = None  # the list a recomputation is filling

    def run(self) -> Any:
        with saved_tensors_hooks(self._pack, self._unpack):
            return self.function(*self.args, **self.kwargs)

    def _pack(self, tensor: Tensor) -> int:
        self.saved_metadata.append(_metadata(tensor))
        return len(self.saved_metadata) - 1

    def _unpack(self, index: int) -> Tensor:
        key = _recomputation_key()
        values = self.recomputed_for.get(key)
        if values is not None and values[index] is None and _group[0] is not None:
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked once. "
                "Performing two backward calls that overlap (i.e. require the same saved activation in order to "
                "compute gradients) is not allowed while under the torch.utils.checkpoint.GraphExecGroup context. If "
                "you are calling ctx.saved_tensors in backward, make sure to do so only once. Otherwise please open "
                "an issue with details on your use case."
            )
        # this backward's (or group's) first use; or a tensor handed out already, which a formula that unpacks a
        # saved tensor twice asks for again: recomputed anew
        if values is None or values[index] is None:
            self._recompute()
            assert self.recomputed is not None
            values = self.recomputed_for[key] = self.recomputed
        tensor = values[index]
        values[index] = None  # each recomputed tensor is freed once its node has it, as in PyTorch
        assert tensor is not None
        return tensor

    def _recompute(self) -> None:
        self.recomputed = []
        rng = default_generator.get_state()
        if self.rng_state is not None:
            default_generator.set_state(self.rng_state)
        try:
            with grad_mode.enable_grad(), self.recompute_context, saved_tensors_hooks(self._keep, _never_unpacked):
                self.function(*self.args, **self.kwargs)
        except _StopRecomputation:
            pass
        finally:
            default_generator.set_state(rng)
        if self.check:
            self._check_recomputed()

    def _keep(self, tensor: Tensor) -> None:
        """The rerun's own graph is thrown away: its nodes keep nothing (an output kept there would be a
        cycle through its grad_fn), only this list does, until each tensor is handed out."""
        assert self.recomputed is not None
        if len(self.recomputed) == len(self.saved_metadata) and self.check:
                self._fail("torch.utils.checkpoint: trying to save more tensors during recomputation than during the original forward pass.\n")
        self.recomputed.append(tensor)
        if self.early_stop and len(self.recomputed) == len(self.saved_metadata):
            raise _StopRecomputation  # every tensor the forward saved is made: the rest of the rerun is not needed

    def _check_recomputed(self) -> None:
        assert self.recomputed is not None
        saved, recomputed = len(self.saved_metadata), len(self.recomputed)
        if recomputed != saved:
            self._fail(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {saved}\nNumber of tensors saved during "
                f"recomputation: {recomputed}.\n"
            )
        different = [
            f"tensor at position {i}:\nsaved metadata: {meta}\nrecomputed metadata: {_metadata(t)}\n"
            for i, (meta, t) in enumerate(zip(self.saved_metadata, self.recomputed, strict=True))
            if t is not None and meta != _metadata(t)
        ]
        if different:
            self._fail(
                "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata than "
                f"during the forward pass.\n{''.join(different)}.\n"
            )

    def _fail(self, message: str) -> None:
        raise CheckpointError(message + (DEBUG_NOTE if self.debug else DEBUG_TIP))


_group: list[GraphExecGroup | None] = [None]  # the GraphExecGroup entered, if any


def _recomputation_key() -> Any:
    """What one recomputation serves: the GraphExecGroup entered, else the backward call now running (else this
    unpack alone)."""
    if _group[0] is not None:
        return _group[0]
    return engine.running[-1].id if engine.running else object()


class GraphExecGroup:
    """Backward calls inside share each checkpoint's recomputation (at most one per checkpoint), so they must
    need disjoint saved tensors, even with retain_graph=True. No effect on use_reentrant=True."""

    def __enter__(self) -> GraphExecGroup:
        if _group[0] is not None:
            raise RuntimeError(f"GraphExecGroup contexts cannot be nested. Already inside group {_group[0]}")
        _group[0] = self
        return self

    def __exit__(self, *exc: object) -> None:
        _group[0] = None


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
        if engine.running and engine.running[-1].needed is not None:  # a backward that runs only part of the graph
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` "
                "parameter to .backward(). To resolve this error, you can either set use_reentrant=False, or call "
                ".backward() without passing the `inputs` argument."
            )
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
