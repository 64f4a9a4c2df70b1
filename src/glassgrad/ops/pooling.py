"""Window pooling of glassgrad.nn.functional: max, average and power-average (LP) pooling in 1 to 3 dims,
fractional max pooling, and max unpooling.

Max pooling picks from gathered windows and sends the gradient back to the argmax; max unpooling
runs that scatter forward (and gathers on the way back). Average pooling is a window sum whose
gradient is a transposed convolution with a kernel of ones. LP pooling is average pooling of x^p,
composed of glassgrad ops as PyTorch composes it. Adaptive pooling and interpolation are in
resampling.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._dtype import int64, is_floating
from ..tensor import Tensor
from .activations import relu
from .creation import rand, zeros
from .elementwise import abs, mul, neg, not_implemented_for, pow, sign
from .indexing import scatter, scatter_into_zeros
from .shape import reshape, squeeze, unsqueeze
from .table import derivative
from .windows import ConvParams, convolution, ntuple, output_size, pad_crop, windows

NAMESPACE = "glassgrad.nn.functional"
IntOrTuple = int | Sequence[int]


def batched(input: Tensor, n: int) -> tuple[Tensor, bool]:
    """An unbatched input (one dim fewer) as a batch of one, and whether it was unbatched."""
    if not isinstance(input, Tensor):
        raise TypeError(f"argument 'input' must be Tensor, not {type(input).__name__}")
    if input.ndim not in (n + 1, n + 2) or 0 in input.shape[1:]:
        if n == 3:
            raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
        raise RuntimeError(
            f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with optional 0 dim batch size for input, but got: "
            f"{list(input.shape)}"
        )
    return (unsqueeze(input, 0), True) if input.ndim == n + 1 else (input, False)


def unbatch(out: Tensor, unbatched: bool) -> Tensor:
    return squeeze(out, 0) if unbatched else out


def _flat(t: Tensor, spatial: int) -> Tensor:
    return reshape(t, (*t.shape[:2], spatial))


def _unpool(grad: Tensor, self_shape: tuple[int, ...], indices: Tensor) -> Tensor:
    """Each output's gradient goes to the input element it was taken from (summed where windows overlap)."""
    spatial = math.prod(self_shape[2:])
    flat_indices = Tensor._wrap(indices._data.reshape(*indices.shape[:2], math.prod(indices.shape[2:])))
    return reshape(scatter_into_zeros(_flat(grad, flat_indices.shape[2]), (*self_shape[:2], spatial), 2, flat_indices), self_shape)


MAX_PICK_ENTRIES = {
    name: derivative(name, self=_unpool)
    for name in ("MaxPool2DWithIndicesBackward0", "MaxPool3DWithIndicesBackward0", "AdaptiveMaxPool2DBackward0",
                 "AdaptiveMaxPool3DBackward0", "FractionalMaxPool2DBackward0", "FractionalMaxPool3DBackward0")
}


def max_pick(padded: np.ndarray, tables: list[np.ndarray], lows: Sequence[int], size: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The max of each window and its flat index into the unpadded spatial dims.

    tables[i][..., o, k] is the padded position along spatial dim i of window o's k-th element; the leading
    dims are empty when every plane has the same windows, or (N, C) when each plane draws its own
    (fractional pooling). Ties go to the first element in row-major window order, as PyTorch's kernels
    scan, and NaN wins as in PyTorch (numpy's argmax picks the first NaN).
    """
    n = len(tables)
    lead = tables[0].shape[:-2]

    def planes(trailing: int) -> list[np.ndarray]:  # (N, C) index grids that broadcast over `trailing` more dims
        return [np.arange(s).reshape((-1,) + (1,) * (len(lead) - 1 - d + trailing)) for d, s in enumerate(lead)]

    index: list[Any] = planes(2 * n) if lead else [slice(None), slice(None)]
    for i, table in enumerate(tables):
        shape = [1] * (2 * n)
        shape[2 * i : 2 * i + 2] = table.shape[-2:]
        index.append(table.reshape(*lead, *shape))
    gathered = padded[tuple(index)]  # (N, C, O0, K0, O1, K1, ...)
    gathered = gathered.transpose(0, 1, *range(2, 2 + 2 * n, 2), *range(3, 2 + 2 * n, 2))
    flat = gathered.reshape(*gathered.shape[: 2 + n], math.prod(gathered.shape[2 + n :]))
    arg = flat.argmax(-1)
    values = np.take_along_axis(flat, arg[..., None], -1)[..., 0]
    offsets = np.unravel_index(arg, tuple(t.shape[-1] for t in tables))
    flat_index = np.zeros(arg.shape, dtype=np.int64)
    for i, table in enumerate(tables):
        rows = np.arange(table.shape[-2]).reshape((-1,) + (1,) * (n - 1 - i))
        flat_index = flat_index * size[i] + (table[(*planes(n), rows, offsets[i])] - lows[i])
    return values, flat_index


def with_indices(values: Tensor, indices: np.ndarray, unbatched: bool, return_indices: bool) -> Any:
    out = unbatch(values, unbatched)
    return (out, unbatch(Tensor._wrap(indices), unbatched)) if return_indices else out


# -- max and average pooling ---------------------------------------------------------------------------------------
def _pool_params(x: Tensor, n: int, kernel_size: IntOrTuple, stride: IntOrTuple | None, padding: IntOrTuple,
                 dilation: IntOrTuple, ceil_mode: bool) -> tuple[tuple[int, ...], ConvParams]:
    """Kernel and geometry with exact pads: the high side reaches just the last window (PyTorch's ceil_mode rule)."""
    kernel = ntuple(kernel_size, n, "kernel_size")
    strides = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else ntuple(stride, n, "stride")
    pads, dilations = ntuple(padding, n, "padding"), ntuple(dilation, n, "dilation")
    if min(kernel) <= 0 or min(strides) <= 0 or min(dilations) <= 0:
        raise RuntimeError(f"kernel size, stride and dilation should be greater than zero, but got kernel_size={list(kernel)} stride={list(strides)} dilation={list(dilations)}")
    if any(p < 0 or p > ((k - 1) * d + 1) // 2 for p, k, d in zip(pads, kernel, dilations, strict=True)):
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={list(pads)}, kernel_size={list(kernel)} and dilation={list(dilations)}")
    sizes = x.shape[2:]
    outs = []
    for size, k, s, p, d in zip(sizes, kernel, strides, pads, dilations, strict=True):
        out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
        outs.append(out - 1 if ceil_mode and (out - 1) * s >= size + p else out)
    if min(outs) <= 0:
        raise RuntimeError(f"Given input size: ({' x '.join(map(str, x.shape[1:]))}). Calculated output size: ({' x '.join(map(str, [x.shape[1], *outs]))}). Output size is too small")
    exact = tuple((p, (o - 1) * s + d * (k - 1) + 1 - size - p)
                  for size, k, s, p, d, o in zip(sizes, kernel, strides, pads, dilations, outs, strict=True))
    return kernel, ConvParams(strides, exact, dilations)


def _max_pool(n: int, input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None, padding: IntOrTuple,
              dilation: IntOrTuple, ceil_mode: bool, return_indices: bool) -> Any:
    x, unbatched = batched(input, n)
    kernel, p = _pool_params(x, n, kernel_size, stride, padding, dilation, ceil_mode)
    data = x._data
    fill = -np.inf if is_floating(data.dtype) else np.iinfo(data.dtype).min
    outs = output_size(x.shape[2:], kernel, p)
    tables = [np.arange(o)[:, None] * s + np.arange(k) * d for o, k, s, d in zip(outs, kernel, p.stride, p.dilation, strict=True)]
    values, indices = max_pick(pad_crop(data, p.pads, fill), tables, [lo for lo, _ in p.pads], x.shape[2:])
    entry = MAX_PICK_ENTRIES[f"MaxPool{max(n, 2)}DWithIndicesBackward0"]  # PyTorch pools 1-d as 2-d
    out = entry.record(values, (x,), self_shape=tuple(x.shape), indices=Tensor._wrap(indices))
    return with_indices(out, indices, unbatched, return_indices)


def max_pool1d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
               dilation: IntOrTuple = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
               dilation: IntOrTuple = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
               dilation: IntOrTuple = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


# The *_with_indices functions return (values, indices) whatever return_indices says, as PyTorch's do.
def max_pool1d_with_indices(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
                            dilation: IntOrTuple = 1, ceil_mode: bool = False, return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
                            dilation: IntOrTuple = 1, ceil_mode: bool = False, return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
                            dilation: IntOrTuple = 1, ceil_mode: bool = False, return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _avg_grad(grad: Tensor, self_shape: tuple[int, ...], kernel: tuple[int, ...], params: ConvParams, scale: np.ndarray) -> Tensor:
    """Spread each output's gradient over its window: a transposed convolution with a kernel of ones."""
    spread = reshape(grad * Tensor._wrap(scale.astype(grad._data.dtype)), (-1, 1, *grad.shape[2:]))
    ones = Tensor._wrap(np.ones((1, 1, *kernel), dtype=grad._data.dtype))
    return reshape(convolution(spread, ones, None, params, transposed=True), self_shape)


_AVG_POOL_ENTRIES = {n: derivative(f"AvgPool{n}DBackward0", self=_avg_grad) for n in (2, 3)}


def _avg_pool(n: int, input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None, padding: IntOrTuple,
              ceil_mode: bool, count_include_pad: bool, divisor_override: int | None) -> Tensor:
    x, unbatched = batched(input, n)
    kernel, p = _pool_params(x, n, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if n == 3 and any(size < k for size, k in zip(x.shape[2:], kernel, strict=True)):  # PyTorch's 3-d kernel only, padding aside
        (t, h, w), (kt, kh, kw) = x.shape[2:], kernel
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size (kT: {kt} kH: {kh} kW: {kw})")
    sums = windows(pad_crop(x._data, p.pads), kernel, p.stride, p.dilation).sum(axis=tuple(range(-n, 0)))
    divisor = np.ones(())
    for size, k, s, (lo, _), o in zip(x.shape[2:], kernel, p.stride, p.pads, sums.shape[2:], strict=True):
        # PyTorch counts padding up to `padding` past the input, never the extra that ceil_mode reaches.
        start = np.arange(o) * s - lo
        end = np.minimum(start + k, size + lo)
        counts = end - start if count_include_pad else np.minimum(end, size) - np.maximum(start, 0)
        divisor = np.multiply.outer(divisor, counts)
    scale = 1.0 / (divisor if divisor_override is None else np.full(divisor.shape, divisor_override))
    out = (sums * scale).astype(x._data.dtype, copy=False)
    entry = _AVG_POOL_ENTRIES[max(n, 2)]
    result = entry.record(out, (x,), self_shape=tuple(x.shape), kernel=kernel, params=p, scale=scale)
    return unbatch(result, unbatched)


def avg_pool1d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    return _avg_pool(1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    return _avg_pool(2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    return _avg_pool(3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


# -- power-average (LP) pooling: PyTorch's composition ---------------------------------------------------------------
def _lp_pool(n: int, input: Tensor, norm_type: float, kernel_size: IntOrTuple, stride: IntOrTuple | None,
             ceil_mode: bool) -> Tensor:
    if norm_type == math.inf:
        return _max_pool(n, abs(input), kernel_size, stride, 0, 1, ceil_mode, False)
    if norm_type == -math.inf:
        return neg(_max_pool(n, neg(abs(input)), kernel_size, stride, 0, 1, ceil_mode, False))
    out = _avg_pool(n, pow(input, norm_type), kernel_size, stride, 0, ceil_mode, True, None)
    # relu(|out|) keeps a window whose powers sum to zero at a zero gradient, as PyTorch documents.
    window = math.prod(ntuple(kernel_size, n, "kernel_size"))
    return pow(mul(mul(sign(out), relu(abs(out))), window), 1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: IntOrTuple | None = None,
              ceil_mode: bool = False) -> Tensor:
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: IntOrTuple, stride: IntOrTuple | None = None,
              ceil_mode: bool = False) -> Tensor:
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: IntOrTuple, stride: IntOrTuple | None = None,
              ceil_mode: bool = False) -> Tensor:
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


# -- max unpooling -------------------------------------------------------------------------------------------------
def _unpool_sizes(x: Tensor, kernel: tuple[int, ...], strides: tuple[int, ...], pads: tuple[int, ...],
                  output_size: Sequence[int] | None) -> tuple[int, ...]:
    """PyTorch's _unpool_output_size: the pooled input's size, or output_size within a stride of it."""
    n = len(kernel)
    default = tuple((x.shape[x.ndim - n + d] - 1) * strides[d] + kernel[d] - 2 * pads[d] for d in range(n))
    if output_size is None:
        return default
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    sizes = tuple(output_size)
    if len(sizes) != n:
        raise ValueError(
            f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length of '{len(sizes)}'"
        )
    for d in range(n):
        low, high = default[d] - strides[d], default[d] + strides[d]
        if not low < sizes[d] < high:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {low} and {high})')
    return sizes


def _max_unpool(n: int, input: Tensor, indices: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None,
                padding: IntOrTuple, output_size: Sequence[int] | None) -> Tensor:
    kernel = ntuple(kernel_size, n, "kernel_size")
    strides = kernel if stride is None else ntuple(stride, n, "stride")
    sizes = _unpool_sizes(input, kernel, strides, ntuple(padding, n, "padding"), output_size)
    kernel_name = f"max_unpool{max(n, 2)}d"  # PyTorch unpools 1-d as 2-d
    if input.ndim not in (max(n, 2) + 1, max(n, 2) + 2) and not (n == 1 and input.ndim in (2, 3)):
        raise RuntimeError(
            f"Input to max_unpooling{max(n, 2)}d should be a {max(n, 2) + 1}d or {max(n, 2) + 2}d Tensor, but got a tensor "
            f"with {input.ndim} dimensions."
        )
    if indices.dtype is not int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype.scalar_name}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) but got indices tensor "
            f"with shape: {list(indices.shape)}"
        )
    if not input.dtype.is_floating_point:
        raise not_implemented_for(kernel_name, input.dtype)
    unbatched = input.ndim == n + 1
    x, idx = (unsqueeze(input, 0), unsqueeze(indices, 0)) if unbatched else (input, indices)
    spatial = math.prod(sizes)
    flat_idx = reshape(idx, (*idx.shape[:2], math.prod(idx.shape[2:])))
    if flat_idx.numel() and (flat_idx._data.min() < 0 or flat_idx._data.max() >= spatial):
        bad = flat_idx._data[(flat_idx._data < 0) | (flat_idx._data >= spatial)][0]
        shown = "x".join(map(str, (*sizes, 1) if n == 1 else sizes))
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size {shown})")
    # A scatter: a later duplicate index overwrites an earlier one, and the gradient gathers at every index.
    out = scatter(zeros((*x.shape[:2], spatial), dtype=x.dtype), 2, flat_idx, reshape(x, flat_idx.shape))
    return unbatch(reshape(out, (*x.shape[:2], *sizes)), unbatched)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None,
                 padding: IntOrTuple = 0, output_size: Sequence[int] | None = None) -> Tensor:
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None,
                 padding: IntOrTuple = 0, output_size: Sequence[int] | None = None) -> Tensor:
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None,
                 padding: IntOrTuple = 0, output_size: Sequence[int] | None = None) -> Tensor:
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


# -- fractional max pooling ----------------------------------------------------------------------------------------
_FRACTIONAL_DIMS = {2: ("height", "width"), 3: ("time", "height", "width")}


def _intervals(samples: np.ndarray, size: int, out: int, pool: int) -> np.ndarray:
    """Each window's start per plane: PyTorch's generate_intervals, in the input's dtype as its kernel computes."""
    starts = np.empty((*samples.shape, out), dtype=np.int64)
    if out > 1:
        alpha = samples.dtype.type(size - pool) / samples.dtype.type(out - 1)
        i = np.arange(out - 1, dtype=samples.dtype)
        starts[..., :-1] = ((i + samples[..., None]) * alpha).astype(np.int64) - (samples * alpha).astype(np.int64)[..., None]
    starts[..., -1] = size - pool
    return starts


def _fractional_max_pool(n: int, input: Tensor, kernel_size: IntOrTuple, output_size: IntOrTuple | None,
                         output_ratio: float | Sequence[float] | None, return_indices: bool,
                         _random_samples: Tensor | None) -> Any:
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if len(output_ratio) > n:  # type: ignore[arg-type]
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratios = tuple(output_ratio) * n if len(output_ratio) == 1 else tuple(output_ratio)  # type: ignore[arg-type]
        output_size = [int(input.shape[input.ndim - n + i] * r) for i, r in enumerate(ratios)]
    kernel, sizes = ntuple(kernel_size, n, "kernel_size"), ntuple(output_size, n, "output_size")
    if input.ndim not in (n + 1, n + 2) or 0 in input.shape[1:]:
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor with non-zero non-batch dimensions, but got: {list(input.shape)}")
    if not input.dtype.is_floating_point:
        raise not_implemented_for("check_uniform_bounds", input.dtype)
    x, unbatched = batched(input, n)
    if _random_samples is None:
        samples = rand(x.shape[0], x.shape[1], n, dtype=x.dtype)
    elif _random_samples.dtype is not x.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    elif _random_samples.ndim != 3 or _random_samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got {_random_samples.shape[-1]}.")
    else:
        samples = _random_samples
    for dim, size, out, pool in zip(_FRACTIONAL_DIMS[n], x.shape[2:], sizes, kernel, strict=True):
        if out + pool - 1 > size - (n == 3):  # PyTorch's 3-d kernel checks with <, its 2-d one with <=
            raise RuntimeError(f"{name}{'_out' if n == 3 else ''}(): pool {dim} {pool} too large relative to input {dim} {size}")
    # PyTorch's 2-d kernel draws the width from the first sample and the height from the second; 3-d goes in order.
    order = (1, 0) if n == 2 else (0, 1, 2)
    tables = [
        _intervals(samples._data[..., order[i]], size, out, pool)[..., None] + np.arange(pool)
        for i, (size, out, pool) in enumerate(zip(x.shape[2:], sizes, kernel, strict=True))
    ]
    values, indices = max_pick(x._data, tables, (0,) * n, x.shape[2:])
    out = MAX_PICK_ENTRIES[f"FractionalMaxPool{n}DBackward0"].record(values, (x,), self_shape=tuple(x.shape), indices=Tensor._wrap(indices))
    return with_indices(out, indices, unbatched, return_indices)


def fractional_max_pool2d(input: Tensor, kernel_size: IntOrTuple, output_size: IntOrTuple | None = None,
                          output_ratio: float | Sequence[float] | None = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Any:
    return _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool3d(input: Tensor, kernel_size: IntOrTuple, output_size: IntOrTuple | None = None,
                          output_ratio: float | Sequence[float] | None = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Any:
    return _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: IntOrTuple, output_size: IntOrTuple | None = None,
                                       output_ratio: float | Sequence[float] | None = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple[Tensor, Tensor]:
    return _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: IntOrTuple, output_size: IntOrTuple | None = None,
                                       output_ratio: float | Sequence[float] | None = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple[Tensor, Tensor]:
    return _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, True, _random_samples)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "max_pool1d": max_pool1d, "max_pool2d": max_pool2d, "max_pool3d": max_pool3d,
    "max_pool1d_with_indices": max_pool1d_with_indices, "max_pool2d_with_indices": max_pool2d_with_indices,
    "max_pool3d_with_indices": max_pool3d_with_indices,
    "avg_pool1d": avg_pool1d, "avg_pool2d": avg_pool2d, "avg_pool3d": avg_pool3d,
    "lp_pool1d": lp_pool1d, "lp_pool2d": lp_pool2d, "lp_pool3d": lp_pool3d,
    "max_unpool1d": max_unpool1d, "max_unpool2d": max_unpool2d, "max_unpool3d": max_unpool3d,
    "fractional_max_pool2d": fractional_max_pool2d, "fractional_max_pool3d": fractional_max_pool3d,
    "fractional_max_pool2d_with_indices": fractional_max_pool2d_with_indices,
    "fractional_max_pool3d_with_indices": fractional_max_pool3d_with_indices,
}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
ALSO: dict[str, dict[str, Callable[..., Any]]] = {"glassgrad": {"avg_pool1d": avg_pool1d}}
