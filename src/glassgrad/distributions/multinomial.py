"""Multinomial(total_count, probs | logits): category counts of `total_count` categorical draws."""

from __future__ import annotations

from typing import Any

import glassgrad as gg
from glassgrad.tensor import Tensor

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Counts per category (the last dimension) after `total_count` draws from Categorical(probs | logits)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    total_count: int

    def __init__(self, total_count: int = 1, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Multinomial:
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = gg.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = self._binomial.expand(batch_shape + self.event_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> constraints.Constraint:
        return constraints.multinomial(self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def param_shape(self) -> gg.Size:
        return self._categorical.param_shape

    def sample(self, sample_shape: Any = ()) -> Tensor:
        sample_shape = gg.Size(sample_shape)
        draws = self._categorical.sample(gg.Size((self.total_count,)) + sample_shape)
        # the draws' leading dimension is the trial: move it last and count per category
        draws = draws.permute(*range(1, draws.dim()), 0)
        counts = gg.zeros(tuple(self._extended_shape(sample_shape)), dtype=draws.dtype, device=draws.device)
        counts.scatter_add_(-1, draws, gg.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self) -> Tensor:
        n = gg.tensor(self.total_count)
        first = n * self._categorical.entropy() - gg.lgamma(n + 1)
        counts = self._binomial.enumerate_support(expand=False)[1:]
        weights = gg.lgamma(counts + 1)
        second = (gg.exp(self._binomial.log_prob(counts)) * weights).sum([0, -1])
        return first + second

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone(memory_format=gg.contiguous_format)
        log_factorial_n = gg.lgamma(value.sum(-1) + 1)
        log_factorial_xs = gg.lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -float("inf"))] = 0  # 0 * log 0 counts as 0
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)
