"""Activation checkpointing: keep nothing a function saves for backward, recompute it when needed.

use_reentrant=False (recommended, as in PyTorch) packs every tensor the function saves as a
holder (a saved_tensors_hooks seam) and, the first time a backward call unpacks one, reruns the
function once under the same random state to regenerate all of them; each is handed out once.
The inputs are saved as a node saves its inputs, so a checkpoint nested in another is recomputed
by its parent's recomputation, and the rerun's own graph can be differentiated (a grad taken
inside the checkpointed function). use_reentrant=True wraps
the function in an autograd.Function whose backward reruns it with grad on and backpropagates
through the rerun.
"""

from __future__ import annotations

import enum
import functools
import warnings
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

from .. import amp
from .._aten import OpOverload, OpOverloadPacket, aten
from ..autograd import engine, grad_mode
from ..autograd.engine import backward
from ..autograd.function import Function
from ..autograd.graph import NodeBase, SavedTensor, saved_tensors_hooks
from ..ops.creation import default_generator
from ..tensor import Tensor
from ._python_dispatch import TorchDispatchMode

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


class SelectiveCheckpointContext:
    """What a selective checkpointing policy is told about an op call (its output; it runs in forward only)."""

    def __init__(self, *, is_recompute: bool, op_output: Any = None) -> None:
        self.is_recompute, self.op_output = is_recompute, op_output


def create_selective_checkpoint_contexts(
    policy_fn_or_list: Callable[..., Any] | list[Any], allow_cache_entry_mutation: bool = False
) -> tuple[_CachingTorchDispatchMode, _CachedTorchDispatchMode]:
    """checkpoint's context_fn for selective checkpointing: the outputs of the ops the policy saves (those of a list,
    or those a policy_fn(ctx, op, *args, **kwargs) gives a *_SAVE policy) are kept in forward, with what those ops
    saved for backward, and not recomputed; every other op is recomputed."""
    if isinstance(policy_fn_or_list, list):
        ops = policy_fn_or_list
        for op in ops:
            if not isinstance(op, OpOverload):
                extra = (
                    "Please update the OpOverloadPacket to a specific OpOverload.For example, if you have "
                    "`torch.ops.aten.mm`, change it to `torch.ops.aten.mm.default`."
                ) if isinstance(op, OpOverloadPacket) else ""
                raise ValueError(f"Expected op in `op_list` to be an OpOverload but got: {op} of type {type(op)}. {extra}")

        def policy_fn(ctx: SelectiveCheckpointContext, op: Any, *args: Any, **kwargs: Any) -> CheckpointPolicy:
            return CheckpointPolicy.MUST_SAVE if op in ops else CheckpointPolicy.PREFER_RECOMPUTE
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    storage: defaultdict[Any, dict[int, Any]] = defaultdict(dict)
    return _CachingTorchDispatchMode(policy_fn, storage), _CachedTorchDispatchMode(None, storage, allow_cache_entry_mutation)


class _VersionWrapper:
    """A kept output (detached: the storage is reachable from the graph, through the recomputation's mode, so an
    output kept with its history would be a cycle) and its version when kept: handing it out after an in-place
    change raises, unless allowed."""

    def __init__(self, value: Any) -> None:
        is_tensor = isinstance(value, Tensor)
        self.val = value.detach() if is_tensor else value
        self.version = value._version if is_tensor else None
        self.requires_grad = is_tensor and value.requires_grad

    def get_val(self, allow_mutation: bool) -> Any:
        if self.version is not None and not allow_mutation and self.val._version != self.version:
            raise RuntimeError("Tensor cached during selective activation checkpoint has been mutated")
        return self.val

    def recomputed(self, allow_mutation: bool) -> Any:
        """The value for the recomputation: one that required grad still does (the ops after it record and save
        what they saved in forward), with a history that ends there."""
        value = self.get_val(allow_mutation)
        return value.detach()._with_history(_Kept(), 0) if self.requires_grad else value


class _Kept(NodeBase):
    """The node of a kept output in a recomputation: nothing before it is recomputed, so no gradient goes further."""

    def apply(self, grad_outputs: list[Tensor | None], needed: Any = None) -> tuple[Tensor | None, ...]:
        return ()


def _each(fn: Callable[[Any], Any], out: Any) -> Any:
    return type(out)(fn(o) for o in out) if isinstance(out, tuple | list) else fn(out)


_RECOMPUTE, _CONSUMED = object(), object()  # what selective checkpointing's storage holds for an op not kept, or handed out


def _ignored(func: Any) -> bool:
    """Ops a checkpoint itself calls a different number of times in forward and in the recomputation."""
    return func is aten.detach.default


class _CachingTorchDispatchMode(TorchDispatchMode):
    """The forward's mode: runs each op, asks the policy, and keeps what it says to save."""

    def __init__(self, policy_fn: Callable[..., Any], storage: defaultdict[Any, dict[int, Any]]) -> None:
        self.policy_fn, self.storage = policy_fn, storage
        self.func_counter: defaultdict[Any, int] = defaultdict(int)
        self.frame: _NonReentrant | None = None  # the checkpoint whose forward runs under this mode

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = {} if kwargs is None else kwargs
        if _ignored(func):
            return func(*args, **kwargs)
        frame = self.frame
        if frame is not None:
            frame.packed = []
        try:
            out = func(*args, **kwargs)
        finally:
            packed = frame.packed if frame is not None else None
            if frame is not None:
                frame.packed = None
        index = self.func_counter[func]
        self.func_counter[func] += 1
        policy = self.policy_fn(SelectiveCheckpointContext(is_recompute=False, op_output=out), func, *args, **kwargs)
        if isinstance(policy, bool):
            policy = CheckpointPolicy.MUST_SAVE if policy else CheckpointPolicy.PREFER_RECOMPUTE
        if policy in (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE):
            self.storage[func][index] = _each(_VersionWrapper, out)
            if frame is not None and packed:
                frame.keep(packed)  # the op will not run again: what it saved for backward is kept too
        else:
            self.storage[func][index] = _RECOMPUTE
        return out


class _CachedTorchDispatchMode(TorchDispatchMode):
    """The recomputation's mode: hands out what the forward kept, once, and runs the other ops."""

    def __init__(self, policy_fn: Any, storage: defaultdict[Any, dict[int, Any]], allow_cache_entry_mutation: bool = False) -> None:
        self.storage, self.allow_cache_entry_mutation = storage, allow_cache_entry_mutation
        self.func_counter: defaultdict[Any, int] = defaultdict(int)

    def __enter__(self) -> _CachedTorchDispatchMode:
        self.func_counter.clear()  # each recomputation replays the forward from its first op
        return super().__enter__()  # type: ignore[return-value]

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = {} if kwargs is None else kwargs
        if _ignored(func):
            return func(*args, **kwargs)
        index = self.func_counter[func]
        self.func_counter[func] += 1
        mismatch = (
            "This can happen if the operations in the checkpointed region are nondeterministic or depend on global "
            "state that changed between forward and backward."
        )
        if func not in self.storage:
            raise RuntimeError(f"{func} encountered during backward but not found in storage. {mismatch}")
        entry = self.storage[func].get(index)
        if entry is None:
            raise RuntimeError(f"{func} invocation index {index} encountered during backward but not found in storage. {mismatch}")
        if entry is _CONSUMED:
            raise RuntimeError(
                "Trying to backward an extra time. You are only allowed to backward once on any region computed under "
                "selective activation checkpoint."
            )
        if entry is _RECOMPUTE:
            return func(*args, **kwargs)
        self.storage[func][index] = _CONSUMED
        return _each(lambda kept: kept.recomputed(self.allow_cache_entry_mutation), entry)


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
    forward_context, recompute_context = context_fn()
    if not grad_mode.is_grad_enabled():  # nothing is saved, so nothing will be recomputed
        return function(*args, **kwargs)
    frame = _NonReentrant(function, args, kwargs, preserve_rng_state)
    frame.early_stop = early_stop if _early_stop is None else _early_stop
    frame.check = determinism_check == "default"
    frame.debug = debug if _debug is None else _debug
    frame.recompute_context = recompute_context
    return frame.run(args, forward_context)


class _StopRecomputation(Exception):
    """Raised inside a recomputation once it has made every tensor the forward saved (early stop)."""


def _metadata(tensor: Tensor) -> dict[str, Any]:
    return {"shape": tensor.shape, "dtype": tensor.dtype, "device": tensor.device}


class _Handle:
    """Stands for one recomputed tensor in its frame's table until the tensor is handed out."""

    __slots__ = ("__weakref__",)


class _Holder:
    """What the forward packs in place of a saved tensor: per recomputation key, the handle of its recomputed value
    (None once handed out). The frame holds holders weakly, so a node's release frees its recomputed tensors."""

    __slots__ = ("__weakref__", "handles", "kept")

    def __init__(self) -> None:
        self.handles: dict[Any, _Handle | None] = {}
        self.kept: Tensor | None = None  # the tensor itself, for an op selective checkpointing does not recompute


class _NonReentrant:
    """One checkpointed call: its saved tensors are holders while forward runs, recomputed on first unpack."""

    early_stop = check = debug = True
    recompute_context: AbstractContextManager[Any] = nullcontext()

    def __init__(self, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], keep_rng: bool) -> None:
        self.function, self.kwargs = function, kwargs
        # Saved as a node saves its inputs, through the hooks in force: inside an enclosing checkpoint, that one's
        # recomputation regenerates them (nested checkpoints)
        self.inputs = [SavedTensor("", a, False) if isinstance(a, Tensor) else a for a in args]
        self.rng_state = default_generator.get_state() if keep_rng else None
        self.autocast = amp.cpu_state()
        self.holders: list[weakref.ref[_Holder]] = []
        self.saved_metadata: list[dict[str, Any]] = []
        # per recomputation key (a backward call or a GraphExecGroup): the recomputed tensors by handle, how many
        # tensors the recomputation saved, and whether it ran
        self.recomputed: defaultdict[Any, weakref.WeakKeyDictionary[_Handle, Tensor]] = defaultdict(weakref.WeakKeyDictionary)
        self.counts: defaultdict[Any, int] = defaultdict(int)
        self.done: set[Any] = set()
        self.forward_completed = self.ignore_mismatch = False
        self.packed: list[tuple[_Holder, Tensor]] | None = None  # what one op saves, while a selective policy watches

    def run(self, args: tuple[Any, ...], forward_context: AbstractContextManager[Any]) -> Any:
        suppressed = True
        caching = forward_context if isinstance(forward_context, _CachingTorchDispatchMode) else None
        if caching is not None:
            caching.frame = self
        try:
            with saved_tensors_hooks(self._pack, self._unpack), forward_context:
                out = self.function(*args, **self.kwargs)
                suppressed = False
        finally:
            if caching is not None:
                caching.frame = None
        if suppressed:
            raise RuntimeError(
                "torch.utils.checkpoint: the forward context provided by context_fn suppressed an exception raised "
                "during the checkpointed forward. This is not supported because checkpoint cannot return a value for "
                "a failed forward."
            )
        self.forward_completed = True
        return out

    def _pack(self, tensor: Tensor) -> _Holder:
        holder = _Holder()
        self.holders.append(weakref.ref(holder))
        self.saved_metadata.append(_metadata(tensor))
        if self.packed is not None:
            self.packed.append((holder, tensor))
        return holder

    def keep(self, packed: list[tuple[_Holder, Tensor]]) -> None:
        """Keep what one op saved as itself (detached: an output kept with its history would be a cycle); the
        recomputation will not save it again, so its holders leave the count."""
        for holder, tensor in packed:
            holder.kept = tensor.detach() if tensor.requires_grad else tensor
            index = next(i for i in range(len(self.holders) - 1, -1, -1) if self.holders[i]() is holder)
            del self.holders[index], self.saved_metadata[index]

    def _unpack(self, holder: _Holder) -> Tensor:
        key = _recomputation_key()
        if key not in self.done:
            self._recompute(key)
        if holder.kept is not None:
            return holder.kept
        assert key in holder.handles, "a saved tensor of a checkpoint was not recomputed"
        handle = holder.handles[key]
        if handle is None:
            overlap = (
                "Performing two backward calls that overlap (i.e. require the same saved activation in order to compute "
                "gradients) is not allowed while under the torch.utils.checkpoint.GraphExecGroup context. "
            ) if _group[0] is not None else ""
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked once. "
                f"{overlap}If you are calling ctx.saved_tensors in backward, make sure to do so only once. Otherwise "
                "please open an issue with details on your use case."
            )
        holder.handles[key] = None  # each recomputed tensor is freed once its node has it, as in PyTorch
        return self.recomputed[key].pop(handle)

    def _recompute(self, key: Any) -> None:
        args = [_unpacked_input(a) for a in self.inputs]
        rng = default_generator.get_state()
        if self.rng_state is not None:
            default_generator.set_state(self.rng_state)
        try:
            with (
                saved_tensors_hooks(functools.partial(self._keep, key), _as_is),
                grad_mode.enable_grad(),
                self._autocast_as_in_forward(),
                self.recompute_context,
            ):
                self.function(*args, **self.kwargs)
        except _StopRecomputation:
            pass
        finally:
            default_generator.set_state(rng)
        self.done.add(key)
        if self.check and not self.ignore_mismatch:
            self._check_recomputed(key)

    def _autocast_as_in_forward(self) -> AbstractContextManager[Any]:
        if amp.cpu_state() == self.autocast:
            return nullcontext()
        enabled, dtype = self.autocast
        return amp.autocast("cpu", dtype=dtype, enabled=enabled)

    def _keep(self, key: Any, tensor: Tensor) -> Tensor:
        """The recomputation's pack hook: the tensor is its own packed form (detached: an output kept with its
        history would be a cycle through its grad_fn), so the rerun's graph can be differentiated too (a grad taken
        inside the checkpointed function), and the holder saved at the same position gets it."""
        tensor = tensor.detach() if tensor.requires_grad else tensor
        index = self.counts[key]
        self.counts[key] = index + 1
        if index >= len(self.holders):
            if not self.forward_completed:  # a grad taken inside the function, recomputed without early stop
                self.ignore_mismatch = True
                return tensor
            self._fail("torch.utils.checkpoint: trying to save more tensors during recomputation than during the original forward pass.\n")
        holder = self.holders[index]()
        if holder is not None:  # else its node is gone (a backward inside the forward freed it)
            handle = holder.handles[key] = _Handle()
            self.recomputed[key][handle] = tensor
        if self.early_stop and index + 1 == len(self.holders):
            raise _StopRecomputation  # every tensor the forward saved is made: the rest of the rerun is not needed
        return tensor

    def _check_recomputed(self, key: Any) -> None:
        saved, recomputed = len(self.holders), self.counts[key]
        if recomputed != saved:
            self._fail(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {saved}\nNumber of tensors saved during "
                f"recomputation: {recomputed}.\n"
            )
        different = []
        for i, (meta, ref) in enumerate(zip(self.saved_metadata, self.holders, strict=True)):
            holder = ref()
            handle = holder.handles.get(key) if holder is not None else None
            if handle is not None and meta != _metadata(self.recomputed[key][handle]):
                different.append(f"tensor at position {i}:\nsaved metadata: {meta}\nrecomputed metadata: {_metadata(self.recomputed[key][handle])}\n")
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


def _as_is(tensor: Tensor) -> Tensor:
    return tensor


def _unpacked_input(value: Any) -> Any:
    return value.unpack() if isinstance(value, SavedTensor) else value


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
