"""Gamma(concentration, rate), reparameterized through the implicit gradient of the standard gamma draw."""

from __future__ import annotations

import numbers
from typing import Any

import glassgrad as gg
from glassgrad.tensor import Tensor

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """The gamma distribution with shape `concentration` and inverse scale `rate`."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalar = isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number)
        super().__init__(() if scalar else self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gamma:
        return self._expand_parameters(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        value = gg._standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=gg.finfo(value.dtype).tiny)  # a draw of exactly 0 would have log_prob -inf
        return value

    def log_prob(self, value: Tensor) -> Tensor:
        value = gg.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        c, r = self.concentration, self.rate
        return gg.xlogy(c, r) + gg.xlogy(c - 1, value) - r * value - gg.lgamma(c)

    def entropy(self) -> Tensor:
        c = self.concentration
        return c - gg.log(self.rate) + gg.lgamma(c) + (1.0 - c) * gg.digamma(c)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return self.concentration - 1, -self.rate

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:  # type: ignore[override]
        return gg.lgamma(x + 1) + (x + 1) * gg.log(-y.reciprocal())

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return gg.special.gammainc(self.concentration, self.rate * value)
