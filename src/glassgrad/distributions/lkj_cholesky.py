"""LKJCholesky(dim, concentration): Cholesky factors of correlation matrices (Lewandowski, Kurowicka and Joe,
2009), drawn with the onion method."""

from __future__ import annotations

import math
from typing import Any

import glassgrad as gg
from glassgrad.tensor import Tensor

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The density of the correlation matrix L L^T is proportional to det(L L^T)^(concentration - 1)."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Any = 1.0, validate_args: bool | None = None) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        # row i of L: its squared off-diagonal length is Beta(i / 2, concentration + (dim - 2 - i) / 2)
        marginal = self.concentration + 0.5 * (self.dim - 2)
        offset = gg.arange(self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = gg.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(batch_shape, (dim, dim), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LKJCholesky:
        new = self._expand_parameters(LKJCholesky, batch_shape, _instance, ("concentration",))
        new.dim = self.dim
        new._beta = self._beta.expand(gg.Size(batch_shape) + (self.dim,))
        return new

    def sample(self, sample_shape: Any = ()) -> Tensor:
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        normal = gg.randn(tuple(self._extended_shape(sample_shape)), dtype=y.dtype, device=y.device).tril(-1)
        direction = normal / normal.norm(dim=-1, keepdim=True)
        direction[..., 0, :].fill_(0.0)  # the first row is (1, 0, ..., 0)
        w = gg.sqrt(y) * direction
        diagonal = gg.clamp(1 - gg.sum(w**2, dim=-1), min=gg.finfo(w.dtype).tiny)
        return w + gg.diag_embed(diagonal.sqrt())

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diagonal = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = gg.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = gg.sum(order * diagonal.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        log_norm = 0.5 * dm1 * math.log(math.pi) + gg.mvlgamma(alpha - 0.5, dm1) - gg.lgamma(alpha) * dm1
        return unnormalized - log_norm
