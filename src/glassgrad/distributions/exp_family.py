"""ExponentialFamily: distributions whose entropy follows from their log-normalizer (by autograd)."""

from __future__ import annotations

import glassgrad as gg
from glassgrad.tensor import Tensor

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """p(x; theta) = exp(<t(x), theta> - F(theta) + k(x)): subclasses give the natural parameters theta, the
    log-normalizer F and the carrier measure's mean E[k(x)]; entropy and the KL between two members of the
    same family (the Bregman divergence of F) follow."""

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float | Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        # H = F(theta) - <theta, grad F(theta)> - E[k(x)]
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        normalizer = self._log_normalizer(*params)
        gradients = gg.autograd.grad(normalizer.sum(), params, create_graph=True)
        result = result + normalizer
        for param, gradient in zip(params, gradients, strict=True):
            result = result - (param * gradient).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
