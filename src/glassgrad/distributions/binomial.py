"""Binomial(total_count, probs | logits)."""

from __future__ import annotations

from typing import Any

import glassgrad as gg
from glassgrad.tensor import Tensor

from . import constraints
from .distribution import Distribution
from .utils import _enumerated, _probs_or_logits, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Binomial"]


def _clamp_by_zero(x: Tensor) -> Tensor:
    """max(x, 0), with gradient 1/2 at 0 (as PyTorch's, so that gradients at logits = 0 agree)."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


def _homogeneous_count(total_count: Tensor, what: str) -> int:
    count = int(total_count.max())
    if not total_count.min() == count:
        raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
    return count


class Binomial(Distribution):
    """Successes in `total_count` independent trials of success probability `probs` (or sigmoid(`logits`))."""

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
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

    def expand(self, batch_shape: Any, _instance: Any = None) -> Binomial:
        new = self._expand_parameters(Binomial, batch_shape, _instance, ("total_count", "probs", "logits"))
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> gg.Size:
        return self._param.size()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with gg.no_grad():
            return gg.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        log_choose = gg.lgamma(n + 1) - gg.lgamma(value + 1) - gg.lgamma(n - value + 1)
        # n * log(1 + exp(logits)), written to stay finite for large |logits|
        log_normalizer = n * _clamp_by_zero(logits) + n * gg.log1p(gg.exp(-gg.abs(logits)))
        return value * logits + log_choose - log_normalizer

    def entropy(self) -> Tensor:
        _homogeneous_count(self.total_count, "entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(gg.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        count = _homogeneous_count(self.total_count, "enumerate_support")
        return _enumerated(1 + count, self._param.dtype, self._batch_shape, expand, self._param.device)
