"""OpInfos of the in-place random fills (glassgrad/ops/sampling.py): shapes and dtypes only, as glassgrad's
streams need not match PyTorch's; each fills a clone (a non-leaf, so the fill records its zero-gradient node).
Distributions, ranges, argument checks and the in-place rules are in test_random_fills.py."""

from __future__ import annotations

from typing import Any

from ..opinfo import OpInfo

_RANDOM = {"order": 0, "values": False}


def _filled(method: str, *args: Any, **kwargs: Any) -> Any:
    def fn(m: Any, x: Any) -> Any:
        y = x.clone()
        getattr(y, method)(*args, **kwargs)
        return y

    return fn


OPS = [
    OpInfo("Tensor.uniform_", _filled("uniform_", -1.0, 2.0), **_RANDOM, errors=(lambda m: m.zeros(2).uniform_(2, 1),)),
    OpInfo("Tensor.normal_", _filled("normal_", 1.0, 0.5), **_RANDOM, errors=(lambda m: m.zeros(2).normal_(0, -1),)),
    OpInfo("Tensor.bernoulli_", _filled("bernoulli_", 0.3), **_RANDOM, errors=(lambda m: m.zeros(2).bernoulli_(1.5),)),
    OpInfo("Tensor.exponential_", _filled("exponential_", 2.0), **_RANDOM, errors=(lambda m: m.zeros(2).exponential_(0),)),
    OpInfo("Tensor.random_", _filled("random_", 3, 10), **_RANDOM, errors=(lambda m: m.zeros(2).random_(10, 3),)),
    OpInfo("Tensor.geometric_", _filled("geometric_", 0.4), **_RANDOM, errors=(lambda m: m.zeros(2).geometric_(1),)),
    OpInfo("Tensor.log_normal_", _filled("log_normal_"), **_RANDOM, errors=(lambda m: m.zeros(2).log_normal_(1, 0),)),
    OpInfo("Tensor.cauchy_", _filled("cauchy_"), **_RANDOM, errors=(lambda m: m.zeros(2, dtype=m.int64).cauchy_(),)),
    OpInfo("glassgrad.randint_like", lambda m, x: m.randint_like(x, 5), **_RANDOM,
           errors=(lambda m: m.randint_like(m.ones(2), 5, 3), lambda m: m.randint_like(m.ones(2), 1.5),
                   lambda m: m.randint_like(m.ones(2, dtype=m.bool), 5), lambda m: m.randint_like(m.ones(2, dtype=m.uint8), 300),
                   lambda m: m.randint_like(m.ones(2, dtype=m.complex64), 5))),
    OpInfo("glassgrad.randint_like", lambda m, x: m.randint_like(x, -3, 4, dtype=m.int32, requires_grad=False), **_RANDOM,
           id="randint_like_low_high"),
]
