"""NegativeBinomial(total_count, probs | logits): successes before `total_count` failures."""

from __future__ import annotations

from typing import Any

import glassgrad as gg
from glassgrad.nn.functional import logsigmoid
from glassgrad.tensor import Tensor

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _probs_or_logits, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """Counts of successes (each with probability `probs`) before `total_count` failures; a Gamma-Poisson
    mixture, which is how it is drawn."""

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        _probs_or_logits(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
            self._param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
            self._param = self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> NegativeBinomial:
        new = self._expand_parameters(NegativeBinomial, batch_shape, _instance, ("total_count", "probs", "logits"))
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @property
    def mean(self) -> Tensor:
        return self.total_count * gg.exp(self.logits)

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / gg.sigmoid(-self.logits)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> gg.Size:
        return self._param.size()

    @lazy_property
    def _gamma(self) -> Gamma:
        return Gamma(concentration=self.total_count, rate=gg.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with gg.no_grad():
            return gg.poisson(self._gamma.sample(sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        unnormalized = n * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_norm = -gg.lgamma(n + value) + gg.lgamma(1.0 + value) + gg.lgamma(n)
        log_norm = log_norm.masked_fill(n + value == 0.0, 0.0)  # the empty product: P(0 | n = 0) = 1
        return unnormalized - log_norm
