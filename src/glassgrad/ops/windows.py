"""Sliding windows over the trailing (spatial) dims, and the convolution primitive built on them.

A convolution and its transpose are one node class (ConvolutionBackward0) whose formulas are again
convolutions, so derivatives of any order exist. Both directions share one description of the
geometry, ConvParams, with the padding of each spatial dim given as (low, high) amounts chosen so
that the windows cover the padded input exactly: then a convolution and the transposed
convolution with the same ConvParams are exact adjoints of each other, whatever the stride.
A convolution copies the windows once into columns (im2col, also F.unfold) and multiplies them with
the weight in one batched matmul; its transpose multiplies first and sums the columns back (col2im,
also F.fold).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..tensor import Tensor
from .linalg import product
from .shape import permute, reshape, transpose
from .table import derivative

Pads = tuple[tuple[int, int], ...]


class ConvParams(NamedTuple):
    stride: tuple[int, ...]
    pads: Pads  # (low, high) per spatial dim; negative amounts crop
    dilation: tuple[int, ...]
    groups: int = 1


def ntuple(value: Any, n: int, name: str) -> tuple[int, ...]:
    """An int or a sequence of n ints (or of one int) as n ints, as PyTorch's _ntuple."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    values = tuple(int(v) for v in value)
    if len(values) == 1:
        return values * n
    if len(values) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values, but got {name}={list(values)}")
    return values


def pad_crop(a: np.ndarray, pads: Pads, value: Any = 0) -> np.ndarray:
    """Pad the trailing len(pads) dims of `a` with `value`; negative amounts crop instead."""
    n = len(pads)
    lead = a.ndim - n
    crop = (Ellipsis, *(slice(max(-lo, 0), a.shape[lead + i] - max(-hi, 0)) for i, (lo, hi) in enumerate(pads)))
    widths = [(0, 0)] * lead + [(max(lo, 0), max(hi, 0)) for lo, hi in pads]
    return np.pad(a[crop], widths, constant_values=value)


def exact_pads(size: Sequence[int], kernel: Sequence[int], params: ConvParams) -> Pads:
    """Trim each dim's high padding to what the last window reaches (the rest is never read)."""
    out = output_size(size, kernel, params)
    return tuple(
        (lo, (o - 1) * s + d * (k - 1) + 1 - n - lo)
        for n, k, o, s, d, (lo, _) in zip(size, kernel, out, params.stride, params.dilation, params.pads, strict=True)
    )


def output_size(size: Sequence[int], kernel: Sequence[int], params: ConvParams) -> tuple[int, ...]:
    return tuple(
        (n + lo + hi - d * (k - 1) - 1) // s + 1
        for n, k, s, d, (lo, hi) in zip(size, kernel, params.stride, params.dilation, params.pads, strict=True)
    )


def windows(a: np.ndarray, kernel: Sequence[int], stride: Sequence[int], dilation: Sequence[int]) -> np.ndarray:
    """A view (..., *out, *kernel) of the windows of `a` over its trailing len(kernel) dims."""
    n = len(kernel)
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation, strict=True))
    view = sliding_window_view(a, span, axis=tuple(range(a.ndim - n, a.ndim)))
    return view[(Ellipsis, *(slice(None, None, s) for s in stride), *(slice(None, None, d) for d in dilation))]


def scatter_windows(cols: np.ndarray, size: Sequence[int], stride: Sequence[int], dilation: Sequence[int]) -> np.ndarray:
    """The adjoint of `windows`: cols (..., *out, *kernel) summed into zeros (..., *size).

    The loop runs over kernel offsets (a handful), each adding a strided block of all windows at once.
    """
    n = len(size)
    out, kernel = cols.shape[-2 * n : -n], cols.shape[-n:]
    result = np.zeros(cols.shape[: -2 * n] + tuple(size), dtype=cols.dtype)
    for offset in np.ndindex(*kernel):
        block = tuple(slice(k * d, k * d + s * (o - 1) + 1, s) for k, d, s, o in zip(offset, dilation, stride, out, strict=True))
        result[(Ellipsis, *block)] += cols[(Ellipsis, *offset)]
    return result


def _swap_groups(cols: np.ndarray, n: int) -> np.ndarray:
    """(N, C, *a, *b) as (N, C, *b, *a) for n dims in each group, a view: windows put the kernel dims last,
    columns put them first."""
    return np.moveaxis(cols, tuple(range(2, 2 + n)), tuple(range(2 + n, 2 + 2 * n)))


def im2col(a: np.ndarray, kernel: Sequence[int], p: ConvParams) -> np.ndarray:
    """(N, C, *size) as columns (N, C * prod(kernel), *out): every window's values in one column (one copy)."""
    n = len(kernel)
    cols = _swap_groups(windows(pad_crop(a, p.pads), kernel, p.stride, p.dilation), n)  # (N, C, *kernel, *out)
    return cols.reshape(a.shape[0], a.shape[1] * math.prod(kernel), *cols.shape[2 + n :])


def col2im(cols: np.ndarray, size: Sequence[int], kernel: Sequence[int], p: ConvParams) -> np.ndarray:
    """The adjoint of im2col: columns (N, C * prod(kernel), *out) summed back into (N, C, *size)."""
    n = len(kernel)
    blocks = cols.reshape(cols.shape[0], cols.shape[1] // math.prod(kernel), *kernel, *cols.shape[2:])
    padded = tuple(m + lo + hi for m, (lo, hi) in zip(size, p.pads, strict=True))
    summed = scatter_windows(_swap_groups(blocks, n), padded, p.stride, p.dilation)
    return pad_crop(summed, tuple((-lo, -hi) for lo, hi in p.pads))


def _conv_array(x: np.ndarray, w: np.ndarray, p: ConvParams) -> np.ndarray:
    # Columns split by group, (N, groups, C/g * prod(kernel), prod(out)), times the weight as
    # (groups, O/g, C/g * prod(kernel)): one batched matmul, and the result is already (N, O, *out).
    g, batch, o = p.groups, x.shape[0], w.shape[0]
    cols = im2col(x, w.shape[2:], p)
    out = cols.shape[2:]
    return product(w.reshape(g, o // g, w[0].size), cols.reshape(batch, g, w[0].size, math.prod(out))).reshape(batch, o, *out)


def _conv_transpose_array(x: np.ndarray, w: np.ndarray, p: ConvParams) -> np.ndarray:
    # The adjoint of _conv_array: the weight's transpose times the input gives the columns, and col2im sums
    # the overlapping windows into the output, whose size the exact pads fix.
    g, (batch, c), size = p.groups, x.shape[:2], x.shape[2:]
    cols = product(np.swapaxes(w.reshape(g, c // g, w[0].size), 1, 2), x.reshape(batch, g, c // g, math.prod(size)))
    out = tuple((i - 1) * s + d * (k - 1) + 1 - lo - hi
                for i, k, s, d, (lo, hi) in zip(size, w.shape[2:], p.stride, p.dilation, p.pads, strict=True))
    return col2im(cols.reshape(batch, g * w[0].size, *size), out, w.shape[2:], p)


def _weight_grad(big: Tensor, small: Tensor, kernel: tuple[int, ...], p: ConvParams) -> Tensor:
    """d<conv(big, w), small>/dw: itself a convolution of `big` with `small` over the batch dim,
    with stride and dilation swapped; exact pads make it come out at the kernel's size."""
    n, g = len(kernel), p.groups
    (batch, c), o = big.shape[:2], small.shape[1]
    spatial = tuple(range(3, 3 + n))
    x = reshape(permute(reshape(big, (batch, g, c // g, *big.shape[2:])), (2, 1, 0, *spatial)), (c // g, g * batch, *big.shape[2:]))
    w = reshape(permute(reshape(small, (batch, g, o // g, *small.shape[2:])), (1, 2, 0, *spatial)), (o, batch, *small.shape[2:]))
    return transpose(convolution(x, w, None, ConvParams(p.dilation, p.pads, p.stride, g)), 0, 1)


def _bias_grad(grad: Tensor) -> Tensor:
    return grad.sum((0, *range(2, grad.ndim)))


_FORMULAS = {
    "input": lambda grad, weight, params, transposed: convolution(grad, weight, None, params, not transposed),
    "weight": lambda grad, input, params, transposed, kernel: (
        _weight_grad(grad, input, kernel, params) if transposed else _weight_grad(input, grad, kernel, params)
    ),
}
ConvolutionBackward0 = derivative("ConvolutionBackward0", ("input", "weight", "bias"), **_FORMULAS, bias=_bias_grad)
ConvolutionNoBiasBackward0 = derivative("ConvolutionBackward0", ("input", "weight"), **_FORMULAS)


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, params: ConvParams, transposed: bool = False) -> Tensor:
    """The unchecked primitive. Weights are (out, in/groups, *k), or (in, out/groups, *k) when transposed;
    `params.pads` must be exact (see exact_pads) for the transposed direction to invert the sizes."""
    out = (_conv_transpose_array if transposed else _conv_array)(input._data, weight._data, params)
    attrs = {"params": params, "transposed": transposed, "kernel": tuple(weight.shape[2:])}
    if bias is None:
        return ConvolutionNoBiasBackward0.record(out, (input, weight), **attrs)
    out = out + bias._data.reshape(-1, *(1,) * (out.ndim - 2))
    return ConvolutionBackward0.record(out, (input, weight, bias), **attrs)
