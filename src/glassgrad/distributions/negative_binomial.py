"""NegativeBinomial(total_count, probs | logits): successes before `total_count` failures."""

from __future__ import annotations

from typing import Any, ClassVar

import glassgrad as gg
from glassgrad.nn.functional import logsigmoid
from glassgrad.tensor import Tensor

from . import constraints
from ._families import _BinaryProbs
from .distribution import Distribution
from .gamma import Gamma
from .utils import lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_BinaryProbs, Distribution):
    """Counts of successes (each with probability `probs`) before `total_count` failures; a Gamma-Poisson
    mixture, which is how it is drawn."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        _, (count,) = self._take_probs_or_logits(probs, logits, total_count)
        self.total_count = count.type_as(self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> NegativeBinomial:
        return self._expand_binary(NegativeBinomial, batch_shape, _instance, ("total_count",))

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
