"""Bernoulli(probs | logits): a coin with P(1) = probs."""

from __future__ import annotations

from typing import Any, ClassVar

import glassgrad as gg
from glassgrad.nn.functional import binary_cross_entropy_with_logits
from glassgrad.tensor import Tensor

from . import constraints
from ._families import _BinaryProbs
from .exp_family import ExponentialFamily
from .utils import _enumerated, broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(_BinaryProbs, ExponentialFamily):
    """Draws 1 with probability `probs` (or sigmoid(`logits`)) and 0 otherwise."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        given, _ = self._take_probs_or_logits(probs, logits)
        super().__init__(self._batch_shape_of(given), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Bernoulli:
        return self._expand_binary(Bernoulli, batch_shape, _instance)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = float("nan")
        return mode

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with gg.no_grad():
            return gg.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        return _enumerated(2, self._param.dtype, self._batch_shape, expand, self._param.device)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (gg.logit(self.probs),)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        return gg.log1p(gg.exp(x))
