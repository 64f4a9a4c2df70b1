"""torch.cond, structured control flow, as it runs eagerly: the branch `pred` picks, called on the operands.

PyTorch compiles a call with a tensor predicate (torch.compile with fullgraph=True), tracing both branches; what
that tracing refuses is refused here too, by running the other branch as well (under no_grad, on clones of the
operands, so that it changes nothing): branches whose outputs differ in number, type, shape or dtype, and an output
that is an operand or a view of one, with the exception classes torch._dynamo raises for them (both RuntimeErrors).
With a Python bool (or number) predicate PyTorch calls the branch directly, and so does glassgrad.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .autograd.grad_mode import no_grad
from .tensor import Tensor

__all__ = ["TorchRuntimeError", "UncapturedHigherOrderOpError", "cond"]


class UncapturedHigherOrderOpError(RuntimeError):
    """What torch._dynamo raises when it cannot capture a higher order operator such as cond."""


class TorchRuntimeError(RuntimeError):
    """What torch._dynamo raises when tracing an op fails (cond's branches that do not match)."""


def _leaves(tree: Any) -> list[Any]:
    """The leaves of nested dicts, lists and tuples, in order (pytree's flattening)."""
    if isinstance(tree, dict):
        return [leaf for value in tree.values() for leaf in _leaves(value)]
    if isinstance(tree, (list, tuple)):
        return [leaf for value in tree for leaf in _leaves(value)]
    return [tree]


def _cloned(tree: Any) -> Any:
    if isinstance(tree, dict):
        return {key: _cloned(value) for key, value in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_cloned(value) for value in tree)
    return tree.detach().clone() if isinstance(tree, Tensor) else tree


def _mismatch(result: Any, other_result: Any) -> str | None:
    """How the branches' outputs differ, in PyTorch's words, or None."""
    ours, theirs = _leaves(result), _leaves(other_result)
    if len(ours) != len(theirs):
        return f"Expected to return same number of outputs but got {len(ours)} and {len(theirs)}."
    for a, b in zip(ours, theirs, strict=True):
        if isinstance(a, Tensor) != isinstance(b, Tensor):
            return f"expected the same output types but got {type(a).__name__} and {type(b).__name__}."
        if isinstance(a, Tensor):
            if a.ndim != b.ndim:
                return f"expected same dim but got {a.ndim} and {b.ndim}."
            if a.shape != b.shape:
                return f"expected same shape but got {list(a.shape)} and {list(b.shape)}."
            if a.dtype is not b.dtype:
                return f"expected same dtype but got {a.dtype} and {b.dtype}."
    return None


def cond(pred: bool | int | float | Tensor, true_fn: Callable[..., Any], false_fn: Callable[..., Any],
         operands: tuple[Any, ...] | list[Any] = ()) -> Any:
    """true_fn(*operands) if pred else false_fn(*operands)."""
    if isinstance(pred, (bool, int, float)):
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, Tensor):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or not all(isinstance(leaf, Tensor) for leaf in _leaves(operands)):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that only consists of tensor "
                           f"leaves, but got {operands}.")
    chosen, other = (true_fn, false_fn) if bool(pred.item()) else (false_fn, true_fn)
    result = chosen(*operands)
    with no_grad():
        other_result = other(*_cloned(operands))
    inputs = [leaf._data for leaf in _leaves(operands)]
    for output in _leaves(result) + _leaves(other_result):
        if isinstance(output, Tensor) and any(np.may_share_memory(output._data, x) for x in inputs):
            raise UncapturedHigherOrderOpError(
                "This higher order operator doesn't work unless it is captured completely with torch.compile. Got graph "
                "break/error:\nEncountered aliasing during higher order op tracing: a branch returned one of its operands "
                "or a view of one (return a clone)."
            )
    mismatch = _mismatch(result, other_result)
    if mismatch is not None:
        raise TorchRuntimeError(f"RuntimeError when making fake tensor call\n  When merging two branches' output in "
                                f"torch.cond, {mismatch}")
    return result
