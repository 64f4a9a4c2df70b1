"""torch.func.vmap: func run once on batched values, each op batched by its rule.

The design, in these files:
- _batched.py: a BatchedTensor is a physical glassgrad Tensor with the batch dimension in front and the level
  of the vmap that made it (levels nest for nested vmap); it answers shape, dtype and autograd questions with its
  logical view, and the graph is recorded on the plain tensors at its core by the ordinary ops.
- _dispatch.py: for the duration of the outermost vmap, every place glassgrad holds an op (namespace functions,
  Tensor methods, operators and op properties, and the module globals and class attributes its own code calls
  ops through) holds a dispatcher instead, restored after, also on error. Outside vmap nothing is checked, so
  the ops cost what they always cost. A dispatcher with batched arguments applies the op's batching rule at the
  innermost level involved; an op without a rule runs once per batch element with a one-time VmapLoopWarning
  per op, as functorch's fallback.
- _rules.py, _combining_rules.py and _layer_rules.py: the batching rules (pointwise, dims, shapes, matmul, joins, indexing, einsum,
  matrix functions, nn.functional's layers and losses, random draws), written as ops on the physical tensors.

This file checks the arguments and matches them to in_dims exactly as functorch does (its errors come out first
and unchanged), wraps the mapped arguments, runs func once, and moves each output's batch dimension to its out_dim.

grad inside vmap differentiates by a core tensor batched at every active level (see _batched.spread and
_level.py), so the gradients of unbatched parameters come out per batch element, as functorch's per-sample
gradients do; the engine itself runs unchanged on the plain tensors. A vjp_fn made outside vmap and called with
batched cotangents (the Jacobian-by-vmap pattern) runs one backward per element.

Randomness: under 'error' the default generator refuses every draw for the duration; 'different' and 'same'
are the dispatcher's and the random rules' (see _dispatch.py, _layer_rules.py).

Limits: an op function held where the dispatchers are not installed (a user's `from torch import sin` made
before vmap ran, a function kept in an instance attribute or a dict, such as a TransformerEncoderLayer's
activation) receives the batched tensor itself and raises, saying so. While a vmap runs, other threads call the
dispatchers too (they pass plain tensors straight through).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..ops import creation
from ..tensor import Tensor
from ._batched import BatchedTensor, unwrap
from ._dispatch import VmapLoopWarning, dispatching, vmap_level
from ._pytree import TreeSpec, broadcast_prefix, tree_flatten, tree_unflatten
from ._rules import wrap_dim


def _name(func: Callable[..., Any]) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _check_out_dims(out_dims: Any, func: Callable[..., Any]) -> None:
    if isinstance(out_dims, int):
        return
    leaves, _ = tree_flatten(out_dims)
    if any(not (leaf is None or isinstance(leaf, int)) for leaf in leaves):
        raise ValueError(
            f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python collection "
            "of ints representing where in the outputs the vmapped dimension should appear."
        )


def _batched_inputs(
    in_dims: Any, args: tuple[Any, ...], func: Callable[..., Any]
) -> tuple[int, list[int | None], list[Any], TreeSpec]:
    """(batch size, one in_dim per flattened argument, the flattened arguments, their structure)."""
    name = _name(func)
    if not isinstance(in_dims, int | tuple):
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a (potentially nested) "
            f"tuple matching the structure of inputs, got: {type(in_dims)}."
        )
    if not args:
        raise ValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying to vmap over a "
            "function with no inputs. The latter is unsupported."
        )
    flat_args, spec = tree_flatten(args)
    flat_in_dims = broadcast_prefix(in_dims, spec)
    if flat_in_dims is None:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the structure of "
            f"`inputs`. in_dims has structure {tree_flatten(in_dims)[1]!r} but inputs has structure {spec!r}."
        )
    for i, (arg, in_dim) in enumerate(zip(flat_args, flat_in_dims, strict=True)):
        if in_dim is None:
            continue
        if not isinstance(in_dim, int):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an input but in_dim must be "
                "either an integer dimension or None."
            )
        if not isinstance(arg, Tensor):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an input but the input is "
                f"of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use None as the respective "
                "in_dim"
            )
        ndim = arg.dim()
        if not -ndim <= in_dim < ndim:
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for some input, but that input "
                f"is a Tensor of dimensionality {ndim} so expected in_dim to satisfy -{ndim} <= in_dim < {ndim}."
            )
        flat_in_dims[i] = in_dim % ndim
    sizes = [arg.size(d) for arg, d in zip(flat_args, flat_in_dims, strict=True) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(size != sizes[0] for size in sizes):
        raise ValueError(
            f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} for the "
            "mapped dimension"
        )
    return sizes[0], flat_in_dims, flat_args, spec


class _RandomnessError:
    """Stands in for the default generator's stream under randomness='error': any draw raises functorch's error."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(
            "vmap: called random operation while in randomness error mode. Please either use the 'same' or "
            "'different' randomness flags on vmap or perform the randomness operation out of vmap"
        )


@contextmanager
def _refusing_draws(randomness: str) -> Iterator[None]:
    """Under randomness='error' the default generator's stream, which every random op draws from, refuses."""
    if randomness != "error":
        yield
        return
    generator = creation.default_generator
    stream, generator._rng = generator._rng, _RandomnessError()
    try:
        yield
    finally:
        generator._rng = stream


def _flat_out_dims(output: Any, out_dims: Any, spec: TreeSpec, name: str) -> list[Any]:
    if isinstance(output, Tensor):
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            flat_out_dims: list[Any] | None = list(out_dims)
        else:
            flat_out_dims = [out_dims] if out_dims is None or isinstance(out_dims, int) else None
    else:
        flat_out_dims = broadcast_prefix(out_dims, spec)
    if flat_out_dims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the structure of "
            f"`outputs`. out_dims has structure {tree_flatten(out_dims)[1]!r} but outputs has structure {spec!r}."
        )
    return flat_out_dims


def _unbatched_outputs(output: Any, out_dims: Any, level: int, batch_size: int, func: Callable[..., Any]) -> Any:
    """The outputs with the batch dimension of `level` moved to out_dims (an output that does not depend on the
    batch is expanded along it, as functorch's are)."""
    name = _name(func)
    flat, spec = tree_flatten(output)
    results = []
    for leaf, out_dim in zip(flat, _flat_out_dims(output, out_dims, spec, name), strict=True):
        physical, batched = unwrap(leaf, level)
        if out_dim is None:
            if batched:
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            results.append(leaf)
        elif not isinstance(leaf, Tensor):
            raise ValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(leaf)}. Did you mean to set "
                "out_dims= to None for output?"
            )
        elif batched:
            results.append(physical.movedim(0, out_dim))
        else:
            dim = wrap_dim(out_dim, leaf.dim() + 1)
            expanded = leaf.unsqueeze(dim)
            results.append(expanded.expand(*expanded.shape[:dim], batch_size, *expanded.shape[dim + 1 :]))
    return tree_unflatten(results, spec)


def vmap(
    func: Callable[..., Any],
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable[..., Any]:
    """func mapped over a dimension of its inputs: in_dims says which (per argument, nested like the arguments;
    None for an argument shared by every element), out_dims where the batch dimension goes in each output.

    randomness: 'error' refuses random ops inside func, 'different' draws anew for each element, 'same' draws
    the same values for every element. chunk_size is checked and accepted; the whole batch runs at once whatever
    it is. Keyword arguments are passed unbatched to every call, as in functorch.
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        _check_out_dims(out_dims, func)
        batch_size, flat_in_dims, flat_args, spec = _batched_inputs(in_dims, args, func)
        with vmap_level(batch_size, randomness) as level, _refusing_draws(randomness):
            batched = [
                a if d is None else BatchedTensor.wrap(a.movedim(d, 0), level)
                for a, d in zip(flat_args, flat_in_dims, strict=True)
            ]
            output = dispatching(func)(*tree_unflatten(batched, spec), **kwargs)
            return _unbatched_outputs(output, out_dims, level, batch_size, func)

    return wrapped


__all__ = ["VmapLoopWarning", "vmap"]
