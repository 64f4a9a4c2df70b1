"""StudentT(df, loc, scale)."""

from __future__ import annotations

import math
from typing import Any

import glassgrad as gg
from glassgrad.tensor import Tensor

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """loc + scale * Z / sqrt(V / df) with Z standard normal and V ~ Chi2(df)."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> StudentT:
        new = self._expand_parameters(StudentT, batch_shape, _instance, ("df", "loc", "scale"))
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self) -> Tensor:
        mean = self.loc.clone(memory_format=gg.contiguous_format)
        mean[self.df <= 1] = math.nan
        return mean

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        m = self.df.clone(memory_format=gg.contiguous_format)
        finite = self.df > 2
        m[finite] = self.scale[finite].pow(2) * self.df[finite] / (self.df[finite] - 2)
        m[(self.df <= 2) & (self.df > 1)] = math.inf
        m[self.df <= 1] = math.nan
        return m

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        normal = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        chi2 = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * normal * gg.rsqrt(chi2 / self.df)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
                    + gg.lgamma(0.5 * self.df) - gg.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * gg.log1p(y**2.0 / self.df) - log_norm

    def entropy(self) -> Tensor:
        log_beta = gg.lgamma(0.5 * self.df) + math.lgamma(0.5) - gg.lgamma(0.5 * (self.df + 1))
        return (self.scale.log()
                + 0.5 * (self.df + 1) * (gg.digamma(0.5 * (self.df + 1)) - gg.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + log_beta)
