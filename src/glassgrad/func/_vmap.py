"""torch.func.vmap, run as a loop over the batch until glassgrad has batching rules.

functorch falls back to a loop for an operator that has no batching rule, and warns about the cost;
glassgrad has no batching rules at all yet, so the whole function runs once per batch element and
the results are stacked along out_dims. The arguments are checked and matched to in_dims exactly as
functorch does, so its errors come out first and unchanged; the loop then gives the same values and
shapes, gradients flow through it (the slices are views, the stacking is recorded), and nested vmap
and vmap(grad(f)) compose as plain calls.

What a loop cannot see: an output returned with out_dims=None is refused only when its values vary
across the batch (functorch refuses any output that depends on a batched input), and batch-size
dependent Python (.item(), data-dependent control flow, in-place writes of a batched value into an
unbatched tensor) runs where functorch would refuse it.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..ops import creation
from ..ops.logic import equal
from ..ops.shape import stack
from ..tensor import Tensor
from ._pytree import TreeSpec, broadcast_prefix, tree_flatten, tree_unflatten


class VmapLoopWarning(UserWarning):
    """vmap ran the function once per batch element: glassgrad has no batching rules yet."""


_warned = False  # the loop warning is given once per process, as a one-time performance note


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
def _randomness(randomness: str) -> Iterator[Callable[[], None]]:
    """Yields what to call before each batch element so that its random draws follow `randomness`.

    Every random op draws from the default generator's stream at the moment it runs, so that stream is the
    one seam: 'error' swaps it for one that refuses, 'same' rewinds it before each element (the generator
    ends as after one draw of the batch, as functorch's does), 'different' leaves it alone.
    """
    generator = creation.default_generator
    if randomness == "different":
        yield lambda: None
    elif randomness == "same":
        state = generator._rng.bit_generator.state

        def rewind() -> None:
            generator._rng.bit_generator.state = state

        yield rewind
    else:
        stream, generator._rng = generator._rng, _RandomnessError()
        try:
            yield lambda: None
        finally:
            generator._rng = stream


def _unbatched(name: str, results: list[Any]) -> Any:
    """An output for out_dim None: the same in every element (functorch refuses one that depends on the batch)."""
    first = results[0]
    if isinstance(first, Tensor) and any(
        not (isinstance(r, Tensor) and r.shape == first.shape and equal(r, first)) for r in results[1:]
    ):
        raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
    return first


def _stack_outputs(per_element: list[Any], out_dims: Any, func: Callable[..., Any]) -> Any:
    name = _name(func)
    flat = [tree_flatten(out) for out in per_element]
    spec = flat[0][1]
    if any(s != spec for _, s in flat[1:]):
        raise ValueError(
            f"vmap({name}, ...): `{name}` returned outputs of different structures for different batch elements; "
            "vmap needs one structure for the whole batch."
        )
    output = per_element[0]
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
    stacked = []
    for j, out_dim in enumerate(flat_out_dims):
        results = [leaves[j] for leaves, _ in flat]
        if out_dim is None:
            stacked.append(_unbatched(name, results))
            continue
        for r in results:
            if not isinstance(r, Tensor):
                raise ValueError(
                    f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(r)}. Did you mean to set "
                    "out_dims= to None for output?"
                )
        stacked.append(stack(results, out_dim))
    return tree_unflatten(stacked, spec)


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
    the same values for every element. chunk_size is checked and accepted; the loop runs one element at a time
    whatever it is. Keyword arguments are passed unbatched to every call, as in functorch. The first call warns
    once (VmapLoopWarning) that func runs as a Python loop over the batch.
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        _check_out_dims(out_dims, func)
        batch_size, flat_in_dims, flat_args, spec = _batched_inputs(in_dims, args, func)
        if batch_size == 0:
            raise NotImplementedError(
                f"vmap({_name(func)}): the batch is empty. glassgrad's vmap runs the function once per element (it "
                "has no batching rules yet), so with no element it cannot know the outputs' shapes; skip the call "
                "for an empty batch."
            )
        _warn_once(func)
        per_element = []
        with _randomness(randomness) as before_each:
            for i in range(batch_size):
                before_each()
                # Views, so that an in-place update inside func (a BatchNorm's running stats) reaches the batch
                sliced = [
                    a if d is None else a[(slice(None),) * d + (i,)]
                    for a, d in zip(flat_args, flat_in_dims, strict=True)
                ]
                per_element.append(func(*tree_unflatten(sliced, spec), **kwargs))
        return _stack_outputs(per_element, out_dims, func)

    return wrapped


def _warn_once(func: Callable[..., Any]) -> None:
    global _warned
    if _warned:
        return
    _warned = True
    warnings.warn(
        f"vmap({_name(func)}): glassgrad has no batching rules yet, so vmap runs the function once per batch element "
        "and stacks the results (the fallback functorch uses for an operator without a batching rule). Results, "
        "shapes and errors are vmap's; the speed is a Python loop's. This warning is given once.",
        VmapLoopWarning,
        stacklevel=3,
    )
