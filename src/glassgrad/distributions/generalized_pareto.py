"""GeneralizedPareto(loc, scale, concentration)."""

from __future__ import annotations

import math
import numbers
from typing import Any

import glassgrad as gg
from glassgrad.tensor import Tensor

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Survival function (1 + xi z)^(-1/xi) with z = (x - loc) / scale and xi = concentration (exp(-z) at
    xi = 0); bounded above by loc - scale / xi when xi < 0."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        scalar = all(isinstance(v, numbers.Number) for v in (loc, scale, concentration))
        super().__init__(() if scalar else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> GeneralizedPareto:
        return self._expand_parameters(GeneralizedPareto, batch_shape, _instance, ("loc", "scale", "concentration"))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return self.icdf(gg.rand(tuple(shape), dtype=self.loc.dtype, device=self.loc.device))

    def _xi(self) -> tuple[Tensor, Tensor]:
        """(xi == 0, xi with zeros replaced by ones): the closed forms divide by xi."""
        zero = gg.isclose(self.concentration, gg.zeros_like(self.concentration))
        return zero, gg.where(zero, gg.ones_like(self.concentration), self.concentration)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, xi = self._xi()
        y = 1 / xi + gg.ones_like(z)
        nonzero = gg.where(y == 0, y, y * gg.log1p(xi * z))
        return -self.scale.log() - gg.where(zero, z, nonzero)

    def log_survival_function(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, xi = self._xi()
        return gg.where(zero, -z, -gg.log1p(xi * z) / xi)

    def log_cdf(self, value: Tensor) -> Tensor:
        return gg.log1p(-gg.exp(self.log_survival_function(value)))

    def cdf(self, value: Tensor) -> Tensor:
        return gg.exp(self.log_cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        zero, xi = self._xi()
        log_u = gg.log1p(-value)
        return gg.where(zero, self.loc - self.scale * log_u, self.loc + self.scale / xi * gg.expm1(-xi * log_u))

    @property
    def mean(self) -> Tensor:
        finite = self.concentration < 1
        xi = gg.where(finite, self.concentration, 0.5)
        return gg.where(finite, self.loc + self.scale / (1 - xi), math.nan)

    @property
    def variance(self) -> Tensor:
        finite = self.concentration < 0.5
        xi = gg.where(finite, self.concentration, 0.25)
        return gg.where(finite, self.scale**2 / ((1 - xi) ** 2 * (1 - 2 * xi)), math.nan)

    def entropy(self) -> Tensor:
        return gg.broadcast_to(gg.log(self.scale) + self.concentration + 1, self._batch_shape)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        upper = gg.where(self.concentration < 0, self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)
