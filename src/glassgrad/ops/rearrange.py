"""Shape ops that move elements around: repeat, tile, flip, roll, rot90, triangles, diagonals and pixel shuffles.

All copy except `diagonal`, which is a view like PyTorch's. Each backward is the
adjoint rearrangement of the gradient, so none of them saves a tensor.
This module's ops are exported through indexing.py's tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..tensor import Size, Tensor
from .elementwise import refuse_barebones
from .shape import _shape_arg, as_view, clone, expand, flatten, reshape, unsqueeze
from .table import derivative


# -- repeat and tile ---------------------------------------------------------------------------
def _repeat_backward(grad: Tensor, repeats: tuple[int, ...], self_shape: Size) -> Tensor:
    """Sum the tiles: view the gradient as (r0, s0, r1, s1, ...) and reduce the r axes."""
    from .reduction import sum as reduce_sum

    if not repeats:
        return grad
    padded = (1,) * (len(repeats) - len(self_shape)) + tuple(self_shape)
    tiles = reshape(grad, tuple(n for r, s in zip(repeats, padded, strict=True) for n in (r, s)))
    return reshape(reduce_sum(tiles, tuple(range(0, 2 * len(repeats), 2))), self_shape)


RepeatBackward0 = derivative("RepeatBackward0", self=_repeat_backward)


def repeat(input: Tensor, *repeats: Any) -> Tensor:
    counts = _shape_arg(repeats)
    if len(counts) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    if any(r < 0 for r in counts):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(counts)}: {list(counts)}")
    padded = input._data.reshape((1,) * (len(counts) - input.ndim) + input._data.shape)
    return RepeatBackward0.record(np.tile(padded, counts), (input,), repeats=counts, self_shape=input.shape)


def tile(input: Tensor, *dims: Any) -> Tensor:
    counts = _shape_arg(dims)
    return repeat(input, (1,) * (input.ndim - len(counts)) + counts)


def repeat_interleave(input: Tensor, repeats: Tensor | int | None = None, dim: int | None = None, *, output_size: int | None = None) -> Tensor:
    if repeats is None:  # torch.repeat_interleave(repeats): the positions, each repeated
        if input.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        return repeat_interleave(Tensor._wrap(np.arange(input.numel(), dtype=np.int64)), input)
    x, d = (flatten(input), 0) if dim is None else (input, input._wrap_dim(dim))
    if isinstance(repeats, int):
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        if x.ndim == 0:
            x = reshape(x, 1)
        grown = expand(unsqueeze(x, d + 1), (*x.shape[: d + 1], repeats, *x.shape[d + 1 :]))
        return flatten(clone(grown), d, d + 1)
    counts = repeats._data
    if counts.ndim > 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if not np.issubdtype(counts.dtype, np.integer):
        raise RuntimeError("repeats has to be Long or Int tensor")
    size = x.shape[d] if x.ndim else 1
    if counts.size == 1:
        counts = np.broadcast_to(counts.reshape(-1), (size,))
    if counts.size != size:
        raise RuntimeError(
            f"repeats must have the same size as input along dim, but got repeats.size(0) = {counts.size} and "
            f"input.size({d}) = {size}"
        )
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    from .indexing import index_select

    positions = Tensor._wrap(np.repeat(np.arange(size, dtype=np.int64), counts))
    return index_select(x, d, positions)



# -- flips, rolls and rotations ----------------------------------------------------------------
FlipBackward0 = derivative("FlipBackward0", self=lambda grad, dims: flip(grad, dims))
RollBackward0 = derivative("RollBackward0", self=lambda grad, shifts, dims: roll(grad, tuple(-s for s in shifts), dims))
Rot90Backward0 = derivative("Rot90Backward0", self=lambda grad, k, dims: rot90(grad, -k, dims))


def flip(input: Tensor, *dims: Any) -> Tensor:
    refuse_barebones("flip_cpu", input)
    axes = tuple(input._wrap_dim(d) for d in _shape_arg(dims))
    if len(set(axes)) != len(axes):
        raise RuntimeError(f"dim {axes[0]} appears multiple times in the list of dims")
    return FlipBackward0.record(np.flip(input._data, axes).copy(), (input,), dims=axes)


def fliplr(input: Tensor) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input: Tensor) -> Tensor:
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


def _ints(x: int | Sequence[int]) -> tuple[int, ...]:
    return (int(x),) if isinstance(x, (int, np.integer)) else tuple(int(v) for v in x)


def roll(input: Tensor, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None) -> Tensor:
    steps = _ints(shifts)
    axes = None if dims is None else tuple(input._wrap_dim(d) for d in _ints(dims))
    if len(steps) != (1 if axes is None else len(axes)):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(steps)}, dims:{0 if axes is None else len(axes)}")
    out = np.roll(input._data, steps if axes is not None else steps[0], axis=axes)
    return RollBackward0.record(out, (input,), shifts=steps, dims=axes)


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = input._wrap_dim(dims[0]), input._wrap_dim(dims[1])
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    out = np.rot90(input._data, k % 4, axes=(d0, d1)).copy()
    return Rot90Backward0.record(out, (input,), k=k, dims=(d0, d1))


# -- triangles -----------------------------------------------------------------------------------
TrilBackward0 = derivative("TrilBackward0", self=lambda grad, diagonal: tril(grad, diagonal))
TriuBackward0 = derivative("TriuBackward0", self=lambda grad, diagonal: triu(grad, diagonal))


def _triangle(input: Tensor, diagonal: int, which: str) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError(f"{which}: input tensor must have at least 2 dimensions")
    np_fn, entry = (np.tril, TrilBackward0) if which == "tril" else (np.triu, TriuBackward0)
    return entry.record(np_fn(input._data, diagonal), (input,), diagonal=diagonal)


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(input, diagonal, "tril")


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(input, diagonal, "triu")


# -- diagonals -----------------------------------------------------------------------------------
def _diagonal_of(array: np.ndarray, offset: int, d1: int, d2: int) -> np.ndarray:
    """A writable strided view of a diagonal of `array`, the diagonal as the last axis (as PyTorch lays it out)."""
    n1, n2 = array.shape[d1], array.shape[d2]
    length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    start = [slice(None)] * array.ndim
    if length:
        start[d2 if offset >= 0 else d1] = slice(abs(offset), None)
    sliced = array[tuple(start)]
    rest = [i for i in range(array.ndim) if i not in (d1, d2)]
    return np.lib.stride_tricks.as_strided(
        sliced,
        (*tuple(array.shape[i] for i in rest), length),
        (*tuple(array.strides[i] for i in rest), array.strides[d1] + array.strides[d2]),
        writeable=array.flags.writeable,
    )


def _diagonal_dims(ndim: int, input: Tensor, dim1: int, dim2: int) -> tuple[int, int]:
    d1, d2 = input._wrap_dim(dim1, ndim), input._wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _place_diagonal(grad: Tensor, shape: Size | tuple[int, ...], offset: int, d1: int, d2: int) -> np.ndarray:
    out = np.zeros(shape, dtype=grad._data.dtype)
    _diagonal_of(out, offset, d1, d2)[...] = grad._data
    return out


DiagonalBackward0 = derivative(
    "DiagonalBackward0",
    self=lambda grad, self_shape, offset, dim1, dim2: _diagonal_backward(grad, self_shape, offset, dim1, dim2),
)
DiagonalCopyBackward0 = derivative(
    "DiagonalBackward0_copy",
    self=lambda grad, self_shape, offset, dim1, dim2: _diagonal_backward(grad, self_shape, offset, dim1, dim2),
)
DiagonalBackwardBackward0 = derivative(
    "DiagonalBackwardBackward0", self=lambda grad, offset, dim1, dim2: diagonal(grad, offset, dim1, dim2)
)
DiagEmbedBackward0 = derivative(
    "DiagEmbedBackward0", self=lambda grad, offset, dim1, dim2: diagonal(grad, offset, dim1, dim2)
)
TraceBackward0 = derivative(
    "TraceBackward0", self=lambda grad, self_shape: _diagonal_backward(expand(grad, (min(self_shape),)), self_shape, 0, 0, 1)
)


def _diagonal_backward(grad: Tensor, shape: Size, offset: int, dim1: int, dim2: int) -> Tensor:
    out = _place_diagonal(grad, shape, offset, dim1, dim2)
    return DiagonalBackwardBackward0.record(out, (grad,), offset=offset, dim1=dim1, dim2=dim2)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    d1, d2 = _diagonal_dims(input.ndim, input, dim1, dim2)
    result = DiagonalBackward0.record(
        _diagonal_of(input._data, offset, d1, d2), (input,), self_shape=input.shape, offset=offset, dim1=d1, dim2=d2
    )
    return as_view(result, input, diagonal, offset, d1, d2)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    d1, d2 = _diagonal_dims(input.ndim + 1, input, dim1, dim2)
    n = (input.shape[-1] if input.ndim else 1) + abs(offset)
    shape = list(input.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, n)
    out = _place_diagonal(input, tuple(shape), offset, d1, d2)
    return DiagEmbedBackward0.record(out, (input,), offset=offset, dim1=d1, dim2=d2)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    if input.ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    out = _diagonal_of(input._data, diagonal, 0, 1).copy()
    return DiagonalCopyBackward0.record(out, (input,), self_shape=input.shape, offset=diagonal, dim1=0, dim2=1)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    return diag(reshape(input, -1), offset)


def trace(input: Tensor) -> Tensor:
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    dtype = input._data.dtype if input.dtype.is_floating_point or input.dtype.is_complex else np.int64
    return TraceBackward0.record(np.asarray(np.trace(input._data, dtype=dtype)), (input,), self_shape=input.shape)


# -- pixel shuffle: channels to space and back -------------------------------------------------------
PixelShuffleBackward0 = derivative(
    "PixelShuffleBackward0", self=lambda grad, upscale_factor: pixel_unshuffle(grad, upscale_factor)
)
PixelUnshuffleBackward0 = derivative(
    "PixelUnshuffleBackward0", self=lambda grad, downscale_factor: pixel_shuffle(grad, downscale_factor)
)


def _check_int(name: str, value: Any, what: str) -> None:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"{name}(): argument '{what}' (position 2) must be int, not {type(value).__name__}")


def _check_shuffle(name: str, input: Tensor, factor: int, what: str) -> None:
    _check_int(name, factor, what)
    if input.ndim < 3:
        raise RuntimeError(
            f"{name} expects input to have at least 3 dimensions, but got input with {input.ndim} dimension(s)"
        )
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {factor}")


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C r^2, H, W) -> (*, C, H r, W r): each group of r^2 channels becomes an r x r block of pixels."""
    _check_shuffle("pixel_shuffle", input, upscale_factor, "upscale_factor")
    r = int(upscale_factor)
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
            f"but input.size(-3)={c} is not divisible by {r * r}"
        )
    lead = len(batch)
    blocks = input._data.reshape(*batch, c // (r * r), r, r, h, w)
    out = blocks.transpose(*range(lead + 1), lead + 3, lead + 1, lead + 4, lead + 2).reshape(*batch, c // (r * r), h * r, w * r)
    return PixelShuffleBackward0.record(out, (input,), upscale_factor=r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of pixel_shuffle."""
    _check_shuffle("pixel_unshuffle", input, downscale_factor, "downscale_factor")
    r = int(downscale_factor)
    *batch, c, h, w = input.shape
    for side, dim, size in (("height", -2, h), ("width", -1, w)):
        if size % r:
            raise RuntimeError(
                f"pixel_unshuffle expects {side} to be divisible by downscale_factor, but input.size({dim})={size} is not "
                f"divisible by {r}"
            )
    lead = len(batch)
    blocks = input._data.reshape(*batch, c, h // r, r, w // r, r)
    out = blocks.transpose(*range(lead + 1), lead + 2, lead + 4, lead + 1, lead + 3).reshape(*batch, c * r * r, h // r, w // r)
    return PixelUnshuffleBackward0.record(out, (input,), downscale_factor=r)


# Shuffling back with C / groups groups undoes a shuffle with `groups`.
ChannelShuffleBackward0 = derivative("ChannelShuffleBackward0", self=lambda grad, groups: channel_shuffle(grad, grad.shape[1] // groups))


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, C, *) with its channels read group by group and written interleaved: (N, g, C/g, *) transposed to (N, C/g, g, *)."""
    _check_int("channel_shuffle", groups, "groups")
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    out = input._data.reshape(n, groups, c // groups, *rest).swapaxes(1, 2).reshape(input.shape)
    return ChannelShuffleBackward0.record(out, (input,), groups=int(groups))


# -- what this module exports (through indexing.py) ----------------------------------------------
FUNCTIONS = {
    "repeat": repeat, "tile": tile, "repeat_interleave": repeat_interleave, "flip": flip, "fliplr": fliplr, "flipud": flipud, "roll": roll, "rot90": rot90,
    "tril": tril, "triu": triu, "diagonal": diagonal, "diag_embed": diag_embed, "diag": diag, "diagflat": diagflat,
    "trace": trace,
}
# The shuffles: torch.X is F.X too, and none is a Tensor method. native_channel_shuffle is channel_shuffle
# (PyTorch's has no derivative; this one has channel_shuffle's).
PIXEL_SHUFFLE = {
    "pixel_shuffle": pixel_shuffle, "pixel_unshuffle": pixel_unshuffle, "channel_shuffle": channel_shuffle,
    "native_channel_shuffle": channel_shuffle,
}
