"""Laplace(loc, scale): the double exponential."""

from __future__ import annotations

from typing import Any

import glassgrad as gg
from glassgrad.tensor import Tensor

from ._families import _LocationScale
from .distribution import Distribution

__all__ = ["Laplace"]


class Laplace(_LocationScale, Distribution):
    """Density exp(-|x - loc| / scale) / (2 scale)."""


    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return (2**0.5) * self.scale

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = gg.finfo(self.loc.dtype).eps
        # u uniform on (-1, 1), kept off -1 so that log1p(-|u|) stays finite
        u = gg.empty(tuple(shape), dtype=self.loc.dtype, device=self.loc.device).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * gg.log1p(-u.abs())

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -gg.log(2 * self.scale) - gg.abs(value - self.loc) / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * gg.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value: Tensor) -> Tensor:
        centered = value - 0.5
        return self.loc - self.scale * centered.sign() * gg.log1p(-2 * centered.abs())

    def entropy(self) -> Tensor:
        return 1 + gg.log(2 * self.scale)
