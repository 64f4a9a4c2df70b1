"""OpInfos of the sampling functions that make a new tensor (glassgrad/ops/draws.py): normal, bernoulli,
poisson, multinomial, binomial, and torch.distributions' private samplers _standard_gamma and _sample_dirichlet.
glassgrad's stream is its own, so only shapes, dtypes and errors are compared here; the gradients (zeros, or a
node that refuses) and the statistics are in tests/ops/test_draws.py.

The samplers' reparameterization gradients, _standard_gamma_grad and _dirichlet_grad, are deterministic and are
compared by value, to PyTorch's accuracy: glassgrad takes the derivative of the incomplete gamma / beta function
by a central difference (about 8 digits; mpmath agrees), PyTorch approximates it by series and asymptotic
expansions that are off by up to ~6e-4 (gamma) and ~1.5e-3 (Dirichlet) relative over these domains, e.g.
_standard_gamma_grad(1, 1) = 1.1735630 exactly, 1.1736210 in PyTorch."""

from __future__ import annotations

from hypothesis.extra import numpy as hnp

from ..opinfo import Domain, OpInfo, unary

_RANDOM = {"order": 0, "values": False}
_PROBS = Domain(0.0, 1.0)
_CONCENTRATIONS = Domain(0.1, 5.0)
_REPARAMETERIZED = {"order": 0, "rtol": 5e-3, "atol": 1e-6}  # see the module's docstring
_alike3 = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4).map(lambda s: (s, s, s))

OPS = [
    OpInfo("glassgrad.normal", lambda m, x: m.normal(x), **_RANDOM,
           errors=(lambda m: m.normal(0.0, 1.0), lambda m: m.normal(m.zeros(2), -1.0), lambda m: m.normal(m.arange(2), 1.0),
                   lambda m: m.normal(m.zeros(2), m.tensor([1.0, -1.0])), lambda m: m.normal(m.zeros(2, 3), m.ones(3, 2)))),
    OpInfo("glassgrad.normal", lambda m, x: m.normal(2.0, x.abs()), id="normal_float_mean", **_RANDOM),
    OpInfo("glassgrad.normal", lambda m, x: m.normal(x, x.abs() + 1), id="normal_tensor_tensor", **_RANDOM),
    OpInfo("glassgrad.normal", lambda m, x: m.normal(0.5, 2.0, x.shape, dtype=m.float64), id="normal_size", **_RANDOM),
    OpInfo("glassgrad.bernoulli", lambda m, x: m.bernoulli(x), domains=_PROBS, also=("Tensor.bernoulli",), **_RANDOM,
           errors=(lambda m: m.bernoulli(m.tensor([1.5])), lambda m: m.bernoulli(m.zeros(2), 1.5),
                   lambda m: m.bernoulli(m.tensor([1, 0])))),
    OpInfo("glassgrad.bernoulli", lambda m, x: x.bernoulli(0.3), id="bernoulli_p", **_RANDOM),
    OpInfo("glassgrad.poisson", lambda m, x: m.poisson(x), domains=Domain(0.0, 20.0), **_RANDOM,
           errors=(lambda m: m.poisson(m.tensor([1, 2])), lambda m: m.poisson(m.tensor([-1.0])),
                   lambda m: m.poisson(m.tensor([float("nan")])))),
    OpInfo("glassgrad.multinomial", lambda m, x: m.multinomial(x + 0.1, 2, replacement=True), domains=_PROBS,
           shapes=unary(min_dims=1, max_dims=2, min_side=1), also=("Tensor.multinomial",), **_RANDOM,
           errors=(lambda m: m.multinomial(m.tensor([-1.0, 1.0]), 1), lambda m: m.multinomial(m.zeros(2), 1),
                   lambda m: m.multinomial(m.tensor([1, 2]), 1), lambda m: m.multinomial(m.ones(2, 2, 2), 1),
                   lambda m: m.multinomial(m.ones(2), 0), lambda m: m.multinomial(m.ones(2), 3),
                   lambda m: m.multinomial(m.tensor([1.0, float("nan")]), 1))),
    OpInfo("glassgrad.multinomial", lambda m, x: x.multinomial(x.shape[-1]), domains=Domain(0.5, 1.0),
           shapes=unary(min_dims=1, max_dims=2, min_side=1), id="multinomial_without_replacement", **_RANDOM),
    # count and prob of one shape, as torch.distributions.Binomial passes them: PyTorch broadcasts others only by
    # resizing its output like count's, with a deprecation warning
    OpInfo("glassgrad.binomial", lambda m, c, p: m.binomial(c.floor(), p), shapes=_alike3.map(lambda s: s[:2]),
           domains=(Domain(0.0, 20.0), _PROBS), **_RANDOM,
           errors=(lambda m: m.binomial(m.tensor([2, 3]), m.tensor([0.5, 0.5])),
                   lambda m: m.binomial(m.tensor([2.0, 3.0]), m.tensor([1, 0])))),
    # torch.distributions' samplers (Gamma, Chi2, Beta, Dirichlet): private, but functions of torch's namespace
    OpInfo("glassgrad._standard_gamma", lambda m, x: m._standard_gamma(x), domains=_CONCENTRATIONS, **_RANDOM,
           errors=(lambda m: m._standard_gamma(m.tensor([1, 2])),)),
    OpInfo("glassgrad._standard_gamma", lambda m, x: m._standard_gamma(x.float()), domains=_CONCENTRATIONS,
           id="standard_gamma_float32", **_RANDOM),
    OpInfo("glassgrad._sample_dirichlet", lambda m, x: m._sample_dirichlet(x), domains=_CONCENTRATIONS,
           shapes=unary(min_dims=1, max_dims=3, min_side=1), **_RANDOM,
           errors=(lambda m: m._sample_dirichlet(m.tensor([1, 2])),)),
    OpInfo("glassgrad._standard_gamma_grad", lambda m, a, x: m._standard_gamma_grad(a, x), shapes=_alike3.map(lambda s: s[:2]),
           domains=(Domain(0.5, 5.0), Domain(0.1, 5.0)), **_REPARAMETERIZED),
    OpInfo("glassgrad._dirichlet_grad", lambda m, x, a, b: m._dirichlet_grad(x, a, a + b), shapes=_alike3,
           domains=(Domain(0.05, 0.95), Domain(0.5, 5.0), Domain(0.5, 5.0)), **_REPARAMETERIZED),
]
