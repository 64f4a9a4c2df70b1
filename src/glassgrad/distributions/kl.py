"""kl_divergence(p, q) and register_kl: closed-form KL divergences, dispatched on the pair of types."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from functools import total_ordering
from typing import Any

import glassgrad as gg
from glassgrad.nn.functional import softplus
from glassgrad.tensor import Tensor

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _sum_rightmost, euler_constant

__all__ = ["kl_divergence", "register_kl"]

KLFunction = Callable[[Any, Any], Tensor]
_KL_REGISTRY: dict[tuple[type, type], KLFunction] = {}  # what register_kl was given
_KL_MEMOIZE: dict[tuple[type, type], Any] = {}  # what dispatch chose for each pair of concrete types


def register_kl(type_p: type, type_q: type) -> Callable[[KLFunction], KLFunction]:
    """Decorator: `@register_kl(Normal, Normal) def kl(p, q): ...` makes kl_divergence use it for that pair
    (and for subclasses, the most specific registration winning)."""
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun: KLFunction) -> KLFunction:
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # a new registration can change what any pair dispatches to
        return fun

    return decorator


@total_ordering
class _Match:
    """A registered pair, ordered so that the more specific pair (in the first type, then the second) is smaller."""

    __slots__ = ["types"]

    def __init__(self, *types: type) -> None:
        self.types = types

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Match) and self.types == other.types

    def __le__(self, other: _Match) -> bool:
        for x, y in zip(self.types, other.types, strict=True):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p: type, type_q: type) -> Any:
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun, right_fun = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
            f"Please register_kl({left_p.__name__}, {right_q.__name__})",
            RuntimeWarning,
            stacklevel=3,
        )
    return left_fun


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """KL(p || q) = E_p[log p(x) - log q(x)], per batch element, in closed form.

    Raises NotImplementedError when no formula is registered for the pair of types."""
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type {q.__class__.__name__}"
        )
    return fun(p, q)


def _infinite_like(tensor: Tensor) -> Tensor:
    return gg.full_like(tensor, math.inf)


def _x_log_x(tensor: Tensor) -> Tensor:
    return tensor * tensor.log()


def _batch_trace_XXT(bmat: Tensor) -> Tensor:
    """trace(X X^T) per matrix of the batch: the sum of squares of its entries."""
    return bmat.pow(2).sum((-2, -1))


# -- same family ------------------------------------------------------------------------------


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    ones = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    ones[q.probs == 0] = math.inf
    ones[p.probs == 0] = 0
    zeros = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    zeros[q.probs == 1] = math.inf
    zeros[p.probs == 1] = 0
    return ones + zeros


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    total_p = p.concentration1 + p.concentration0
    total_q = q.concentration1 + q.concentration0
    log_betas = (q.concentration1.lgamma() + q.concentration0.lgamma() + total_p.lgamma()) - (
        p.concentration1.lgamma() + p.concentration0.lgamma() + total_q.lgamma()
    )
    return (
        log_betas
        + (p.concentration1 - q.concentration1) * gg.digamma(p.concentration1)
        + (p.concentration0 - q.concentration0) * gg.digamma(p.concentration0)
        + (total_q - total_p) * gg.digamma(total_p)
    )


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    # from https://math.stackexchange.com/questions/2214993/
    if (p.total_count < q.total_count).any():
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    beyond = p.total_count > q.total_count  # p puts mass where q has none
    kl[beyond] = _infinite_like(kl[beyond])
    return kl


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    terms = p.probs * (p.logits - q.logits)
    terms[(q.probs == 0).expand_as(terms)] = math.inf
    terms[(p.probs == 0).expand_as(terms)] = 0
    return terms.sum(-1)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    total_p = p.concentration.sum(-1)
    total_q = q.concentration.sum(-1)
    log_norms = total_p.lgamma() - total_q.lgamma() - (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    expected_log_x = p.concentration.digamma() - total_p.digamma().unsqueeze(-1)
    return log_norms + ((p.concentration - q.concentration) * expected_log_x).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: ExponentialFamily, q: ExponentialFamily) -> Tensor:
    """The Bregman divergence of the log-normalizer between the two natural parameters."""
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot be computed using Bregman "
            "divergences"
        )
    p_params = [param.detach().requires_grad_() for param in p._natural_params]
    q_params = q._natural_params
    p_normalizer = p._log_normalizer(*p_params)
    gradients = gg.autograd.grad(p_normalizer.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - p_normalizer
    for p_param, q_param, gradient in zip(p_params, q_params, gradients, strict=True):
        result = result - _sum_rightmost((q_param - p_param) * gradient, len(q.event_shape))
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    return (
        q.concentration * gg.log(p.rate / q.rate)
        + gg.lgamma(q.concentration) - gg.lgamma(p.concentration)
        + (p.concentration - q.concentration) * gg.digamma(p.concentration)
        + (q.rate - p.rate) * (p.concentration / p.rate)
    )


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    distance = (p.loc - q.loc).abs()
    return -scale_ratio.log() + distance / q.scale + scale_ratio * gg.exp(-distance / p.scale) - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes cannot be computed"
        )
    p_tril, q_tril = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_log_det_ratio = q_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) - p_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    n = p.event_shape[0]
    batch = gg.broadcast_shapes(q_tril.shape[:-2], p_tril.shape[:-2])
    solved = gg.linalg.solve_triangular(q_tril.expand(batch + (n, n)), p_tril.expand(batch + (n, n)), upper=False)
    trace = _batch_trace_XXT(solved)  # tr(Sigma_q^-1 Sigma_p)
    mahalanobis = _batch_mahalanobis(q_tril, q.loc - p.loc)
    return half_log_det_ratio + 0.5 * (trace + mahalanobis - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    shift = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + shift - 1 - var_ratio.log())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (gg.log(p.rate) - gg.log(q.rate)) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = math.inf
    return result


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


_euler_gamma = euler_constant
