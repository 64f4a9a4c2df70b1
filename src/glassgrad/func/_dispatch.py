"""vmap's dispatch: while a vmap runs, every public op is replaced by a dispatcher that batches it.

Outside vmap nothing is replaced, so an op costs what it always costs. Entering the outermost vmap installs a
dispatcher wherever glassgrad holds an op: the functions of glassgrad, glassgrad.nn.functional, glassgrad.linalg,
..., the Tensor methods, operators and op properties, and the module globals and class attributes through which
glassgrad's own code calls ops (an activation module's function); leaving it, also by an exception, puts the
originals back. Inside vmap, ops called by other ops on plain tensors pass through a dispatcher that finds
nothing batched.
A dispatcher looks for BatchedTensors among its arguments (and one level into lists and tuples, for cat and
indexing); with none it calls the op itself, else it takes the innermost level among them and applies the op's
batching rule (_rules.py) to the physical tensors of that level, or, for an op with no rule, the fallback: the
op once per batch element, results stacked, with a one-time VmapLoopWarning per op, as functorch's fallback.

Rules and the fallback call ops on physical tensors through these same dispatchers, so a physical tensor that
is batched at an outer level is batched again there: nested vmaps compose one level at a time.

Random ops are batched by randomness mode: under 'different' an op that draws is batched at the innermost
such level even with no batched argument (each element draws anew), and under 'same' it runs once, or through
the fallback with the generator rewound before each element, so all elements draw alike.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .. import ops
from ..ops import creation
from ..ops.call_sites import OPS, op_of, restore, stand_for, swap
from ..tensor import Tensor
from . import _combining_rules, _layer_rules, _rules  # noqa: F401  (the first two register into _rules.RULES)
from ._batched import LEVELS, BatchedTensor, VmapLevel, levels_of, select
from ._pytree import tree_flatten, tree_unflatten


class VmapLoopWarning(UserWarning):
    """An op without a batching rule ran once per batch element inside vmap."""


_warned: set[str] = set()  # the ops whose fallback has warned, once per process each

# The ops that draw from the generator, by what they are.
_RANDOM = {
    *(ops.FUNCTIONS[name] for name in ("rand", "randn", "randint", "randperm", "rand_like", "randn_like", "normal")),
    *(ops.METHODS[name] for name in ("bernoulli", "multinomial")),
    *(ops.METHODS[name] for name in ("uniform_", "normal_", "bernoulli_", "exponential_", "random_")),
    *(ops.METHODS[name] for name in ("geometric_", "log_normal_", "cauchy_")),
    *(
        ops.NAMESPACES["glassgrad.nn.functional"][name]
        for name in ("dropout", "alpha_dropout", "dropout1d", "dropout2d", "dropout3d", "feature_alpha_dropout")
    ),
    ops.NAMESPACES["glassgrad.nn.functional"]["rrelu"],
}


def _top_level(args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    top = 0
    for values in (args, kwargs.values()):
        for a in values:
            kind = type(a)
            if kind is BatchedTensor:
                top = max(top, a._level)
            elif kind is tuple or kind is list:
                for e in a:
                    if type(e) is BatchedTensor:
                        top = max(top, e._level)
    return top


class Op:
    """One op as vmap sees it: the function, its name for messages, its batching rule (or None)."""

    __slots__ = ("fn", "inplace", "name", "random", "rule")

    def __init__(self, name: str, fn: Callable[..., Any]) -> None:
        self.name = name
        self.fn = fn
        self.rule = _rules.RULES.get(fn)
        self.random = fn in _RANDOM
        self.inplace = (
            hasattr(fn, "inplace_of") or (name.endswith("_") and not name.endswith("__")) or name.endswith("__setitem__")
        )

    def run(self, args: tuple[Any, ...], kwargs: dict[str, Any], below: int) -> Any:
        """The op batched at the innermost level below `below` that it involves."""
        level = _top_level(args, kwargs)
        if self.random:
            level = max(level, _drawing_level(below))
            if not level:
                return _draw_plainly(self.fn, args, kwargs)
        if not level:
            return self.fn(*args, **kwargs)
        vmap_level = LEVELS[level - 1]
        if self.rule is not None:
            apply = lambda *a, **k: self.run(a, k, level)  # noqa: E731  (physical tensors: outer levels only)
            result = self.rule(_rules.Call(self.fn, apply, vmap_level, args, kwargs))
            if result is not _rules.NO_RULE:
                return result
        return self._loop(vmap_level, args, kwargs)

    def _loop(self, level: VmapLevel, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """functorch's fallback: the op once per batch element at `level`, the results stacked."""
        if self.name not in _warned:
            _warned.add(self.name)
            warnings.warn(
                f"There is a performance drop because we have not yet implemented the batching rule for {self.name}. "
                "glassgrad's vmap runs it once per batch element and stacks the results. This warning is given once "
                "per op.",
                VmapLoopWarning,
                stacklevel=_outside_stacklevel(),
            )
        if level.batch_size == 0:
            raise NotImplementedError(
                f"vmap: {self.name} has no batching rule and the batch is empty, so its result's shape cannot be "
                "known; skip the call for an empty batch."
            )
        if self.inplace and level.number not in levels_of(args[0]):
            raise _rules.inplace_into_unbatched(self.name.rpartition(".")[2])  # elements would overwrite each other
        flat, spec = tree_flatten((args, kwargs))
        state = creation.default_generator._rng.bit_generator.state if level.randomness == "same" else None
        results = []
        for i in range(level.batch_size):
            if state is not None:
                creation.default_generator._rng.bit_generator.state = state
            sliced_args, sliced_kwargs = tree_unflatten([select(x, level.number, i) for x in flat], spec)
            results.append(self.run(sliced_args, sliced_kwargs, level.number))
        if self.inplace:
            return args[0]  # an in-place op wrote into each element's view of its first argument
        return _stack(self.name, results, level.number)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _outside_stacklevel() -> int:
    """The stacklevel, for a warning given by the caller, of the first frame outside glassgrad."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


_plain_draws = 0  # how many random ops are running unbatched: the draws they make inside are theirs alone


def _draw_plainly(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    global _plain_draws
    _plain_draws += 1
    try:
        return fn(*args, **kwargs)
    finally:
        _plain_draws -= 1


def _drawing_level(below: int) -> int:
    """The innermost active level below `below` whose elements draw separately (randomness='different'); none
    for a draw made inside a random op that is already running unbatched (randn_like calling randn)."""
    if _plain_draws:
        return 0
    for level in reversed(LEVELS[: below - 1]):
        if level.randomness == "different":
            return level.number
    return 0


def _stack(name: str, results: list[Any], level: int) -> Any:
    flat = [tree_flatten(r) for r in results]
    spec = flat[0][1]
    stacked = []
    for j in range(len(flat[0][0])):
        column = [leaves[j] for leaves, _ in flat]
        if isinstance(column[0], Tensor):
            stacked.append(BatchedTensor.wrap(_stack_dispatcher()(column), level))
        elif all(c == column[0] for c in column):
            stacked.append(column[0])
        else:
            raise RuntimeError(
                f"vmap: {name} returns a {type(column[0]).__name__} that differs across the batch; we could not "
                "generate a fallback."
            )
    return tree_unflatten(stacked, spec)


def _as_function(op: Op) -> Callable[..., Any]:
    # A plain function, so that it binds as a method where the op is one (an Op instance is not a descriptor).
    def dispatch(*args: Any, **kwargs: Any) -> Any:
        return op.run(args, kwargs, len(LEVELS) + 1)

    return stand_for(dispatch, op.fn)


_DISPATCHER = {fn: _as_function(Op(name, fn)) for fn, name in OPS.items()}


def _stack_dispatcher() -> Callable[..., Any]:
    """vmap's dispatcher of stack, which stacks a fallback's results (batched at outer levels) itself.

    Looked up, not held in a module global: call_sites counts every global holding an op or a wrapper of one as
    a call site, and a site must hold the op itself outside vmap and the profiler. A global holding this
    dispatcher at rest was one (the profiler wrapped it, and put the dispatcher back where the op was expected)."""
    return _DISPATCHER[ops.FUNCTIONS["stack"]]


def dispatching(func: Callable[..., Any]) -> Callable[..., Any]:
    """func, or its dispatcher when func is an op (vmap(torch.dot), taken before the dispatchers were installed),
    also inside a functools.partial."""
    if isinstance(func, functools.partial):
        return functools.partial(dispatching(func.func), *func.args, **func.keywords)
    op = op_of(func) if type(func) is not property else None
    return _DISPATCHER[op] if op is not None else func


@contextmanager
def vmap_level(batch_size: int, randomness: str) -> Iterator[int]:
    """A new vmap level for the duration; the outermost installs the dispatchers and removes them afterwards."""
    # Inside a profiler the dispatchers replace its wrappers for the duration: batched ops are not timed
    saved = swap(lambda current, op: _DISPATCHER[op]) if not LEVELS else []
    LEVELS.append(VmapLevel(len(LEVELS) + 1, batch_size, randomness))
    try:
        yield len(LEVELS)
    finally:
        LEVELS.pop()
        restore(saved)


__all__ = ["VmapLoopWarning", "dispatching", "vmap_level"]
