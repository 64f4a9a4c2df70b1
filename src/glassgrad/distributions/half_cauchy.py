"""HalfCauchy(scale): |X| for X ~ Cauchy(0, scale)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import glassgrad as gg
from glassgrad.tensor import Tensor

from . import constraints
from ._folded import _Folded
from .cauchy import Cauchy

__all__ = ["HalfCauchy"]


class HalfCauchy(_Folded):
    """The Cauchy distribution folded onto x >= 0: no finite mean or variance."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Cauchy(0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return gg.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance
