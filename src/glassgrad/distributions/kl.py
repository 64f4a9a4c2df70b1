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
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
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
        raise NotImplementedError(  # the run of spaces is PyTorch's
            "The cross KL-divergence between different exponential families cannot                             be "
            "computed using Bregman divergences"
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


def _kl_gaussians(p_loc: Tensor, p_tril: Tensor, q_loc: Tensor, q_tril: Tensor) -> Tensor:
    """KL between two multivariate normals given by their means and lower Cholesky factors of covariance."""
    half_log_det = [tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) for tril in (p_tril, q_tril)]
    half_log_det_ratio = half_log_det[1] - half_log_det[0]
    n = p_loc.shape[-1]
    batch = gg.broadcast_shapes(q_tril.shape[:-2], p_tril.shape[:-2])
    solved = gg.linalg.solve_triangular(q_tril.expand((*batch, n, n)), p_tril.expand((*batch, n, n)), upper=False)
    trace = _batch_trace_XXT(solved)  # tr(Sigma_q^-1 Sigma_p)
    mahalanobis = _batch_mahalanobis(q_tril, q_loc - p_loc)
    return half_log_det_ratio + 0.5 * (trace + mahalanobis - n)


def _same_event_shape(p: Distribution, q: Distribution, which: str) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError(
            f"KL-divergence between two {which} with                          different event shapes cannot be "
            "computed"
        )


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes cannot be computed"
        )
    return _kl_gaussians(p.loc, p._unbroadcasted_scale_tril, q.loc, q._unbroadcasted_scale_tril)


# a low-rank covariance enters through its dense Cholesky factor: exact, and n is small where these are compared
@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(
    p: LowRankMultivariateNormal, q: LowRankMultivariateNormal
) -> Tensor:
    _same_event_shape(p, q, "Low Rank Multivariate Normals")
    return _kl_gaussians(p.loc, p.scale_tril, q.loc, q.scale_tril)


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p: LowRankMultivariateNormal, q: MultivariateNormal) -> Tensor:
    _same_event_shape(p, q, "(Low Rank) Multivariate Normals")
    return _kl_gaussians(p.loc, p.scale_tril, q.loc, q._unbroadcasted_scale_tril)


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p: MultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    _same_event_shape(p, q, "(Low Rank) Multivariate Normals")
    return _kl_gaussians(p.loc, p._unbroadcasted_scale_tril, q.loc, q.scale_tril)


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



@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    # Chyzak and Nielsen (2019): log(((g_p + g_q)^2 + (l_p - l_q)^2) / (4 g_p g_q))
    return ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - (4 * p.scale * q.scale).log()


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p: ContinuousBernoulli, q: ContinuousBernoulli) -> Tensor:
    return (p.mean * (p.logits - q.logits) + gg.log1p(-p.probs) + p._cont_bern_log_norm()
            - gg.log1p(-q.probs) - q._cont_bern_log_norm())


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    return -p.entropy() - gg.log1p(-q.probs) / p.probs - q.logits


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    # E_p[exp(-x / b_q)] = Gamma(1 + b_p / b_q) exp((l_q - l_p) / b_q) for the Gumbel p
    ratio = p.scale / q.scale
    shift = (p.loc - q.loc) / q.scale
    return -ratio.log() + shift + ratio * euler_constant + gg.exp((1 + ratio).lgamma() - shift) - (1 + euler_constant)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> Tensor:
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    result[p.support.lower_bound < q.support.lower_bound] = math.inf  # p has mass below q's support
    return result


# -- different families: KL(p || q) = -H(p) + the cross-entropy E_p[-log q(x)], from p's moments ------------------
# Each _cross_* gives E_p[-log q(x)] for one family of q, from the moments of p it needs.


def _cross_normal(mean: Tensor, variance: Tensor, q: Normal) -> Tensor:
    return q.scale.log() + 0.5 * math.log(2 * math.pi) + (variance + (mean - q.loc).pow(2)) / (2 * q.scale.pow(2))


def _cross_exponential(mean: Tensor, q: Exponential) -> Tensor:
    return -q.rate.log() + q.rate * mean


def _cross_gamma(mean: Tensor, mean_log: Tensor, q: Gamma) -> Tensor:
    c = q.concentration
    return -c * q.rate.log() - (c - 1) * mean_log + q.rate * mean + gg.lgamma(c)


def _cross_gumbel(mean: Tensor, mean_exp: Tensor, q: Gumbel) -> Tensor:
    """mean_exp: E_p[exp(-x / q.scale)]."""
    return q.scale.log() + (mean - q.loc) / q.scale + gg.exp(q.loc / q.scale) * mean_exp


def _cross_continuous_bernoulli(mean: Tensor, q: ContinuousBernoulli) -> Tensor:
    return -mean * q.logits - gg.log1p(-q.probs) - q._cont_bern_log_norm()


def _beta_mean_log(p: Beta) -> Tensor:
    return gg.digamma(p.concentration1) - gg.digamma(p.concentration1 + p.concentration0)


def _uniform_mean_log(p: Uniform) -> Tensor:
    """E[log x] for x uniform on [a, b] within x >= 0."""
    return (gg.xlogy(p.high, p.high) - gg.xlogy(p.low, p.low)) / (p.high - p.low) - 1


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Bernoulli, q: Poisson) -> Tensor:
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p: Beta, q: ContinuousBernoulli) -> Tensor:
    return -p.entropy() + _cross_continuous_bernoulli(p.mean, q)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p: Beta, q: Exponential) -> Tensor:
    return -p.entropy() + _cross_exponential(p.mean, q)


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p: Beta, q: Gamma) -> Tensor:
    return -p.entropy() + _cross_gamma(p.mean, _beta_mean_log(p), q)


@register_kl(Beta, Normal)
def _kl_beta_normal(p: Beta, q: Normal) -> Tensor:
    return -p.entropy() + _cross_normal(p.mean, p.variance, q)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Beta, q: Uniform) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    return gg.where((q.low > p.support.lower_bound) | (q.high < p.support.upper_bound), math.inf, result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p: ContinuousBernoulli, q: Exponential) -> Tensor:
    return -p.entropy() + _cross_exponential(p.mean, q)


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p: ContinuousBernoulli, q: Normal) -> Tensor:
    return -p.entropy() + _cross_normal(p.mean, p.variance, q)


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p: ContinuousBernoulli, q: Uniform) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    # PyTorch 2.13 compares with >= and <=: a q of exactly [0, 1] gives inf there, and so it does here
    outside = gg.ge(q.low, p.support.lower_bound) | gg.le(q.high, p.support.upper_bound)
    return gg.where(outside, math.inf, result)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Exponential, q: Gamma) -> Tensor:
    return -p.entropy() + _cross_gamma(p.mean, -euler_constant - p.rate.log(), q)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Exponential, q: Gumbel) -> Tensor:
    return -p.entropy() + _cross_gumbel(p.mean, p.rate / (p.rate + q.scale.reciprocal()), q)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p: Exponential, q: Normal) -> Tensor:
    return -p.entropy() + _cross_normal(p.mean, p.variance, q)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p: Gamma, q: Exponential) -> Tensor:
    return -p.entropy() + _cross_exponential(p.mean, q)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p: Gamma, q: Gumbel) -> Tensor:
    mean_exp = (p.rate / (p.rate + q.scale.reciprocal())).pow(p.concentration)
    return -p.entropy() + _cross_gumbel(p.mean, mean_exp, q)


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p: Gamma, q: Normal) -> Tensor:
    return -p.entropy() + _cross_normal(p.mean, p.variance, q)


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p: Gumbel, q: Normal) -> Tensor:
    return -p.entropy() + _cross_normal(p.mean, p.variance, q)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p: Laplace, q: Normal) -> Tensor:
    return -p.entropy() + _cross_normal(p.mean, p.variance, q)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p: Normal, q: Gumbel) -> Tensor:
    mean_exp = gg.exp(-p.loc / q.scale + (p.scale / q.scale).pow(2) / 2)
    return -p.entropy() + _cross_gumbel(p.mean, mean_exp, q)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Tensor:
    # E|x - m| for x ~ N(mu, s): s sqrt(2/pi) exp(-d^2 / 2s^2) + d erf(d / (s sqrt 2)), d = mu - m
    d = p.loc - q.loc
    folded = p.scale * math.sqrt(2 / math.pi) * gg.exp(-0.5 * (d / p.scale).pow(2))
    mean_abs = folded + d * gg.erf(d / (p.scale * math.sqrt(2)))
    return -p.entropy() + gg.log(2 * q.scale) + mean_abs / q.scale


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Pareto, q: Exponential) -> Tensor:
    result = -p.entropy() + _cross_exponential(p.mean, q)
    return gg.where(p.alpha <= 1, math.inf, result)  # infinite mean


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p: Pareto, q: Gamma) -> Tensor:
    result = -p.entropy() + _cross_gamma(p.mean, p.scale.log() + p.alpha.reciprocal(), q)
    return gg.where(p.alpha <= 1, math.inf, result)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p: Pareto, q: Normal) -> Tensor:
    result = -p.entropy() + _cross_normal(p.mean, p.variance, q)
    return gg.where(p.alpha <= 2, math.inf, result)  # infinite variance


def _outside_unit_interval(p: Uniform, q: Distribution) -> Tensor:
    return (p.high > q.support.upper_bound) | (p.low < q.support.lower_bound)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Uniform, q: Beta) -> Tensor:
    mean_log_1m = (gg.xlogy(1 - p.low, 1 - p.low) - gg.xlogy(1 - p.high, 1 - p.high)) / (p.high - p.low) - 1
    a, b = q.concentration1, q.concentration0
    log_beta = a.lgamma() + b.lgamma() - (a + b).lgamma()
    result = -p.entropy() - (a - 1) * _uniform_mean_log(p) - (b - 1) * mean_log_1m + log_beta
    return gg.where(_outside_unit_interval(p, q), math.inf, result)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p: Uniform, q: ContinuousBernoulli) -> Tensor:
    result = -p.entropy() + _cross_continuous_bernoulli(p.mean, q)
    # as for (ContinuousBernoulli, Uniform), PyTorch 2.13 counts touching the bounds as outside
    touching = gg.ge(p.high, q.support.upper_bound) | gg.le(p.low, q.support.lower_bound)
    return gg.where(touching, math.inf, result)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponetial(p: Uniform, q: Exponential) -> Tensor:
    result = -p.entropy() + _cross_exponential(p.mean, q)
    return gg.where(p.low < q.support.lower_bound, math.inf, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p: Uniform, q: Gamma) -> Tensor:
    result = -p.entropy() + _cross_gamma(p.mean, _uniform_mean_log(p), q)
    return gg.where(p.low < q.support.lower_bound, math.inf, result)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Uniform, q: Gumbel) -> Tensor:
    mean_exp = q.scale * (gg.exp(-p.low / q.scale) - gg.exp(-p.high / q.scale)) / (p.high - p.low)
    return -p.entropy() + _cross_gumbel(p.mean, mean_exp, q)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Tensor:
    return -p.entropy() + _cross_normal(p.mean, p.variance, q)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p: Uniform, q: Pareto) -> Tensor:
    result = -p.entropy() - q.alpha.log() - q.alpha * q.scale.log() + (q.alpha + 1) * _uniform_mean_log(p)
    return gg.where(p.low < q.support.lower_bound, math.inf, result)


# -- support mismatches: p puts mass where q has none --------------------------------------------------------------


def _infinity(parameter: str) -> KLFunction:
    return lambda p, q: _infinite_like(getattr(p, parameter))


_UNBOUNDED_BELOW = (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform)  # q's with bounded supports
_INFINITE = {
    (Beta, Pareto): "concentration1", (ContinuousBernoulli, Pareto): "probs", (Poisson, Bernoulli): "rate",
    (Poisson, Binomial): "rate",
    **{(Exponential, q): "rate" for q in (Beta, ContinuousBernoulli, Pareto, Uniform)},
    **{(Gamma, q): "concentration" for q in (Beta, ContinuousBernoulli, Pareto, Uniform)},
    **{(p, q): "loc" for p in (Gumbel, Laplace, Normal) for q in _UNBOUNDED_BELOW},
    **{(Pareto, q): "scale" for q in (Beta, ContinuousBernoulli, Uniform)},
}
for (_p, _q), _parameter in _INFINITE.items():
    register_kl(_p, _q)(_infinity(_parameter))
