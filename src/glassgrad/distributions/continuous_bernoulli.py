"""ContinuousBernoulli(probs | logits): the continuous relaxation of Bernoulli on [0, 1] (Loaiza-Ganem and
Cunningham, 2019), density proportional to p^x (1 - p)^(1 - x)."""

from __future__ import annotations

import math
import numbers
from typing import Any

import glassgrad as gg
from glassgrad.nn.functional import binary_cross_entropy_with_logits
from glassgrad.tensor import Tensor

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _probs_or_logits, broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """Near probs = 1/2 the closed forms divide 0 by 0: inside `lims` they are replaced by Taylor expansions."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Any = None, logits: Any = None, lims: tuple[float, float] = (0.499, 0.501),
                 validate_args: bool | None = None) -> None:
        _probs_or_logits(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            if validate_args is not None and not self.arg_constraints["probs"].check(self.probs).all():
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            (self.logits,) = broadcast_all(logits)
        given = probs if probs is not None else logits
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(() if isinstance(given, numbers.Number) else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ContinuousBernoulli:
        new = self._expand_parameters(ContinuousBernoulli, batch_shape, _instance, ("probs", "logits"))
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        new._lims = self._lims
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self) -> Tensor:
        return gg.le(self.probs, self._lims[0]) | gg.gt(self.probs, self._lims[1])

    def _cut_probs(self) -> Tensor:
        """probs, with those inside the unstable region replaced by a harmless stand-in."""
        return gg.where(self._outside_unstable_region(), self.probs, self._lims[0] * gg.ones_like(self.probs))

    def _cont_bern_log_norm(self) -> Tensor:
        """log C(p), C(p) = 2 atanh(1 - 2p) / (1 - 2p) the normalizing constant."""
        p = self._cut_probs()
        below = gg.where(gg.le(p, 0.5), p, gg.zeros_like(p))
        above = gg.where(gg.ge(p, 0.5), p, gg.ones_like(p))
        log_norm = gg.log(gg.abs(gg.log1p(-p) - gg.log(p))) - gg.where(
            gg.le(p, 0.5), gg.log1p(-2.0 * below), gg.log(2.0 * above - 1.0)
        )
        x = gg.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return gg.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> Tensor:
        p = self._cut_probs()
        exact = p / (2.0 * p - 1.0) + 1.0 / (gg.log1p(-p) - gg.log(p))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * gg.pow(x, 2)) * x
        return gg.where(self._outside_unstable_region(), exact, taylor)

    @property
    def stddev(self) -> Tensor:
        return gg.sqrt(self.variance)

    @property
    def variance(self) -> Tensor:
        p = self._cut_probs()
        exact = p * (p - 1.0) / gg.pow(1.0 - 2.0 * p, 2) + 1.0 / gg.pow(gg.log1p(-p) - gg.log(p), 2)
        x = gg.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return gg.where(self._outside_unstable_region(), exact, taylor)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> gg.Size:
        return self._param.size()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with gg.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return self.icdf(gg.rand(tuple(shape), dtype=self.probs.dtype, device=self.probs.device))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        exact = (gg.pow(p, value) * gg.pow(1.0 - p, 1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = gg.where(self._outside_unstable_region(), exact, value)
        return gg.where(gg.le(value, 0.0), gg.zeros_like(value),
                        gg.where(gg.ge(value, 1.0), gg.ones_like(value), inside))

    def icdf(self, value: Tensor) -> Tensor:
        p = self._cut_probs()
        exact = (gg.log1p(-p + value * (2.0 * p - 1.0)) - gg.log1p(-p)) / (gg.log(p) - gg.log1p(-p))
        return gg.where(self._outside_unstable_region(), exact, value)

    def entropy(self) -> Tensor:
        log_q = gg.log1p(-self.probs)
        log_p = gg.log(self.probs)
        return self.mean * (log_q - log_p) - self._cont_bern_log_norm() - log_q

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.logits,)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        outside = gg.le(x, self._lims[0] - 0.5) | gg.gt(x, self._lims[1] - 0.5)
        cut = gg.where(outside, x, (self._lims[0] - 0.5) * gg.ones_like(x))
        exact = gg.log(gg.abs(gg.exp(cut) - 1.0)) - gg.log(gg.abs(cut))
        taylor = 0.5 * x + gg.pow(x, 2) / 24.0 - gg.pow(x, 4) / 2880.0
        return gg.where(outside, exact, taylor)
