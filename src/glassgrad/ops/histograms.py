"""Histograms: histc, histogram, histogramdd.

Bins are found as PyTorch's CPU kernel finds them (HistogramKernel.cpp), in the input's own dtype, so that a value
on a bin edge lands where PyTorch puts it: with evenly spaced edges, by linear interpolation (histc) or by linear
interpolation corrected by a search of the neighbouring edges (histogram and histogramdd with bin counts); with
given edges, by binary search. Every bin includes its left edge, the last also its right one; values outside the
edges (NaN among them) are not counted.
"""

from __future__ import annotations

import builtins
import collections
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ..tensor import Tensor
from .elementwise import _not_implemented, not_implemented_for
from .table import derivative

histogram_result = collections.namedtuple("histogram", ("hist", "bin_edges"), module="glassgrad.return_types")
histogramdd_result = collections.namedtuple("histogramdd", ("hist", "bin_edges"), module="glassgrad.return_types")


def _linear_positions(values: np.ndarray, edges: np.ndarray, local_search: bool) -> np.ndarray:
    """Bin positions from evenly spaced edges: (v - left) * bins / (right - left) in the values' dtype; with the
    local search, std::upper_bound over the edges from one before that guess to one after."""
    bins = edges.size - 1
    left, right = edges[0], edges[-1]
    with np.errstate(invalid="ignore", over="ignore"):
        guess = ((values - left) * values.dtype.type(bins) / (right - left)).astype(np.int64)
    if not local_search:
        return guess
    low = np.maximum(guess - 1, 0)
    high = np.minimum(guess + 2, edges.size)
    above = low.copy()
    for step in range(3):
        at = low + step
        above += (at < high) & (edges[np.minimum(at, bins)] <= values)
    return above - 1


def _bin_positions(values: np.ndarray, edges: np.ndarray, even: bool, local_search: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each value's bin, and which values are counted (those inside the outer edges)."""
    inside = (values >= edges[0]) & (values <= edges[-1])
    if even:
        positions = _linear_positions(np.where(inside, values, edges[0]), edges, local_search)
    else:
        positions = np.searchsorted(edges, values, side="right") - 1
    positions = np.where(positions == edges.size - 1, positions - 1, positions)
    return positions, inside


def _fill(samples: np.ndarray, edges: Sequence[np.ndarray], even: bool, local_search: bool, weight: np.ndarray | None,
          density: bool) -> np.ndarray:
    """The histogram of `samples` (N, D) over D dims with these edges, as PyTorch's histogramdd kernel fills it."""
    dtype = samples.dtype
    hist = np.zeros(tuple(e.size - 1 for e in edges), dtype=dtype)
    counted = np.ones(samples.shape[0], dtype=bool)
    where = []
    for d, e in enumerate(edges):
        positions, inside = _bin_positions(samples[:, d], e, even, local_search)
        counted &= inside
        where.append(positions)
    flat = np.ravel_multi_index(tuple(w[counted] for w in where), hist.shape) if hist.size else np.zeros(0, np.int64)
    amounts = np.ones(flat.size, dtype) if weight is None else weight.reshape(-1)[counted].astype(dtype, copy=False)
    np.add.at(hist.reshape(-1), flat, amounts)
    if density:
        with np.errstate(invalid="ignore", divide="ignore"):
            hist = hist / hist.sum()
            for d, e in enumerate(edges):
                hist = hist / np.diff(e).reshape([-1 if i == d else 1 for i in range(len(edges))])
    return hist.astype(dtype, copy=False)


def _check_floating(input: Tensor, kernel: str) -> None:
    if not input.dtype.is_floating_point:
        raise not_implemented_for(kernel, input.dtype)


def _outer_edges(samples: np.ndarray, dims: int, range: Sequence[float] | None) -> list[tuple[float, float]]:
    """Each dim's leftmost and rightmost edge: `range`, else the data's extent (0 to 1 without data), widened by a
    half on each side where it is a point, as NumPy does."""
    if range is not None:
        if len(range) != 2 * dims:
            raise RuntimeError(
                f"torch.histogramdd: for a {dims}-dimensional histogram range should have {2 * dims} elements, but got {len(range)}"
            )
        outer = [(float(range[2 * d]), float(range[2 * d + 1])) for d in builtins.range(dims)]
    elif samples.shape[0]:
        outer = [(float(samples[:, d].min()), float(samples[:, d].max())) for d in builtins.range(dims)]
    else:
        outer = [(0.0, 1.0)] * dims
    for d, (left, right) in enumerate(outer):
        if not (math.isfinite(left) and math.isfinite(right)):
            raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{left:g}, {right:g}] is not finite")
        if left > right:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {left:g} max {right:g} for dimension {d}"
            )
        if left == right:
            outer[d] = (left - 0.5, right + 0.5)
    return outer


def _edges(input: Tensor, samples: np.ndarray, bins: Any, range: Sequence[float] | None, op: str) -> tuple[list[np.ndarray], bool]:
    """Each dim's bin edges, and whether they are evenly spaced (made here from counts) rather than given."""
    dims = samples.shape[1]
    if isinstance(bins, Tensor) or (isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor)):
        given = [bins] if isinstance(bins, Tensor) else list(bins)
        for d, e in enumerate(given):
            if e.dtype is not input.dtype:
                raise RuntimeError(
                    "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with "
                    f"dtype {input.dtype.name} and bins for dimension {d} with dtype {e.dtype.name}"
                )
            if e.ndim != 1:
                raise RuntimeError(
                    f"torch.histogramdd: bins tensor should have one dimension, but got {e.ndim} dimensions in the bins "
                    f"tensor for dimension {d}"
                )
            if e.numel() == 0:
                raise RuntimeError(
                    "torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in the bins "
                    f"tensor for dimension {d}"
                )
        return [e._data for e in given], False
    counts = [bins] * dims if isinstance(bins, int) else list(bins)
    if len(counts) != dims:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    for d, count in enumerate(counts):
        if count <= 0:
            raise RuntimeError(f"torch.{op}(): bins must be > 0, but got {count} for dimension {d}")
    outer = _outer_edges(samples, dims, range)
    return [_linspace(left, right, count + 1, samples.dtype) for (left, right), count in zip(outer, counts, strict=True)], True


def _linspace(start: float, end: float, steps: int, dtype: np.dtype) -> np.ndarray:
    """PyTorch's CPU linspace to the last bit: the step in `dtype`, then the first half start + step * i and the second
    end - step * (steps - 1 - i), each a fused multiply-add (one rounding), as its vectorized kernel computes them."""
    first, last = dtype.type(start), dtype.type(end)
    step = Fraction(float((last - first) / dtype.type(max(steps - 1, 1))))
    exact = [Fraction(float(first)) + step * i if i < steps // 2 else Fraction(float(last)) - step * (steps - 1 - i)
             for i in builtins.range(steps)]
    return np.array([float(x) for x in exact], dtype=np.float64).astype(dtype)


def _check_weight(input: Tensor, weight: Tensor | None) -> None:
    if weight is None:
        return
    if weight.dtype is not input.dtype:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the same dtype, "
            f"but got input({input.dtype.name}), and weight({weight.dtype.name})"
        )
    if tuple(weight.shape) != tuple(input.shape[:-1]):
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor excluding "
            f"its innermost dimension, but got input with shape {list(input.shape)} and weight with shape {list(weight.shape)}"
        )


# PyTorch records a histogram with a node whose backward is not implemented (its bin edges too; glassgrad's are
# plain tensors).
_HISTOGRAM_ENTRIES = {
    inputs: derivative("NotImplemented", inputs, **dict.fromkeys(inputs, _not_implemented("histogram")))
    for inputs in (("self",), ("self", "weight"))
}


def _histogramdd(input: Tensor, bins: Any, range: Sequence[float] | None, weight: Tensor | None, density: bool,
                 op: str) -> tuple[Tensor, list[Tensor]]:
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    samples = input._data.reshape(-1, input.shape[-1])
    edges, even = _edges(input, samples, bins, range, op)
    _check_weight(input, weight)
    hist = _fill(samples, edges, even, True, None if weight is None else weight._data, density)
    inputs = (input,) if weight is None else (input, weight)
    entry = _HISTOGRAM_ENTRIES[("self",) if weight is None else ("self", "weight")]
    return entry.record(hist, inputs), [Tensor._wrap(e.copy()) for e in edges]


def histogram(input: Tensor, bins: int | Tensor = 100, *, range: Sequence[float] | None = None, weight: Tensor | None = None,
              density: bool = False) -> Any:
    _check_floating(input, "histogram_cpu")
    hist, edges = _histogramdd(input.reshape(-1, 1), bins, range, None if weight is None else weight.reshape(-1), density, "histogram")
    return histogram_result(hist.reshape(-1), edges[0])


def histogramdd(input: Tensor, bins: int | Sequence[int] | Sequence[Tensor] = 10, *, range: Sequence[float] | None = None,
                weight: Tensor | None = None, density: bool = False) -> Any:
    _check_floating(input, "histogramdd")
    hist, edges = _histogramdd(input, bins, range, weight, density, "histogram")
    return histogramdd_result(hist, tuple(edges))


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """The histogram of every element over `bins` equal bins from min to max (the data's extent if they are equal)."""
    _check_floating(input, "histogram_histc_cpu")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    left, right = float(min), float(max)
    data = input._data.reshape(-1)
    if left == right and data.size:
        left, right = float(data.min()), float(data.max())
    if left == right:
        left, right = left - 1, right + 1
    if not (math.isfinite(left) and math.isfinite(right)):
        raise RuntimeError(f"torch.histc: range of [{_c_number(left)}, {_c_number(right)}] is not finite")
    if left >= right:
        raise RuntimeError("torch.histc: max must be larger than min")
    edges = _linspace(left, right, bins + 1, data.dtype)
    return Tensor._wrap(_fill(data.reshape(-1, 1), [edges], True, False, None, False))


def _c_number(x: float) -> str:
    return "-nan" if math.isnan(x) else f"{x:g}"


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {"histc": histc, "histogram": histogram, "histogramdd": histogramdd}
METHODS: dict[str, Callable[..., Any]] = {"histc": histc, "histogram": histogram}
INPLACE: tuple[str, ...] = ()
