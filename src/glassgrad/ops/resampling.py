"""Adaptive pooling and interpolation of glassgrad.nn.functional: the output's size sets the windows.

Adaptive max pooling picks from windows whose bounds each output position computes (pooling.py's
max_pick). Adaptive average pooling and every interpolation mode (nearest, nearest-exact,
(bi/tri)linear, bicubic, and area, which is adaptive average pooling) are linear maps applied along
each spatial dim: a small matrix per dim, whose transpose carries the gradient back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._dtype import uint8
from ..tensor import Tensor
from .elementwise import not_implemented_for
from .linalg import matmul
from .pooling import MAX_PICK_ENTRIES, batched, max_pick, unbatch, with_indices
from .reduction import mean
from .shape import squeeze, transpose, unsqueeze
from .table import Derivative, derivative

NAMESPACE = "glassgrad.nn.functional"
IntOrTuple = int | Sequence[int]


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
    x, unbatched = batched(input, n)
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
    values, indices = max_pick(x._data, tables, (0,) * n, x.shape[2:])
    out = MAX_PICK_ENTRIES[f"AdaptiveMaxPool{max(n, 2)}DBackward0"].record(values, (x,), self_shape=tuple(x.shape), indices=Tensor._wrap(indices))
    return with_indices(out, indices, unbatched, return_indices)


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


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    return _adaptive_max(3, input, output_size, return_indices)


# The *_with_indices functions return (values, indices) whatever return_indices says, as PyTorch's do.
def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return _adaptive_max(2, input, output_size, True)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple[Tensor, Tensor]:
    return _adaptive_max(3, input, output_size, True)


def _adaptive_avg(n: int, input: Tensor, output_size: Any) -> Tensor:
    x, unbatched = batched(input, n)
    kernel = f"adaptive_avg_pool{n}d"
    sizes = _adaptive_sizes(x, output_size, n, kernel)
    if set(sizes) == {1}:  # PyTorch takes the mean then (MeanBackward1), and mean's dtype check
        return unbatch(mean(x, tuple(range(-n, 0)), keepdim=True), unbatched)
    if not x.dtype.is_floating_point:
        raise not_implemented_for(kernel, x.dtype)
    matrices = []
    for size, out in zip(x.shape[2:], sizes, strict=True):
        start, end = _adaptive_bounds(size, out)
        cols = np.arange(size)
        matrices.append(((cols >= start[:, None]) & (cols < end[:, None])) / (end - start)[:, None])
    return unbatch(_resample(f"AdaptiveAvgPool{n}DBackward0", x, matrices), unbatched)


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
    "adaptive_avg_pool1d": adaptive_avg_pool1d, "adaptive_avg_pool2d": adaptive_avg_pool2d,
    "adaptive_avg_pool3d": adaptive_avg_pool3d, "adaptive_max_pool1d": adaptive_max_pool1d,
    "adaptive_max_pool2d": adaptive_max_pool2d, "adaptive_max_pool3d": adaptive_max_pool3d,
    "adaptive_max_pool1d_with_indices": adaptive_max_pool1d_with_indices,
    "adaptive_max_pool2d_with_indices": adaptive_max_pool2d_with_indices,
    "adaptive_max_pool3d_with_indices": adaptive_max_pool3d_with_indices, "interpolate": interpolate,
}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
ALSO: dict[str, dict[str, Callable[..., Any]]] = {"glassgrad": {"adaptive_avg_pool1d": adaptive_avg_pool1d}}
