"""MixtureSameFamily(mixture_distribution, component_distribution): a finite mixture whose components are
the rightmost batch dimension of one distribution."""

from __future__ import annotations

from typing import Any

import glassgrad as gg
from glassgrad.tensor import Tensor

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """Picks a component with a Categorical, then draws from it; log_prob is the log-sum-exp over components."""

    arg_constraints: dict[str, constraints.Constraint] = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical, component_distribution: Distribution,
                 validate_args: bool | None = None) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution need to be an instance of torch.distributions.Distribution")
        mixture_batch = mixture_distribution.batch_shape
        component_batch = component_distribution.batch_shape[:-1]
        for m, c in zip(reversed(mixture_batch), reversed(component_batch), strict=False):
            if m != 1 and c != 1 and m != c:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({mixture_batch}) is not compatible with "
                    f"`component_distribution.batch_shape`({component_batch})"
                )
        mixture_count = mixture_distribution.logits.shape[-1]
        component_count = component_distribution.batch_shape[-1]
        if mixture_count != component_count:
            raise ValueError(
                f"`mixture_distribution component` ({mixture_count}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({component_count})"
            )
        self._num_component = mixture_count
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MixtureSameFamily:
        batch_shape = gg.Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        Distribution.__init__(new, batch_shape, new._component_distribution.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    @property
    def mean(self) -> Tensor:
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return gg.sum(probs * self.component_distribution.mean, dim=-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        # law of total variance: E[Var(X | k)] + Var(E[X | k])
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        dim = -1 - self._event_ndims
        within = gg.sum(probs * self.component_distribution.variance, dim=dim)
        between = gg.sum(probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0), dim=dim)
        return within + between

    def cdf(self, x: Tensor) -> Tensor:
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return gg.sum(cdf_x * self.mixture_distribution.probs, dim=-1)

    def log_prob(self, x: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix_prob = gg.log_softmax(self.mixture_distribution.logits, dim=-1)
        return gg.logsumexp(log_prob_x + log_mix_prob, dim=-1)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        sample_shape = gg.Size(sample_shape)
        with gg.no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            event_shape = self.event_shape
            picks = self.mixture_distribution.sample(sample_shape)
            draws = self.component_distribution.sample(sample_shape)
            index = picks.reshape(picks.shape + (1,) * (len(event_shape) + 1))
            index = index.repeat((1,) * len(picks.shape) + (1,) + tuple(event_shape))
            return gg.gather(draws, gather_dim, index).squeeze(gather_dim)

    def _pad(self, x: Tensor) -> Tensor:
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x: Tensor) -> Tensor:
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        shape = x.shape
        return x.reshape(shape[:-1] + (1,) * pad_ndims + shape[-1:] + (1,) * self._event_ndims)

    def __repr__(self) -> str:
        return f"MixtureSameFamily(\n  {self.mixture_distribution},\n  {self.component_distribution})"
