"""torch.quasirandom.SobolEngine: Sobol' low-discrepancy points, the same numbers as PyTorch's when unscrambled.

The points come from Joe and Kuo's direction numbers (new-joe-kuo-6.21201, the table PyTorch's ATen
builds into its library): a primitive polynomial and initial values per dimension, from which the
Bratley-Fox recurrence makes the 30 direction numbers. glassgrad reads that table from the copy SciPy
ships (scipy is already one of glassgrad's dependencies; it is loaded when the first engine is made, not by
`import glassgrad`). Points are then Gray-code order XORs of the direction numbers, as in PyTorch, so an
unscrambled engine draws PyTorch's values bit for bit. A scrambled engine applies a random lower-triangular
binary matrix with unit diagonal and a random digital shift (Owen's linear scrambling, as PyTorch does);
its random numbers come from glassgrad's stream, so with a seed it repeats itself but not PyTorch's points,
while keeping their balance (each 2**m points put one point in each interval of width 2**-m per dimension).
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import numpy as np

from ._missing import module_getattr as _module_getattr

__all__ = ["SobolEngine"]

_MAXBIT = 30  # bits of each coordinate: points are integers over 2**30
_MAXDIM = 21201  # the dimensions Joe and Kuo's table covers


@functools.cache
def _joe_kuo() -> tuple[np.ndarray, np.ndarray]:
    """(poly, vinit): per dimension, the primitive polynomial (both end coefficients included) and its initial
    direction values (row d holds deg(poly[d]) of them, zero-padded)."""
    try:
        table = np.load(resources.files("scipy.stats") / "_sobol_direction_numbers.npz")  # type: ignore[arg-type]
    except (ModuleNotFoundError, FileNotFoundError) as error:
        raise RuntimeError(
            "glassgrad's SobolEngine reads Joe and Kuo's direction numbers from SciPy's copy "
            "(scipy/stats/_sobol_direction_numbers.npz), which this environment lacks"
        ) from error
    return table["poly"], table["vinit"]


def _direction_numbers(dimension: int) -> np.ndarray:
    """The (dimension, 30) int64 direction numbers: column j is m_j * 2**(29 - j)."""
    poly, vinit = _joe_kuo()
    poly = poly[:dimension]
    degrees = np.array([int(p).bit_length() - 1 for p in poly])
    m = np.zeros((dimension, _MAXBIT), dtype=np.int64)
    m[0] = 1  # the first dimension is van der Corput's sequence
    for degree in np.unique(degrees[1:]):  # the recurrence for all dimensions of one degree at once
        rows = np.flatnonzero(degrees == degree)
        rows = rows[rows > 0]
        block = np.zeros((len(rows), _MAXBIT), dtype=np.int64)
        block[:, :degree] = vinit[rows, :degree]
        for j in range(degree, _MAXBIT):
            value = block[:, j - degree] ^ (block[:, j - degree] << degree)
            for k in range(1, degree):
                value ^= ((poly[rows] >> (degree - k)) & 1) * (block[:, j - k] << k)
            block[:, j] = value
        m[rows] = block
    return m << (_MAXBIT - 1 - np.arange(_MAXBIT))


def _gray_code_columns(start: int, n: int) -> np.ndarray:
    """For the points start, start+1, ...: the index of the lowest zero bit of each, the direction number it flips."""
    counts = np.arange(start, start + n, dtype=np.int64) + 1
    return np.log2(counts & -counts).astype(np.int64)


class SobolEngine:
    """Draws Sobol' points in [0, 1)^dimension; scramble=True randomizes them (seeded by `seed`)."""

    MAXBIT = _MAXBIT
    MAXDIM = _MAXDIM

    def __init__(self, dimension: int, scramble: bool = False, seed: int | None = None) -> None:
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError(f"Supported range of dimensionality for SobolEngine is [1, {self.MAXDIM}]")
        self.seed = seed
        self.scramble = scramble
        self.dimension = dimension
        self._directions = _direction_numbers(dimension)
        self._shift = np.zeros(dimension, dtype=np.int64)
        if scramble:
            self._scramble()
        self._quasi = self._shift.copy()
        self._first_point = self._quasi.reshape(1, -1)
        self.num_generated = 0

    def _scramble(self) -> None:
        from .ops.creation import Generator

        rng = Generator()
        if self.seed is not None:
            rng.manual_seed(self.seed)
        bits = rng._rng.integers(0, 2, (self.dimension, _MAXBIT), dtype=np.int64)
        self._shift = bits @ (1 << np.arange(_MAXBIT, dtype=np.int64))
        lower = np.tril(rng._rng.integers(0, 2, (self.dimension, _MAXBIT, _MAXBIT), dtype=np.int64))
        lower[:, np.arange(_MAXBIT), np.arange(_MAXBIT)] = 1  # invertible: the scrambled points stay a net
        # bit p of a direction number, most significant first; the scrambled one is lower @ bits over GF(2)
        powers = 1 << (_MAXBIT - 1 - np.arange(_MAXBIT, dtype=np.int64))
        direction_bits = (self._directions[:, :, None] & powers) != 0  # (dimension, column, bit)
        scrambled = np.einsum("dpb,djb->djp", lower, direction_bits.astype(np.int64)) & 1
        self._directions = scrambled @ powers

    def _advance(self, n: int, start: int) -> np.ndarray:
        """The next n points as integers (n, dimension), moving the state past them."""
        flips = self._directions[:, _gray_code_columns(start, n)].T
        points = np.bitwise_xor.accumulate(flips, axis=0) ^ self._quasi
        if n:
            self._quasi = points[-1].copy()
        return points

    def draw(self, n: int = 1, out: Any = None, dtype: Any = None) -> Any:
        """The next n points, an (n, dimension) tensor of `dtype` (the default dtype unless given)."""
        from . import get_default_dtype
        from .tensor import Tensor

        dtype = dtype or get_default_dtype()
        if self.num_generated == 0:
            points = np.concatenate([self._first_point, self._advance(n - 1, 0)]) if n > 1 else self._first_point[:n]
        else:
            points = self._advance(n, self.num_generated - 1)
        self.num_generated += n
        result = Tensor._wrap((points * 2.0**-_MAXBIT).astype(dtype.np))
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw_base2(self, m: int, out: Any = None, dtype: Any = None) -> Any:
        """The next 2**m points, keeping the total drawn a power of 2 (which the balance properties need)."""
        n = 2**m
        total_n = self.num_generated + n
        if total_n & (total_n - 1):
            raise ValueError(
                "The balance properties of Sobol' points require n to be a power of 2. "
                f"{self.num_generated} points have been previously generated, then: n={self.num_generated}+2**{m}={total_n}. "
                "If you still want to do this, please use 'SobolEngine.draw()' instead."
            )
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self) -> SobolEngine:
        """Back to the first point."""
        self._quasi = self._shift.copy()
        self.num_generated = 0
        return self

    def fast_forward(self, n: int) -> SobolEngine:
        """Skip the next n points."""
        if self.num_generated == 0:
            self._advance(n - 1, 0)
        else:
            self._advance(n, self.num_generated - 1)
        self.num_generated += n
        return self

    def __repr__(self) -> str:
        settings = [f"dimension={self.dimension}"]
        if self.scramble:
            settings.append("scramble=True")
        if self.seed is not None:
            settings.append(f"seed={self.seed}")
        return f"{type(self).__name__}({', '.join(settings)})"


__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
