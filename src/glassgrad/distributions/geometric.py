"""Geometric(probs | logits): failures before the first success."""

from __future__ import annotations

import numbers
from typing import Any

import glassgrad as gg
from glassgrad.nn.functional import binary_cross_entropy_with_logits
from glassgrad.tensor import Tensor

from . import constraints
from .distribution import Distribution
from .utils import _probs_or_logits, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Geometric"]


class Geometric(Distribution):
    """P(k) = (1 - p)^k p for k = 0, 1, 2, ... with success probability p = `probs` (or sigmoid(`logits`))."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        _probs_or_logits(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        given = probs if probs is not None else logits
        param = self.probs if probs is not None else self.logits
        super().__init__(() if isinstance(given, numbers.Number) else param.size(), validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs  # a success probability of 0 never stops: the unit interval is not enough
            valid = value > 0
            if not valid.all():
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape {tuple(value.shape)}) of "
                    f"distribution {self!r} to be positive but found invalid values:\n{value.data[~valid]}"
                )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Geometric:
        return self._expand_parameters(Geometric, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return gg.zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        tiny = gg.finfo(self.probs.dtype).tiny
        with gg.no_grad():
            u = gg.empty(tuple(shape), dtype=self.probs.dtype, device=self.probs.device).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()  # inverse cdf

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone(memory_format=gg.contiguous_format)
        probs[(probs == 1) & (value == 0)] = 0  # 0 * log(0) counts as 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
