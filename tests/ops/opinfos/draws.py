"""OpInfos of the sampling functions that make a new tensor (glassgrad/ops/draws.py): normal, bernoulli,
poisson, multinomial. glassgrad's stream is its own, so only shapes, dtypes and errors are compared here; the
gradients (zeros, or a node that refuses) and the statistics are in tests/ops/test_draws.py."""

from __future__ import annotations

from ..opinfo import Domain, OpInfo, unary

_RANDOM = {"order": 0, "values": False}
_PROBS = Domain(0.0, 1.0)

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
]
