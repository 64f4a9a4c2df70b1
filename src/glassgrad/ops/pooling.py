"""Pooling and resampling of glassgrad.nn.functional (exported through convolution.py's FUNCTIONS).

Max pooling picks from gathered windows and sends the gradient back to the argmax. Average pooling
is a window sum whose gradient is a transposed convolution with a kernel of ones. Adaptive average
pooling and every interpolation mode (nearest, nearest-exact, (bi/tri)linear, bicubic, and area,
which is adaptive average pooling) are linear maps applied along each spatial dim: a small matrix
per dim, whose transpose carries the gradient back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._dtype import uint8
from ..tensor import Tensor
from .elementwise import not_implemented_for
from .indexing import scatter_into_zeros
from .linalg import matmul
from .reduction import mean
from .shape import reshape, squeeze, transpose, unsqueeze
from .table import Derivative, derivative
from .windows import ConvParams, convolution, ntuple, output_size, pad_crop, windows

IntOrTuple = int | Sequence[int]


def _batched(input: Tensor, n: int) -> tuple[Tensor, bool]:
    if not isinstance(input, Tensor):
        raise TypeError(f"argument 'input' must be Tensor, not {type(input).__name__}")
    if input.ndim not in (n + 1, n + 2) or 0 in input.shape[1:]:
        raise RuntimeError(
            f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with optional 0 dim batch size for input, but got: "
            f"{list(input.shape)}"
        )
    return (unsqueeze(input, 0), True) if input.ndim == n + 1 else (input, False)


def _unbatch(out: Tensor, unbatched: bool) -> Tensor:
    return squeeze(out, 0) if unbatched else out


def _flat(t: Tensor, spatial: int) -> Tensor:
    return reshape(t, (*t.shape[:2], spatial))


def _unpool(grad: Tensor, self_shape: tuple[int, ...], indices: Tensor) -> Tensor:
    """Each output's gradient goes to the input element it was taken from (summed where windows overlap)."""
    spatial = int(np.prod(self_shape[2:]))
    flat_indices = Tensor._wrap(indices._data.reshape(*indices.shape[:2], int(np.prod(indices.shape[2:]))))
    return reshape(scatter_into_zeros(_flat(grad, flat_indices.shape[2]), (*self_shape[:2], spatial), 2, flat_indices), self_shape)


MaxPool2DWithIndicesBackward0 = derivative("MaxPool2DWithIndicesBackward0", self=_unpool)
AdaptiveMaxPool2DBackward0 = derivative("AdaptiveMaxPool2DBackward0", self=_unpool)


def _max_pick(padded: np.ndarray, tables: list[np.ndarray], lows: Sequence[int], size: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The max of each window and its flat index into the unpadded spatial dims.

    tables[i][o, k] is the padded position along spatial dim i of window o's k-th element. Ties go
    to the first element in row-major window order, as PyTorch's kernels scan.
    """
    n = len(tables)
    index: list[Any] = [slice(None), slice(None)]
    for i, table in enumerate(tables):
        shape = [1] * (2 * n)
        shape[2 * i : 2 * i + 2] = table.shape
        index.append(table.reshape(shape))
    gathered = padded[tuple(index)]  # (N, C, O0, K0, O1, K1, ...)
    gathered = gathered.transpose(0, 1, *range(2, 2 + 2 * n, 2), *range(3, 2 + 2 * n, 2))
    flat = gathered.reshape(*gathered.shape[: 2 + n], int(np.prod(gathered.shape[2 + n :])))
    arg = flat.argmax(-1)
    values = np.take_along_axis(flat, arg[..., None], -1)[..., 0]
    offsets = np.unravel_index(arg, tuple(t.shape[1] for t in tables))
    flat_index = np.zeros(arg.shape, dtype=np.int64)
    for i, table in enumerate(tables):
        rows = np.arange(table.shape[0]).reshape((-1,) + (1,) * (n - 1 - i))
        flat_index = flat_index * size[i] + (table[rows, offsets[i]] - lows[i])
    return values, flat_index


def _with_indices(values: Tensor, indices: np.ndarray, unbatched: bool, return_indices: bool) -> Any:
    out = _unbatch(values, unbatched)
    return (out, _unbatch(Tensor._wrap(indices), unbatched)) if return_indices else out


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
    x, unbatched = _batched(input, n)
    kernel, p = _pool_params(x, n, kernel_size, stride, padding, dilation, ceil_mode)
    data = x._data
    fill = -np.inf if np.issubdtype(data.dtype, np.floating) else np.iinfo(data.dtype).min
    outs = output_size(x.shape[2:], kernel, p)
    tables = [np.arange(o)[:, None] * s + np.arange(k) * d for o, k, s, d in zip(outs, kernel, p.stride, p.dilation, strict=True)]
    values, indices = _max_pick(pad_crop(data, p.pads, fill), tables, [lo for lo, _ in p.pads], x.shape[2:])
    out = MaxPool2DWithIndicesBackward0.record(values, (x,), self_shape=tuple(x.shape), indices=Tensor._wrap(indices))
    return _with_indices(out, indices, unbatched, return_indices)


def max_pool1d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
               dilation: IntOrTuple = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
               dilation: IntOrTuple = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _avg_grad(grad: Tensor, self_shape: tuple[int, ...], kernel: tuple[int, ...], params: ConvParams, scale: np.ndarray) -> Tensor:
    """Spread each output's gradient over its window: a transposed convolution with a kernel of ones."""
    spread = reshape(grad * Tensor._wrap(scale.astype(grad._data.dtype)), (-1, 1, *grad.shape[2:]))
    ones = Tensor._wrap(np.ones((1, 1, *kernel), dtype=grad._data.dtype))
    return reshape(convolution(spread, ones, None, params, transposed=True), self_shape)


AvgPool2DBackward0 = derivative("AvgPool2DBackward0", self=_avg_grad)


def _avg_pool(n: int, input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None, padding: IntOrTuple,
              ceil_mode: bool, count_include_pad: bool, divisor_override: int | None) -> Tensor:
    x, unbatched = _batched(input, n)
    kernel, p = _pool_params(x, n, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
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
    result = AvgPool2DBackward0.record(out, (x,), self_shape=tuple(x.shape), kernel=kernel, params=p, scale=scale)
    return _unbatch(result, unbatched)


def avg_pool1d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    return _avg_pool(1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input: Tensor, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, padding: IntOrTuple = 0,
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    return _avg_pool(2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


# -- adaptive pooling ------------------------------------------------------------------------------------------------
def _adaptive_sizes(x: Tensor, output_size: Any, n: int, kernel: str) -> tuple[int, ...]:
    """The output's spatial sizes (None keeps the input's)."""
    sizes = (output_size,) * n if isinstance(output_size, int) or output_size is None else tuple(output_size)
    if len(sizes) != n:
        raise RuntimeError(f"adaptive pooling: output_size must be {n} ints, but got {output_size}")
    sizes = tuple(x.shape[2 + i] if s is None else int(s) for i, s in enumerate(sizes))
    if min(sizes, default=0) < 0:
        raise RuntimeError(f"{kernel}: elements of output_size must be greater than or equal to 0 but received {sizes}")
    return sizes


def _adaptive_bounds(size: int, out: int) -> tuple[np.ndarray, np.ndarray]:
    i = np.arange(out)
    return i * size // out, ((i + 1) * size + out - 1) // out


def _adaptive_max(n: int, input: Tensor, output_size: Any, return_indices: bool) -> Any:
    x, unbatched = _batched(input, n)
    kernel = f"adaptive_max_pool{n}d"
    sizes = _adaptive_sizes(x, output_size, n, kernel)
    if not x.dtype.is_floating_point:
        raise not_implemented_for(kernel, x.dtype)
    tables = []
    for size, out in zip(x.shape[2:], sizes, strict=True):
        start, end = _adaptive_bounds(size, out)
        # Windows differ in length: shorter ones repeat their last element, which cannot change the max.
        width = int((end - start).max(initial=1))
        tables.append(np.minimum(start[:, None] + np.arange(width), end[:, None] - 1))
    values, indices = _max_pick(x._data, tables, (0,) * n, x.shape[2:])
    out = AdaptiveMaxPool2DBackward0.record(values, (x,), self_shape=tuple(x.shape), indices=Tensor._wrap(indices))
    return _with_indices(out, indices, unbatched, return_indices)


def _pool_1d_in_2d(name: str, input: Tensor, output_size: Any) -> tuple[Tensor, tuple[int, int]]:
    """adaptive_*_pool1d's checks; PyTorch then pools input.unsqueeze(-2) in 2-d to (1, size) and squeezes."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' (while checking "
            f"arguments for {name})"
        )
    if output_size is None:
        raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple of ints, not NoneType")
    sizes = (output_size,) if isinstance(output_size, int) else tuple(output_size)
    if len(sizes) != 1:
        raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got {len(sizes)})")
    if 0 in input.shape[1:]:
        raise RuntimeError(
            f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
            f"{list(input.shape)} with dimension {input.shape.index(0, 1)} being empty"
        )
    return unsqueeze(input, -2), (1, sizes[0])


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    x, size = _pool_1d_in_2d("adaptive_max_pool1d", input, output_size)
    values, indices = _adaptive_max(2, x, size, return_indices=True)
    return (squeeze(values, -2), squeeze(indices, -2)) if return_indices else squeeze(values, -2)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    return _adaptive_max(2, input, output_size, return_indices)


def _adaptive_avg(n: int, input: Tensor, output_size: Any) -> Tensor:
    x, unbatched = _batched(input, n)
    kernel = f"adaptive_avg_pool{n}d"
    sizes = _adaptive_sizes(x, output_size, n, kernel)
    if set(sizes) == {1}:  # PyTorch takes the mean then (MeanBackward1), and mean's dtype check
        return _unbatch(mean(x, tuple(range(-n, 0)), keepdim=True), unbatched)
    if not x.dtype.is_floating_point:
        raise not_implemented_for(kernel, x.dtype)
    matrices = []
    for size, out in zip(x.shape[2:], sizes, strict=True):
        start, end = _adaptive_bounds(size, out)
        cols = np.arange(size)
        matrices.append(((cols >= start[:, None]) & (cols < end[:, None])) / (end - start)[:, None])
    return _unbatch(_resample(f"AdaptiveAvgPool{n}DBackward0", x, matrices), unbatched)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    x, size = _pool_1d_in_2d("adaptive_avg_pool1d", input, output_size)
    return squeeze(_adaptive_avg(2, x, size), -2)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    return _adaptive_avg(2, input, output_size)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    return _adaptive_avg(3, input, output_size)


# -- separable linear resampling -------------------------------------------------------------------------------------
def _resample_grad(grad: Tensor, matrices: Sequence[np.ndarray]) -> Tensor:
    """The transpose of each matrix (out, in) applied along its trailing dim, in glassgrad ops."""
    for i, a in enumerate(matrices):
        dim = grad.ndim - len(matrices) + i
        grad = transpose(matmul(transpose(grad, dim, -1), Tensor._wrap(a.astype(grad._data.dtype))), dim, -1)
    return grad


_RESAMPLE_ENTRIES: dict[str, Derivative] = {}


def _resample(name: str, x: Tensor, matrices: Sequence[np.ndarray]) -> Tensor:
    out = x._data
    for i, a in enumerate(matrices):
        axis = x.ndim - len(matrices) + i
        out = np.moveaxis(np.tensordot(out, a.astype(out.dtype), axes=([axis], [1])), -1, axis)
    entry = _RESAMPLE_ENTRIES.get(name)
    if entry is None:
        entry = _RESAMPLE_ENTRIES[name] = derivative(name, self=_resample_grad)
    return entry.record(np.ascontiguousarray(out), (x,), matrices=tuple(matrices))


def _float32_step(size: int, out: int, scale: float | None) -> np.float32:
    """Input positions per output position, in float32 as PyTorch's nearest kernels compute it."""
    return np.float32(1.0 / scale) if scale else np.float32(size) / np.float32(out)


def _picks(size: int, src: np.ndarray) -> np.ndarray:
    return np.eye(size)[np.minimum(src, size - 1)]


def _nearest_matrix(size: int, out: int, scale: float | None, align_corners: bool) -> np.ndarray:
    return _picks(size, np.floor(np.arange(out, dtype=np.float32) * _float32_step(size, out, scale)).astype(np.int64))


def _nearest_exact_matrix(size: int, out: int, scale: float | None, align_corners: bool) -> np.ndarray:
    # The pixel centre's position: (dst + 0.5) * step in double, floored as a float.
    centres = (np.arange(out) + 0.5) * np.float64(_float32_step(size, out, scale))
    return _picks(size, np.floor(centres.astype(np.float32)).astype(np.int64))


def _taps(size: int, out: int, scale: float | None, align_corners: bool, cubic: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each output's first input tap and its fractional offset t in [0, 1] (PyTorch's area_pixel_compute_source_index)."""
    dst = np.arange(out, dtype=np.float64)
    if align_corners:
        src = dst * ((size - 1) / (out - 1) if out > 1 else 0.0)
    else:
        src = (1.0 / scale if scale else size / out) * (dst + 0.5) - 0.5
        if not cubic:  # cubic kernels reach left of the first pixel; linear ones clamp there
            src = np.maximum(src, 0.0)
    low = np.minimum(np.floor(src.astype(np.float32)).astype(np.int64), size - 1)
    return low, np.clip(src - low, 0.0, 1.0)


def _tap_matrix(size: int, first: np.ndarray, weights: Sequence[np.ndarray]) -> np.ndarray:
    """Row o weighs input first[o] + k by weights[k][o], taps past either edge reading the edge pixel."""
    matrix = np.zeros((len(first), size))
    rows = np.arange(len(first))
    for k, w in enumerate(weights):
        np.add.at(matrix, (rows, np.clip(first + k, 0, size - 1)), w)
    return matrix


def _linear_matrix(size: int, out: int, scale: float | None, align_corners: bool) -> np.ndarray:
    low, t = _taps(size, out, scale, align_corners, cubic=False)
    return _tap_matrix(size, low, (1 - t, t))


_CUBIC_A = -0.75  # PyTorch's (and OpenCV's) bicubic coefficient


def _cubic_matrix(size: int, out: int, scale: float | None, align_corners: bool) -> np.ndarray:
    low, t = _taps(size, out, scale, align_corners, cubic=True)
    a = _CUBIC_A

    def near(x: np.ndarray) -> np.ndarray:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: np.ndarray) -> np.ndarray:  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return _tap_matrix(size, low - 1, (far(t + 1), near(t), near(1 - t), far(2 - t)))


# mode: (the spatial dims it needs, or None for any; PyTorch's node name; the matrix of one dim)
_MODES: dict[str, tuple[int | None, str, Callable[..., np.ndarray]]] = {
    "nearest": (None, "Nearest", _nearest_matrix), "nearest-exact": (None, "NearestExact", _nearest_exact_matrix),
    "linear": (1, "Linear", _linear_matrix), "bilinear": (2, "Bilinear", _linear_matrix),
    "bicubic": (2, "Bicubic", _cubic_matrix), "trilinear": (3, "Trilinear", _linear_matrix),
}
_ALL_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _output_sizes(input: Tensor, n: int, size: IntOrTuple | None, scale_factor: float | Sequence[float] | None,
                  recompute_scale_factor: bool | None) -> tuple[tuple[int, ...], tuple[float | None, ...]]:
    """The output's spatial sizes, and the scale factors the kernels use (None: from the sizes)."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        sizes = (size,) * n if isinstance(size, int) else tuple(int(s) for s in size)
        if len(sizes) != n:
            raise ValueError(
                f"Input and output must have the same number of spatial dimensions, but got input with spatial "
                f"dimensions of {list(input.shape[2:])} and output size of {list(sizes)}. Please provide input tensor in "
                "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
            )
        return sizes, (None,) * n
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    factors = (float(scale_factor),) * n if isinstance(scale_factor, (int, float)) else tuple(float(f) for f in scale_factor)
    if len(factors) != n:
        raise ValueError(
            f"Input and scale_factor must have the same number of spatial dimensions, but got input with spatial "
            f"dimensions of {list(input.shape[2:])} and scale_factor of shape {list(factors)}. Please provide input "
            "tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
        )
    sizes = tuple(int(np.floor(s * f)) for s, f in zip(input.shape[2:], factors, strict=True))
    return sizes, (None,) * n if recompute_scale_factor else factors


def interpolate(input: Tensor, size: IntOrTuple | None = None, scale_factor: float | Sequence[float] | None = None,
                mode: str = "nearest", align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear")
    n = input.ndim - 2
    sizes, scales = _output_sizes(input, n, size, scale_factor, recompute_scale_factor)
    if antialias and not (mode in ("bilinear", "bicubic") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input")
    if antialias:
        raise NotImplementedError(f"interpolate: glassgrad has no antialiased {mode} mode; call it with antialias=False")
    if n not in (1, 2, 3) or (mode not in _MODES and mode != "area"):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the modes: {_ALL_MODES} "
            f"(got {mode})"
        )
    if mode == "area":  # an adaptive average pool to the output size (a scale factor only sets that size)
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[n - 1](input, sizes)
    dims, title, make = _MODES[mode]
    if dims is not None and dims != n:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {dims + 2}D input")
    kind = "nearest" if dims is None else "linear"
    if not (input.dtype.is_floating_point or (kind == "nearest" and input.dtype is uint8)):
        # PyTorch also takes uint8 images in bilinear and bicubic mode, rounding the result; glassgrad does not.
        raise not_implemented_for(f"upsample_{kind}{n}d", input.dtype)
    if min(input.shape[2:]) <= 0 or min(sizes) <= 0:
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input {list(input.shape[2:])} and output {list(sizes)}")
    if mode == "nearest" and n == 2:
        # PyTorch's 2-d kernel copies (1x) or doubles (2x) without the scale factor: the step from the sizes does that.
        scales = tuple(None if o in (s, 2 * s) else f for s, o, f in zip(input.shape[2:], sizes, scales, strict=True))
    matrices = [make(s, o, f, bool(align_corners)) for s, o, f in zip(input.shape[2:], sizes, scales, strict=True)]
    return _resample(f"Upsample{title}{n}DBackward0", input, matrices)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "max_pool1d": max_pool1d, "max_pool2d": max_pool2d, "avg_pool1d": avg_pool1d, "avg_pool2d": avg_pool2d,
    "adaptive_avg_pool1d": adaptive_avg_pool1d, "adaptive_avg_pool2d": adaptive_avg_pool2d,
    "adaptive_avg_pool3d": adaptive_avg_pool3d,
    "adaptive_max_pool1d": adaptive_max_pool1d, "adaptive_max_pool2d": adaptive_max_pool2d, "interpolate": interpolate,
}
