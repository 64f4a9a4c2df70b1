"""Dirichlet(concentration): distributions over the probability simplex."""

from __future__ import annotations

from typing import Any

import glassgrad as gg
from glassgrad.autograd import Function
from glassgrad.autograd.function import once_differentiable
from glassgrad.nn.functional import one_hot
from glassgrad.tensor import Tensor

from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


def _Dirichlet_backward(x: Tensor, concentration: Tensor, grad_output: Tensor) -> Tensor:
    """The concentration's gradient of a Dirichlet draw x (implicit reparameterization): each coordinate's
    own derivative from its Beta marginal, with the other coordinates rescaled to stay on the simplex."""
    total = concentration.sum(-1, True).expand_as(concentration)
    grad = gg._dirichlet_grad(x, concentration, total)
    return grad * (grad_output - (x * grad_output).sum(-1, True))


class _Dirichlet(Function):
    @staticmethod
    def forward(ctx: Any, concentration: Tensor) -> Tensor:
        x = gg._sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_output: Tensor) -> Tensor:
        x, concentration = ctx.saved_tensors
        return _Dirichlet_backward(x, concentration, grad_output)


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution with positive `concentration` (the last dimension is the event)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Dirichlet:
        return self._expand_parameters(Dirichlet, batch_shape, _instance, ("concentration",))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return _Dirichlet.apply(self.concentration.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return gg.xlogy(c - 1.0, value).sum(-1) + gg.lgamma(c.sum(-1)) - gg.lgamma(c).sum(-1)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        excess = (self.concentration - 1).clamp(min=0.0)
        mode = excess / excess.sum(-1, True)
        # all concentrations below 1: the density peaks at the corner of the largest one
        corner = (self.concentration < 1).all(dim=-1)
        mode[corner] = one_hot(mode[corner].argmax(dim=-1), excess.shape[-1]).to(mode)
        return mode

    @property
    def variance(self) -> Tensor:
        c = self.concentration
        total = c.sum(-1, True)
        return c * (total - c) / (total.pow(2) * (total + 1))

    def entropy(self) -> Tensor:
        c = self.concentration
        k = c.size(-1)
        total = c.sum(-1)
        return gg.lgamma(c).sum(-1) - gg.lgamma(total) - (k - total) * gg.digamma(total) - (
            (c - 1.0) * gg.digamma(c)
        ).sum(-1)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration,)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        return x.lgamma().sum(-1) - gg.lgamma(x.sum(-1))
