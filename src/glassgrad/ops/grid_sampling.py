"""Spatial transformers of glassgrad.nn.functional: affine_grid and grid_sample (bilinear or nearest, 2-d and 3-d).

Both are compositions of glassgrad ops, so the gradients for the input, the grid and theta (and higher
derivatives, which PyTorch also has) follow from theirs. grid_sample maps each grid coordinate in [-1, 1] to a
pixel position as PyTorch's grid_sampler_compute_source_index does (unnormalize, then clip for 'border', reflect
then clip for 'reflection'), and mixes the neighbouring pixels with weights from that position; the integer
part of a position is a constant, so that the weights carry the gradient for the grid.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..tensor import Tensor
from .elementwise import abs, where
from .indexing import gather
from .linalg import matmul
from .shape import reshape, select, transpose, unsqueeze
from .table import refuse_forward_ad

NAMESPACE = "glassgrad.nn.functional"

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. See the documentation of grid_sample for details."
)


def _align(align_corners: bool | None) -> bool:
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=3)
        return False
    return align_corners


# -- affine_grid ---------------------------------------------------------------------------------------------------
def _steps(size: int, align_corners: bool, dtype: np.dtype) -> np.ndarray:
    """PyTorch's linspace_from_neg_one: pixel centres in [-1, 1], pulled in by (size - 1) / size unless aligned."""
    if size <= 1:
        return np.zeros(max(size, 1), dtype=dtype)
    steps = np.linspace(-1, 1, size, dtype=dtype)
    return steps if align_corners else steps * (size - 1) / size


def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool | None = None) -> Tensor:
    """The sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps theta (N, 2, 3) or (N, 3, 4)."""
    align_corners = _align(align_corners)
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size)
    if len(size) not in (4, 5):
        raise NotImplementedError(
            f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size {size}."
        )
    n = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (n, n + 1):
        raise ValueError(
            f"Expected a batch of {n}D affine matrices of shape Nx{n}x{n + 1} for size {size}. Got {theta.shape}."
        )
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. This is "
            "not an issue for standard (non-unit) grids.", stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    # The base grid's last dim is (x, y[, z], 1): x runs along the last spatial dim.
    axes = [_steps(s, align_corners, theta._data.dtype) for s in reversed(spatial)]
    mesh = np.meshgrid(*reversed(axes), indexing="ij")[::-1]
    base = np.stack([*mesh, np.ones_like(mesh[0])], axis=-1).reshape(1, -1, n + 1)
    grid = matmul(Tensor._wrap(base), transpose(theta, 1, 2))
    return reshape(grid, (size[0], *spatial, n))


# -- grid_sample -----------------------------------------------------------------------------------------------------
# PyTorch samples 2-d inputs with a vectorized CPU kernel and 3-d ones with a scalar kernel, whose formulas for the
# same positions and weights round differently; each is followed here, so that values match to the last bit.
def _clip(position: Tensor, size: int) -> Tensor:
    """Clamped into [0, size - 1], with PyTorch's gradient: zero on the bounds as well as past them."""
    data = position._data
    inside = (data > 0) & (data < size - 1)
    return where(Tensor._wrap(inside), position, Tensor._wrap(np.clip(data, 0, size - 1)))


def _reflect(position: Tensor, low: float, twice_span: float, vectorized: bool) -> Tensor:
    """Fold a position into [low, low + span] by reflecting at both ends (flip counts are constants of the position)."""
    if twice_span <= 0:
        return position * 0
    distance = abs(position - low)
    if vectorized:  # ComputeLocationBase::reflect_coordinates
        extra = distance - Tensor._wrap(np.trunc(distance._data / twice_span) * twice_span)
        reflected = twice_span - extra
        return where(Tensor._wrap(extra._data > reflected._data), reflected, extra) + low
    span = twice_span / 2  # GridSampler.h's reflect_coordinates
    flips = np.floor(distance._data / span)
    extra = distance - Tensor._wrap((flips * span).astype(distance._data.dtype))
    return where(Tensor._wrap(flips % 2 == 0), extra + low, span - extra + low)


def _fused(position: Tensor, a: np.ndarray, b: float, c: float) -> Tensor:
    """position (= a * b + c) with the value of a * b + c rounded once, as the fused multiply-add that PyTorch's
    vectorized kernel compiles to; a correction of at most an ulp, which decides ties of the nearest mode."""
    wide = np.longdouble if a.dtype == np.float64 else np.float64  # b = size / 2: the product is exact there
    once = (a.astype(wide) * wide(b) + wide(c)).astype(a.dtype)
    return position + Tensor._wrap(once - position._data)


def _source_index(coord: Tensor, size: int, padding_mode: str, align_corners: bool, vectorized: bool) -> Tensor:
    """A grid coordinate in [-1, 1] as a pixel position along a dim of `size` pixels."""
    if vectorized:
        shifted = coord + 1
        position = shifted * ((size - 1) / 2) if align_corners else _fused(shifted * (size / 2) - 0.5, shifted._data, size / 2, -0.5)
    else:
        position = (coord + 1) / 2 * (size - 1) if align_corners else ((coord + 1) * size - 1) / 2
    if padding_mode == "reflection":
        low, twice_span = (0.0, 2 * (size - 1)) if align_corners else (-0.5, 2 * size)
        position = _reflect(position, low, twice_span, vectorized)
    if padding_mode in ("border", "reflection"):
        position = _clip(position, size)
    return position


def _taps(position: Tensor, mode: str, vectorized: bool) -> list[tuple[np.ndarray, Tensor]]:
    """The pixels that one position reads along its dim, each with its weight."""
    if mode == "nearest":
        # Half to even, as C's nearbyint; the weight 1 still depends on the grid, whose gradient is zero as in PyTorch.
        return [(np.rint(position._data).astype(np.int64), position * 0 + 1)]
    low = np.floor(position._data)
    if vectorized:  # the fraction f and 1 - f
        frac = position - Tensor._wrap(low)
        near = 1 - frac
    else:  # (low + 1 - x) and (x - low)
        frac, near = position - Tensor._wrap(low), Tensor._wrap(low + 1) - position
    return [(low.astype(np.int64), near), (low.astype(np.int64) + 1, frac)]


def _check_grid_sample(input: Tensor, grid: Tensor, mode: str) -> None:
    if grid.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.scalar_name} but found {grid.dtype.scalar_name}")
    if input.ndim == 0 or grid.ndim == 0 or input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got input with sizes {list(input.shape)} "
            f"and grid with sizes {list(grid.shape)}"
        )
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, but got grid with sizes "
            f"{list(grid.shape)}"
        )
    for i in range(2, input.ndim):
        if input.shape[i] <= 0:
            raise RuntimeError(
                f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes "
                f"{list(input.shape)} with dimension {i} being empty"
            )
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(
            f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got input with sizes "
            f"{list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if mode == "bicubic":
        if input.ndim == 5:
            raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
        raise NotImplementedError("grid_sample: glassgrad has no bicubic mode; use mode='bilinear' or 'nearest'")


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """input (N, C, [D,] H, W) read at grid (N, [D',] H', W', n) positions in [-1, 1]: (N, C, [D',] H', W')."""
    refuse_forward_ad(f"grid_sampler_{input.ndim - 2}d", input, grid)
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: "
            f"'{padding_mode}'"
        )
    align_corners = _align(align_corners)
    _check_grid_sample(input, grid, mode)
    n = input.ndim - 2
    sizes, batch, channels = input.shape[2:], input.shape[0], input.shape[1]
    out_spatial = tuple(grid.shape[1:-1])
    points = int(np.prod(out_spatial))
    # Input dim i (D, H, W order) reads grid component n - 1 - i (the grid lists x first).
    vectorized = n == 2
    positions = [
        reshape(_source_index(select(grid, -1, n - 1 - i), size, padding_mode, align_corners, vectorized), (batch, points))
        for i, size in enumerate(sizes)
    ]
    flat_input = reshape(input, (batch, channels, int(np.prod(sizes))))
    out: Tensor | None = None
    for corner in itertools.product(*(_taps(p, mode, vectorized) for p in positions)):
        pixels = [pixel for pixel, _ in corner]
        inside = np.logical_and.reduce([(p >= 0) & (p < size) for p, size in zip(pixels, sizes, strict=True)])
        index = np.ravel_multi_index([np.clip(p, 0, size - 1) for p, size in zip(pixels, sizes, strict=True)], sizes)
        weight = Tensor._wrap(inside.astype(input._data.dtype))  # zeros padding: a pixel outside reads nothing
        # PyTorch's products: (y * x) in 2-d, (x * y) * z in 3-d.
        for _, w in (corner if vectorized else (*corner[::-1][:2], corner[0])):
            weight = weight * w
        index = np.ascontiguousarray(np.broadcast_to(index[:, None, :], (batch, channels, points)))
        term = gather(flat_input, 2, Tensor._wrap(index)) * unsqueeze(weight, 1)
        out = term if out is None else out + term
    assert out is not None
    return reshape(out, (batch, channels, *out_spatial))


FUNCTIONS: dict[str, Callable[..., Any]] = {"affine_grid": affine_grid, "grid_sample": grid_sample}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
