"""One constructor per distribution case, written once for both libraries: `CASES[name](m)` builds the case with
module `m` (torch or glassgrad), parameters in float64 that require grad where PyTorch differentiates them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_leaves: list[Any] = []  # the parameters the case being built made, in order


def p(m: Any, values: Any, grad: bool = True, dtype: str = "float64") -> Any:
    """A parameter tensor of module m (kept in the build's leaves when it requires grad)."""
    t = m.tensor(values, dtype=getattr(m, dtype), requires_grad=grad)
    if grad:
        _leaves.append(t)
    return t


def build(name: str, m: Any) -> tuple[Any, list[Any]]:
    """The case's distribution in module m, and the parameters that require grad."""
    _leaves.clear()
    dist = CASES[name](m)
    return dist, list(_leaves)


def _lower(m: Any) -> Any:
    return p(m, [[1.5, 0.0, 0.0], [0.3, 0.8, 0.0], [-0.4, 0.2, 1.1]])


def _cov(m: Any) -> Any:
    return p(m, [[2.0, 0.3, -0.2], [0.3, 1.0, 0.1], [-0.2, 0.1, 1.5]])


D = Any
CASES: dict[str, Callable[[Any], D]] = {
    "bernoulli_probs": lambda m: m.distributions.Bernoulli(probs=p(m, [0.1, 0.5, 0.8])),
    "bernoulli_logits": lambda m: m.distributions.Bernoulli(logits=p(m, [-1.0, 0.0, 2.0])),
    "beta": lambda m: m.distributions.Beta(p(m, [0.5, 2.0, 3.0]), p(m, [1.5, 0.7, 3.0])),
    "binomial": lambda m: m.distributions.Binomial(p(m, [5.0, 5.0, 5.0], grad=False), p(m, [0.2, 0.5, 0.9])),
    "categorical_probs": lambda m: m.distributions.Categorical(probs=p(m, [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
    "categorical_logits": lambda m: m.distributions.Categorical(logits=p(m, [[1.0, -1.0, 0.5], [0.0, 2.0, -3.0]])),
    "cauchy": lambda m: m.distributions.Cauchy(p(m, [0.0, 1.0, -2.0]), p(m, [1.0, 0.5, 2.0])),
    "chi2": lambda m: m.distributions.Chi2(p(m, [1.0, 3.0, 7.5])),
    "continuous_bernoulli": lambda m: m.distributions.ContinuousBernoulli(probs=p(m, [0.2, 0.5, 0.7])),
    "dirichlet": lambda m: m.distributions.Dirichlet(p(m, [[0.5, 1.0, 2.0], [3.0, 1.5, 0.8]])),
    "exponential": lambda m: m.distributions.Exponential(p(m, [0.5, 1.0, 3.0])),
    "fisher_snedecor": lambda m: m.distributions.FisherSnedecor(p(m, [3.0, 5.0, 10.0]), p(m, [5.0, 7.0, 12.0])),
    "gamma": lambda m: m.distributions.Gamma(p(m, [0.5, 2.0, 5.0]), p(m, [1.0, 0.5, 3.0])),
    # in float32: PyTorch 2.13's GeneralizedPareto.log_prob compares with a float32 zero and fails in float64
    "generalized_pareto": lambda m: m.distributions.GeneralizedPareto(
        p(m, [0.0, 1.0, 0.5], dtype="float32"), p(m, [1.0, 2.0, 0.5], dtype="float32"),
        p(m, [0.2, -0.1, 0.3], dtype="float32"),
    ),
    "geometric": lambda m: m.distributions.Geometric(p(m, [0.2, 0.5, 0.9])),
    "gumbel": lambda m: m.distributions.Gumbel(p(m, [0.0, 1.0, -1.0]), p(m, [1.0, 2.0, 0.5])),
    "half_cauchy": lambda m: m.distributions.HalfCauchy(p(m, [1.0, 0.5, 2.0])),
    "half_normal": lambda m: m.distributions.HalfNormal(p(m, [1.0, 0.5, 2.0])),
    "independent_normal": lambda m: m.distributions.Independent(
        m.distributions.Normal(p(m, [[0.0, 1.0], [2.0, -1.0]]), p(m, [[1.0, 0.5], [2.0, 1.5]])), 1
    ),
    "inverse_gamma": lambda m: m.distributions.InverseGamma(p(m, [2.5, 3.0, 4.0]), p(m, [1.0, 0.5, 2.0])),
    "kumaraswamy": lambda m: m.distributions.Kumaraswamy(p(m, [1.2, 1.9, 1.5]), p(m, [1.7, 1.1, 1.3])),
    "laplace": lambda m: m.distributions.Laplace(p(m, [0.0, 1.0, -2.0]), p(m, [1.0, 0.5, 2.0])),
    "lkj_cholesky": lambda m: m.distributions.LKJCholesky(3, p(m, [0.5, 1.0, 2.0])),
    "log_normal": lambda m: m.distributions.LogNormal(p(m, [0.0, 0.5, -1.0]), p(m, [1.0, 0.5, 0.25])),
    "logistic_normal": lambda m: m.distributions.LogisticNormal(p(m, [0.0, 0.5, -1.0]), p(m, [1.0, 0.5, 0.25])),
    "lowrank_mvn": lambda m: m.distributions.LowRankMultivariateNormal(
        p(m, [0.0, 1.0, -1.0]), p(m, [[1.0, 0.5], [0.2, -0.3], [0.4, 1.0]]), p(m, [0.5, 1.0, 2.0])
    ),
    "mixture": lambda m: m.distributions.MixtureSameFamily(
        m.distributions.Categorical(probs=p(m, [0.3, 0.7])),
        m.distributions.Normal(p(m, [-1.0, 2.0]), p(m, [0.5, 1.5])),
    ),
    "multinomial": lambda m: m.distributions.Multinomial(4, probs=p(m, [0.2, 0.3, 0.5])),
    "mvn_cov": lambda m: m.distributions.MultivariateNormal(p(m, [0.0, 1.0, -1.0]), covariance_matrix=_cov(m)),
    "mvn_tril": lambda m: m.distributions.MultivariateNormal(p(m, [0.0, 1.0, -1.0]), scale_tril=_lower(m)),
    "mvn_precision": lambda m: m.distributions.MultivariateNormal(p(m, [0.0, 1.0, -1.0]), precision_matrix=_cov(m)),
    "negative_binomial": lambda m: m.distributions.NegativeBinomial(p(m, [3.0, 5.0, 2.0]), p(m, [0.2, 0.5, 0.7])),
    "normal": lambda m: m.distributions.Normal(p(m, [0.0, 1.0, -2.0]), p(m, [1.0, 0.5, 2.0])),
    "one_hot_categorical": lambda m: m.distributions.OneHotCategorical(probs=p(m, [0.2, 0.3, 0.5])),
    "pareto": lambda m: m.distributions.Pareto(p(m, [1.0, 2.0, 0.5]), p(m, [2.5, 3.0, 4.0])),
    "poisson": lambda m: m.distributions.Poisson(p(m, [0.5, 2.0, 7.0])),
    "relaxed_bernoulli": lambda m: m.distributions.RelaxedBernoulli(p(m, 0.7, grad=False), probs=p(m, [0.2, 0.6])),
    "relaxed_one_hot": lambda m: m.distributions.RelaxedOneHotCategorical(
        p(m, 0.5, grad=False), probs=p(m, [0.2, 0.3, 0.5])
    ),
    "student_t": lambda m: m.distributions.StudentT(
        p(m, [3.0, 5.0, 10.0]), p(m, [0.0, 1.0, -1.0]), p(m, [1.0, 2.0, 0.5])
    ),
    "uniform": lambda m: m.distributions.Uniform(p(m, [0.0, -1.0, 2.0]), p(m, [1.0, 3.0, 2.5])),
    "von_mises": lambda m: m.distributions.VonMises(p(m, [0.0, 1.0, -2.0]), p(m, [0.5, 2.0, 8.0])),
    "weibull": lambda m: m.distributions.Weibull(p(m, [1.0, 2.0, 0.5]), p(m, [1.5, 0.8, 3.0])),
    "wishart": lambda m: m.distributions.Wishart(p(m, 6.5), covariance_matrix=_cov(m)),
}
