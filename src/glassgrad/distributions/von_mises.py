"""VonMises(loc, concentration): the circular normal distribution on [-pi, pi)."""

from __future__ import annotations

import math
from typing import Any

import glassgrad as gg
from glassgrad.tensor import Tensor

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]


def _log_i0(x: Tensor) -> Tensor:
    """log of the modified Bessel function I0, without overflow: log(i0e(x)) + x."""
    return gg.special.i0e(x).log() + x


class VonMises(Distribution):
    """Density exp(concentration * cos(x - loc)) / (2 pi I0(concentration)).

    Sampling uses Best and Fisher's (1979) rejection sampler, in float64."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> VonMises:
        return self._expand_parameters(VonMises, batch_shape, _instance, ("loc", "concentration"))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.concentration * gg.cos(value - self.loc) - math.log(2 * math.pi) - _log_i0(self.concentration)

    @lazy_property
    def _proposal_r(self) -> Tensor:
        k = self.concentration.to(gg.float64)
        tau = 1 + (1 + 4 * k**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * k)
        r = (1 + rho**2) / (2 * rho)
        # for tiny concentrations rho underflows: r ~ 1/k + k there
        return gg.where(k > 1e-5, r, 1 / k + k)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        with gg.no_grad():
            k = self.concentration.to(gg.float64).expand(shape)
            r = self._proposal_r.expand(shape)
            x = gg.zeros(shape, dtype=gg.float64)
            done = gg.zeros(shape, dtype=gg.bool)
            while not done.all():
                u = gg.rand((3, *shape), dtype=gg.float64)
                z = gg.cos(math.pi * u[0])
                f = (1 + r * z) / (r + z)
                c = k * (r - f)
                accept = ((c * (2 - c) - u[1]) > 0) | ((c / u[1]).log() + 1 - c >= 0)
                take = accept & ~done
                x = gg.where(take, (u[2] - 0.5).sign() * f.acos(), x)
                done = done | accept
            angle = (x + math.pi + self.loc.to(gg.float64)) % (2 * math.pi) - math.pi
            return angle.to(self.loc.dtype)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @lazy_property
    def variance(self) -> Tensor:  # type: ignore[override]
        k = self.concentration
        return 1 - gg.special.i1e(k) / gg.special.i0e(k)
