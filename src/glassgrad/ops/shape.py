"""Shape ops. Most are views: they share storage and the version counter with their input and
remember how to replay themselves from the base, so an in-place op on a view can rebase the
base's history (CopySlices). None of them saves a tensor for backward. Lifting and broadcasting
several tensors together (atleast_*d, broadcast_tensors, hstack, meshgrid) is stacking.py's."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from .. import _layout
from ..autograd.engine import broadcast_dims
from ..autograd.forward_ad import state as forward_state
from ..autograd.grad_mode import state as mode_state
from ..autograd.grad_mode import usage as mode_usage
from ..autograd.inplace import track_view
from ..tensor import Size, Tensor
from .table import Derivative, MultiOutput, derivative, formulas_record

Shape = Sequence[int]


def _mark(name: str, attribute: str, value: str) -> Callable[[Tensor], Tensor]:
    """A mark in a view chain, replayed as nothing, that autograd/inplace.py reads when the view is written in place."""

    def mark(view: Tensor) -> Tensor:
        return view

    mark.__name__ = mark.__qualname__ = name
    setattr(mark, attribute, value)
    return mark


# The view was made in inference mode; the views after the mark were taken (grad mode on) of a view made in no_grad or
# inference mode. PyTorch forbids writing into either in place in normal grad mode.
_MADE_IN_INFERENCE = _mark("_made_in_inference", "made_in", "inference")
_AFTER_VIEW_MADE_IN = {mode: _mark(f"_after_{mode}_view", "after_view_made_in", mode) for mode in ("no_grad", "inference")}


def as_view(result: Tensor, input: Tensor, replay: Callable[..., Tensor], *args: Any) -> Tensor:
    """Mark `result` as a view of `input` if it shares input's memory (some ops copy only sometimes)."""
    if not np.may_share_memory(result._data, input._data):
        return result
    return mark_view(result, input, replay, *args)


def mark_view(result: Tensor, input: Tensor, replay: Callable[..., Tensor], *args: Any) -> Tensor:
    """Make `result` a view of `input`: same storage, same version counter, replayable from the base."""
    if input._is_inference and not mode_state.inference:  # no autograd view (no view key), as PyTorch's
        result._is_inference = True
        return result
    result._base = input._base if input._base is not None else input
    chain = input._view_chain
    if input._base is not None and input.grad_fn is None and input._requires_grad and result.grad_fn is not None:
        made_in = "inference" if any(getattr(fn, "made_in", None) for fn, _ in chain) else "no_grad"
        chain = (*chain, (_AFTER_VIEW_MADE_IN[made_in], ()))
    chain = (*chain, (replay, args))
    if mode_usage.inference and mode_state.inference:
        chain = (*chain, (_MADE_IN_INFERENCE, ()))
    result._view_chain = chain
    result._counter = input._version_counter
    result._is_inference = input._is_inference
    if result.grad_fn is None and input._requires_grad and not input._is_inference:
        result._requires_grad = True  # a view made under no_grad still requires grad, as its base does (not an inference tensor's)
    # Tracked so that an in-place op through the base reaches it: a view that requires grad; one of a dual (an in-place
    # op may change its tangent); any view taken in grad mode (an in-place op recorded on its base makes it require
    # grad, as in PyTorch)
    if result._requires_grad or forward_state.propagating or not mode_usage.grad_disabled or mode_state.grad_enabled:
        track_view(result._base, result)
    return result


def _record_view(entry: Derivative, out: np.ndarray, input: Tensor, replay: Callable[..., Tensor], *args: Any, **attrs: Any) -> Tensor:
    return as_view(entry.record(out, (input,), **attrs), input, replay, *args)


def _shape_arg(shape: tuple[Any, ...]) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        shape = shape[0]
    return tuple(map(int, shape))


def _infer_shape(shape: tuple[int, ...], numel: int) -> tuple[int, ...]:
    if -1 not in shape and math.prod(shape) == numel and (not shape or min(shape) >= 0):
        return shape  # nothing to infer and nothing wrong: the common case, kept cheap
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in shape if s != -1)
    if any(s < -1 for s in shape):
        raise RuntimeError(f"invalid shape dimension {min(shape)}")
    if unknown:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return shape


ViewBackward0 = derivative("ViewBackward0", self=lambda grad, self_shape: reshape(grad, self_shape))
UnsafeViewBackward0 = derivative("UnsafeViewBackward0", self=lambda grad, self_shape: reshape(grad, self_shape))


def view(input: Tensor, *shape: Any) -> Tensor:
    target = _infer_shape(_shape_arg(shape), input._data.size)
    out = input._data.view()
    try:
        out.shape = target
    except AttributeError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead."
        ) from None
    return _record_view(ViewBackward0, out, input, view, target, self_shape=input.shape)


def reshape(input: Tensor, *shape: Any) -> Tensor:
    target = _infer_shape(_shape_arg(shape), input._data.size)
    out = input._data.reshape(target)
    if np.may_share_memory(out, input._data):
        return _record_view(ViewBackward0, out, input, reshape, target, self_shape=input.shape)
    return UnsafeViewBackward0.record(out, (input,), self_shape=input.shape)


def view_as(input: Tensor, other: Tensor) -> Tensor:
    return view(input, other.shape)


def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(input, other.shape)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if input.ndim == 0:
        return reshape(input, 1)
    start, end = input._wrap_dim(start_dim), input._wrap_dim(end_dim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = input.shape
    return reshape(input, (*shape[:start], -1 if 0 not in shape else int(np.prod(shape[start : end + 1])), *shape[end + 1 :]))


def contiguous(input: Tensor, memory_format: Any = None) -> Tensor:
    """input itself when it is laid out as `memory_format` asks (row-major by default), else a copy that is."""
    return input if input.is_contiguous(memory_format=memory_format) else clone(input, memory_format=memory_format)


CloneBackward0 = derivative("CloneBackward0", self=lambda grad: grad)


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:
    return CloneBackward0.record(_layout.arranged(input._data, memory_format), (input,))


TransposeBackward0 = derivative("TransposeBackward0", self=lambda grad, dim0, dim1: transpose(grad, dim0, dim1))
PermuteBackward0 = derivative("PermuteBackward0", self=lambda grad, dims: permute(grad, tuple(np.argsort(dims))))
TBackward0 = derivative("TBackward0", self=lambda grad: transposed(grad))


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    d0, d1 = input._wrap_dim(dim0), input._wrap_dim(dim1)
    if input._data.ndim == 0:
        return _record_view(TransposeBackward0, input._data.view(), input, transpose, dim0, dim1, dim0=0, dim1=0)
    return _swapped(input, d0, d1)


def _swapped(input: Tensor, d0: int, d1: int) -> Tensor:
    """The transpose view of dims d0 and d1, which must already be wrapped into range."""
    return _record_view(TransposeBackward0, input._data.swapaxes(d0, d1), input, transpose, d0, d1, dim0=d0, dim1=d1)


def t(input: Tensor) -> Tensor:
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return _record_view(TBackward0, input._data.T, input, t)


def transposed(a: Tensor) -> Tensor:
    """A formula's t(a): the recorded view when a graph is being built, else NumPy's transpose alone.

    Without a graph nobody sees the view, and a gradient transposed back (a linear layer's weight, see
    AddmmBackward0) then reaches AccumulateGrad as a plain row-major array that the leaf keeps without a copy.
    """
    if formulas_record():
        return t(a)
    if a._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a._data.ndim}D")
    return Tensor._wrap(a._data.T)


def permute(input: Tensor, *dims: Any) -> Tensor:
    order = _shape_arg(dims)
    if len(order) != input.ndim:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
            f"ordering of dimensions i.e. input.dim() = {input.ndim} is not equal to len(dims) = {len(order)}"
        )
    order = tuple(input._wrap_dim(d) for d in order)
    if len(set(order)) != len(order):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _record_view(PermuteBackward0, np.transpose(input._data, order), input, permute, order, dims=order)


def mT(input: Tensor) -> Tensor:
    ndim = input._data.ndim
    if ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return _swapped(input, ndim - 2, ndim - 1)  # in range by construction: transpose's dim checks are not needed


ExpandBackward0 = derivative("ExpandBackward0", self=lambda grad, self_shape: sum_to_size(grad, self_shape))


def expand(input: Tensor, *sizes: Any) -> Tensor:
    target = _shape_arg(sizes)
    data = input._data
    lead = len(target) - data.ndim
    if lead < 0:
        raise RuntimeError(
            f"expand(torch.FloatTensor{{[{', '.join(map(str, input.shape))}]}}, size=[{', '.join(map(str, target))}]): "
            "the number of sizes provided must be greater or equal to the number of dimensions in the tensor"
        )
    final = target if -1 not in target else tuple(data.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(target))
    try:
        out = data.view() if final == data.shape else broadcast_view(data, final)
    except ValueError:
        raise RuntimeError(
            f"The expanded size of the tensor ({final[-1]}) must match the existing size ({input.shape[-1]}) at "
            f"non-singleton dimension {len(final) - 1}.  Target sizes: [{', '.join(map(str, target))}].  "
            f"Tensor sizes: [{', '.join(map(str, input.shape))}]"
        ) from None
    return _record_view(ExpandBackward0, out, input, expand, final, self_shape=input.shape)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, other.shape)


def broadcast_to(input: Tensor, size: Shape) -> Tensor:
    return expand(input, tuple(size))


UnsqueezeBackward0 = derivative("UnsqueezeBackward0", self=lambda grad, dim: squeeze(grad, dim))
# PyTorch names the overload: squeeze(), squeeze(dim), squeeze(dims).
SqueezeBackward0, SqueezeBackward1, SqueezeBackward2 = (
    derivative(f"SqueezeBackward{i}", self=lambda grad, self_shape: reshape(grad, self_shape)) for i in range(3)
)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    d = input._wrap_dim(dim, input.ndim + 1)
    data = input._data
    # np.expand_dims is this reshape (a unit dim never needs a copy) behind 2 us of argument handling
    return _record_view(UnsqueezeBackward0, data.reshape((*data.shape[:d], 1, *data.shape[d:])), input, unsqueeze, d, dim=d)


def squeeze(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    shape = input.shape
    if dim is None:
        axes = tuple(i for i, s in enumerate(shape) if s == 1)
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        wrapped = [input._wrap_dim(d) for d in dims]
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"dim {wrapped[0]} appears multiple times in the list of dims")
        axes = tuple(sorted(set(wrapped)))
        axes = tuple(a for a in axes if input.ndim and shape[a] == 1)
    out = np.squeeze(input._data, axis=axes) if axes else input._data.view()
    entry = SqueezeBackward0 if dim is None else SqueezeBackward1 if isinstance(dim, int) else SqueezeBackward2
    return _record_view(entry, out, input, squeeze, dim, self_shape=shape)


def broadcast_view(data: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """np.broadcast_to(data, shape), a read-only view, in a third of its time for a contiguous `data`.

    np.broadcast_to spends about 3 us in Python argument handling; for a contiguous array (the usual
    gradient) the view is one ndarray constructor over its buffer, with zero strides where it stretches.
    """
    lead = len(shape) - data.ndim
    if lead < 0 or not data.flags.c_contiguous or not data.size:
        return np.broadcast_to(data, shape)
    strides = [0] * lead
    # Read-only only where two elements share memory (PyTorch refuses writes there); an expand that only adds
    # unit dimensions, as (4,) to (1, 4), stays writable, as PyTorch's does.
    overlapping = any(size > 1 for size in shape[:lead])
    for size, have, stride in zip(shape[lead:], data.shape, data.strides):  # noqa: B905 - lengths equal by construction
        if have == size:
            strides.append(stride)
        elif have == 1:
            strides.append(0)
            overlapping = True
        else:
            return np.broadcast_to(data, shape)  # cannot broadcast: NumPy raises its error
    out = np.ndarray(shape, data.dtype, data, 0, strides)
    out.flags.writeable = not overlapping
    return out


def sum_to_size(input: Tensor, *size: Any) -> Tensor:
    """Sum `input` down to `size` (which it must broadcast from): the gradient of a broadcast."""
    from .reduction import sum as reduce_sum  # reduction.py imports this module

    target = _shape_arg(size)
    shape = input._data.shape
    dims = broadcast_dims(shape, target)
    if dims is None:
        raise RuntimeError(f"size {{{list(target)}}} is not expandable to size {{{list(Size(shape))}}}.")
    lead = len(shape) - len(target)
    if len(dims) == lead:  # only leading dims to sum away (or none): one reduction at most, no reshape
        return reduce_sum(input, dims) if dims else input
    summed = reduce_sum(input, dims, keepdim=True)
    return reshape(summed, target) if lead else summed


CatBackward0 = derivative("CatBackward0")
StackBackward0 = derivative("StackBackward0")


def _many(entry_name: str, tensors: Sequence[Tensor], out: np.ndarray, dim: int, backward: Callable[..., Any]) -> Tensor:
    """cat and stack: one node with an input per tensor, each gradient a slice of the output's."""
    entry = _many_entries.get((entry_name, len(tensors)))
    if entry is None:
        names = tuple(f"tensors{i}" for i in range(len(tensors)))
        formulas = {n: _slice_formula(backward, i) for i, n in enumerate(names)}
        entry = _many_entries[(entry_name, len(tensors))] = Derivative(entry_name, names, formulas)
    return entry.record(out, tuple(tensors), dim=dim, sizes=tuple(t.shape for t in tensors))


_many_entries: dict[tuple[str, int], Derivative] = {}


def _slice_formula(backward: Callable[..., Any], index: int) -> Callable[..., Any]:
    def formula(grad: Tensor, dim: int, sizes: tuple[Size, ...]) -> Tensor:
        return backward(grad, dim, sizes, index)

    return formula


def _cat_piece(grad: Tensor, dim: int, sizes: tuple[Size, ...], index: int) -> Tensor:
    if len(sizes[index]) == 1 and sizes[index][0] == 0 and grad.ndim > 1:
        from .creation import zeros

        return zeros(sizes[index], dtype=grad.dtype)
    start = sum(s[dim] for s in sizes[:index] if not (len(s) == 1 and s[0] == 0))
    return narrow(grad, dim, start, sizes[index][dim])


def _stack_piece(grad: Tensor, dim: int, sizes: tuple[Size, ...], index: int) -> Tensor:
    return select(grad, dim, index)


def _check_many(tensors: Sequence[Tensor], what: str) -> None:
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{what}(): argument 'tensors' must be tuple of Tensors, not {type(tensors).__name__}")
    if not tensors:
        if what == "cat":
            raise ValueError("torch.cat(): expected a non-empty list of Tensors")
        raise RuntimeError(f"{what} expects a non-empty TensorList")
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(x).__name__}")


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    from .._dtype import result_type

    _check_many(tensors, "cat")
    parts = [x for x in tensors if not (x.ndim == 1 and x.shape[0] == 0)] or list(tensors[:1])
    d = parts[0]._wrap_dim(dim)
    common = result_type(*tensors)
    for number, x in enumerate(tensors):
        if x.ndim == 1 and x.shape[0] == 0:
            continue  # legacy: empty 1-D tensors join anything
        if x.ndim != parts[0].ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {parts[0].ndim} and {x.ndim}"
            )
        for axis in range(x.ndim):
            if axis != d and x.shape[axis] != parts[0].shape[axis]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {parts[0].shape[axis]} but "
                    f"got size {x.shape[axis]} for tensor number {number} in the list."
                )
    out = np.concatenate([x._data.astype(common.np, copy=False) for x in parts], axis=d)
    return _many("CatBackward0", tensors, out, d, _cat_piece)


concat = concatenate = cat


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    from .._dtype import result_type

    _check_many(tensors, "stack")
    d = tensors[0]._wrap_dim(dim, tensors[0].ndim + 1)
    for i, x in enumerate(tensors):
        if x.shape != tensors[0].shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at entry 0 and "
                f"{list(x.shape)} at entry {i}"
            )
    common = result_type(*tensors)
    out = np.stack([x._data.astype(common.np, copy=False) for x in tensors], axis=d)
    return _many("StackBackward0", tensors, out, d, _stack_piece)


def _slice_entry(name: str) -> Derivative:
    return derivative(name, self=lambda grad, self_shape, dim, start: _pad_slice(grad, self_shape, dim, start))


def _select_entry(name: str) -> Derivative:
    return derivative(
        name, self=lambda grad, self_shape, dim, index: _pad_slice(unsqueeze(grad, dim), self_shape, dim, index)
    )


NarrowBackward = _slice_entry("SliceBackward0")
SelectBackward0 = _select_entry("SelectBackward0")


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = input._wrap_dim(dim)
    size = input.shape[d]
    if start < 0:
        start += size
    if not 0 <= start <= size or length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _narrow_view(input, d, start, length, NarrowBackward)


def _narrow_view(input: Tensor, d: int, start: int, length: int, entry: Derivative) -> Tensor:
    index = (slice(None),) * d + (slice(start, start + length),)
    return _record_view(entry, input._data[index], input, narrow, d, start, length, self_shape=input.shape, dim=d, start=start)


def _split_piece(input: Tensor, d: int, start: int, length: int, output_nr: int) -> Tensor:
    """Replays piece `output_nr` of a split: the view chain keeps which output of the op the view was."""
    return narrow(input, d, start, length)


def _unbind_piece(input: Tensor, d: int, index: int, output_nr: int) -> Tensor:
    return select(input, d, index)


# Views that are one of several an op returned: PyTorch forbids writing into them in place (autograd/inplace.py)
_split_piece.one_of_many = _unbind_piece.one_of_many = True  # type: ignore[attr-defined]


def _pieces(input: Tensor, d: int, lengths: Sequence[int], entry_name: str, **attrs: Any) -> tuple[Tensor, ...]:
    """The views split and chunk return, of these lengths along dim d: outputs of one node, as in PyTorch."""
    index = (slice(None),) * d
    bounds = list(zip(itertools.accumulate(lengths), lengths, strict=True))  # (end, length) of each piece
    outs = [input._data[(*index, slice(end - length, end))] for end, length in bounds]
    results = split_entry(entry_name, len(outs)).record_all(outs, (input,), self_sym_sizes=input.shape, dim=d, **attrs)
    return tuple(
        mark_view(results[nr], input, _split_piece, d, end - length, length, nr) for nr, (end, length) in enumerate(bounds)
    )


def _with_zeros(grads: tuple[Tensor | None, ...], shapes: Iterable[tuple[int, ...]]) -> list[Tensor]:
    """The outputs' gradients, zeros where an output got none (a node runs when at least one did)."""
    like = next(g for g in grads if g is not None)._data.dtype
    return [Tensor._wrap(np.zeros(shape, like)) if g is None else g for g, shape in zip(grads, shapes, strict=True)]


def _placed(grads: tuple[Tensor | None, ...], shape: Size, dim: int, places: Iterable[int | slice]) -> Tensor:
    """The input's gradient as one buffer, each output's gradient written at its place along dim: what cat or stack
    computes, without a zeros array per output that got no gradient (when nothing differentiates the result)."""
    out = np.zeros(shape, np.result_type(*(g._data for g in grads if g is not None)))
    index = (slice(None),) * dim
    for g, place in zip(grads, places, strict=True):
        if g is not None:
            out[(*index, place)] = g._data
    return Tensor._wrap(out)


def _split_backward(grads: tuple[Tensor | None, ...], self_sym_sizes: Size, dim: int, lengths: Sequence[int]) -> Tensor:
    if not formulas_record():
        places = [slice(end - n, end) for end, n in zip(itertools.accumulate(lengths), lengths, strict=True)]
        return _placed(grads, self_sym_sizes, dim, places)
    shapes = ((*self_sym_sizes[:dim], n, *self_sym_sizes[dim + 1 :]) for n in lengths)
    return cat(_with_zeros(grads, shapes), dim)


def _split_lengths(size: int, split_size: int) -> list[int]:
    return [min(split_size, size - start) for start in range(0, size, split_size)] if size else [0]


def _unbind_backward(grads: tuple[Tensor | None, ...], dim: int) -> Tensor:
    shape = next(g for g in grads if g is not None).shape
    if not formulas_record():
        return _placed(grads, (*shape[:dim], len(grads), *shape[dim:]), dim, range(len(grads)))
    return stack(_with_zeros(grads, [shape] * len(grads)), dim)


# A node with one output per piece; its formula takes all their gradients at once
_SPLIT_FORMULAS: dict[str, Callable[..., Any]] = {
    "SplitBackward0": lambda grads, self_sym_sizes, dim, split_size: _split_backward(
        grads, self_sym_sizes, dim, _split_lengths(self_sym_sizes[dim], split_size)
    ),
    "SplitWithSizesBackward0": lambda grads, self_sym_sizes, dim, split_sizes: _split_backward(
        grads, self_sym_sizes, dim, split_sizes
    ),
    "UnbindBackward0": lambda grads, dim: _unbind_backward(grads, dim),
}
_SPLIT_FORMULAS["UnsafeSplitBackward0"] = _SPLIT_FORMULAS["SplitBackward0"]
_SPLIT_FORMULAS["UnsafeSplitWithSizesBackward0"] = _SPLIT_FORMULAS["SplitWithSizesBackward0"]
_split_entries: dict[tuple[str, int], MultiOutput] = {}


def split_entry(name: str, count: int) -> MultiOutput:
    """The table entry of a split-like op (split, split_with_sizes, unbind, their unsafe forms) with `count` pieces."""
    entry = _split_entries.get((name, count))
    if entry is None:
        outputs = tuple(f"result{i}" for i in range(count))
        entry = _split_entries[(name, count)] = MultiOutput(name, ("self",), outputs, complex=True, self=_SPLIT_FORMULAS[name])
    return entry


def select(input: Tensor, dim: int, index: int) -> Tensor:
    return _select_view(input, dim, index, SelectBackward0)


def _select_view(input: Tensor, dim: int, index: int, entry: Derivative) -> Tensor:
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = input._wrap_dim(dim)
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at dimension {d}")
    i = index % size
    view_index = (slice(None),) * d + (i, Ellipsis)  # the Ellipsis keeps a 0-d result a view, not a scalar copy
    return _record_view(entry, input._data[view_index], input, select, d, i, self_shape=input.shape, dim=d, index=i)


PadSliceBackward = derivative(
    "SliceBackwardBackward0", self=lambda grad, dim, start, length: narrow(grad, dim, start, length)
)


def _pad_slice(grad: Tensor, shape: Size, dim: int, start: int) -> Tensor:
    """Zeros of `shape` with `grad` placed at [start, start+len) along `dim` (differentiable)."""
    out = np.zeros(shape, dtype=grad._data.dtype)
    length = grad.shape[dim]
    out[(slice(None),) * dim + (slice(start, start + length),)] = grad._data
    return PadSliceBackward.record(out, (grad,), dim=dim, start=start, length=length)


# -- splitting into views -------------------------------------------------------------------
def split(tensor: Tensor, split_size_or_sections: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    if not isinstance(split_size_or_sections, int):
        return _split_with_sizes(tensor, tuple(split_size_or_sections), dim)
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = tensor._wrap_dim(dim)
    size, step = tensor.shape[d], split_size_or_sections
    if step < 0 or (step == 0 and size):
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    return _pieces(tensor, d, _split_lengths(size, step), "SplitBackward0", split_size=step)


def _split_with_sizes(tensor: Tensor, sizes: tuple[int, ...], dim: int) -> tuple[Tensor, ...]:
    d = tensor._wrap_dim(dim)
    size = tensor.shape[d] if tensor.ndim else 0
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={list(sizes)}")
    if sum(sizes) != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension {d}), "
            f"but got split_sizes={list(sizes)}"
        )
    return _pieces(tensor, d, sizes, "SplitWithSizesBackward0", split_sizes=sizes)


def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    return _split_with_sizes(input, tuple(split_sizes), dim)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    size = input.shape[input._wrap_dim(dim)]
    if size == 0:
        return _split_with_sizes(input, (0,) * chunks, dim)
    return split(input, -(-size // chunks), dim)


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = input._wrap_dim(dim)
    size = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        bigger = size % sections
        lengths = [size // sections + (i < bigger) for i in range(sections)]
        bounds = [int(b) for b in np.cumsum([0, *lengths])]
    else:
        bounds = [0, *indices_or_sections, size]
    pieces = []
    for start, stop in itertools.pairwise(bounds):
        first, last, _ = slice(start, stop).indices(size)
        pieces.append(_narrow_view(input, d, first, max(last - first, 0), NarrowBackward))
    return tuple(pieces)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = input._wrap_dim(dim)
    view_index = (slice(None),) * d
    outs = [input._data[(*view_index, i, Ellipsis)] for i in range(input.shape[d])]
    if not outs:
        return ()
    results = split_entry("UnbindBackward0", len(outs)).record_all(outs, (input,), dim=d)
    return tuple(mark_view(results[i], input, _unbind_piece, d, i, i) for i in range(len(outs)))


# -- moving and regrouping dims --------------------------------------------------------------
def unflatten(input: Tensor, dim: int, sizes: Shape) -> Tensor:
    if input.ndim == 0:
        raise RuntimeError("unflatten got an unexpected error: Dimension specified as 0 but tensor has no dimensions")
    d = input._wrap_dim(dim)
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    size = input.shape[d]
    known = int(np.prod([s for s in sizes if s != -1], dtype=np.int64))
    if (-1 not in sizes and known != size) or (-1 in sizes and (known == 0 or size % known)):
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} ({size}) in the input tensor"
        )
    sizes = tuple(size // known if s == -1 else s for s in sizes)  # inferred here: the whole tensor may be empty
    return view(input, (*input.shape[:d], *sizes, *input.shape[d + 1 :]))


def _dim_list(input: Tensor, dims: int | Sequence[int], what: str) -> tuple[int, ...]:
    wrapped = tuple(input._wrap_dim(d) for d in ((dims,) if isinstance(dims, int) else dims))
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"movedim: repeated dim in `{what}` ({list(dims) if not isinstance(dims, int) else dims})")
    return wrapped


def movedim(input: Tensor, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
    src, dst = _dim_list(input, source, "source"), _dim_list(input, destination, "destination")
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain the same number "
            f"of dims as destination ({list(dst)} dims)"
        )
    rest = iter(d for d in range(input.ndim) if d not in src)
    placed = dict(zip(dst, src, strict=True))
    return permute(input, tuple(placed[i] if i in placed else next(rest) for i in range(input.ndim)))


# -- what this module exports (collected by ops/__init__.py) --------------------------------
_BOTH = {
    "reshape": reshape, "flatten": flatten, "unflatten": unflatten, "clone": clone, "transpose": transpose,
    "swapaxes": transpose, "swapdims": transpose, "t": t, "permute": permute, "movedim": movedim, "moveaxis": movedim,
    "broadcast_to": broadcast_to, "unsqueeze": unsqueeze, "squeeze": squeeze, "narrow": narrow, "select": select,
    "split": split, "split_with_sizes": split_with_sizes, "chunk": chunk, "tensor_split": tensor_split, "unbind": unbind,
}
FUNCTIONS = {**_BOTH, "cat": cat, "concat": cat, "concatenate": cat, "stack": stack}
METHODS = {
    **_BOTH, "view": view, "view_as": view_as, "reshape_as": reshape_as, "contiguous": contiguous, "expand": expand,
    "expand_as": expand_as, "sum_to_size": sum_to_size,
}
INPLACE = ()
