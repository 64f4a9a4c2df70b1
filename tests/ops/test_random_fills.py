"""The in-place random fills: which calls PyTorch 2.13 accepts (per dtype, per argument form), what they do to
autograd (versions, leaf errors, zero gradients, CopySlices), and the distributions they draw, checked against
their moments with fixed seeds. Streams are glassgrad's own, so values are compared statistically."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from .outcome import Call, assert_same_outcome

pytestmark = pytest.mark.torch_oracle

Fill = Callable[[Any, Any], Any]  # fill(t, m) fills t in place

FORMS: dict[str, Fill] = {
    "uniform": lambda t, m: t.uniform_(), "uniform_reversed": lambda t, m: t.uniform_(2, 1),
    "uniform_empty_range": lambda t, m: t.uniform_(1, 1), "uniform_keywords": lambda t, m: t.uniform_(**{"from": 2, "to": 3}),
    "normal": lambda t, m: t.normal_(), "normal_negative_std": lambda t, m: t.normal_(0, -1), "normal_zero_std": lambda t, m: t.normal_(0, 0),
    "bernoulli": lambda t, m: t.bernoulli_(), "bernoulli_p": lambda t, m: t.bernoulli_(0.3), "bernoulli_p_too_big": lambda t, m: t.bernoulli_(1.5),
    "bernoulli_tensor_p": lambda t, m: t.bernoulli_(m.full((4,), 0.5)), "bernoulli_broadcast_p": lambda t, m: t.bernoulli_(m.full((1,), 0.5)),
    "bernoulli_p_wrong_shape": lambda t, m: t.bernoulli_(m.full((3,), 0.5)),
    "bernoulli_p_out_of_range": lambda t, m: t.bernoulli_(m.full((4,), 1.5)),
    "bernoulli_integer_p": lambda t, m: t.bernoulli_(m.ones(4, dtype=m.int64)),
    "exponential": lambda t, m: t.exponential_(), "exponential_zero_rate": lambda t, m: t.exponential_(0),
    "exponential_negative_rate": lambda t, m: t.exponential_(-1),
    "random": lambda t, m: t.random_(), "random_to": lambda t, m: t.random_(10), "random_from_to": lambda t, m: t.random_(3, 10),
    "random_negative_from": lambda t, m: t.random_(-3, 10), "random_to_top": lambda t, m: t.random_(3, None),
    "random_reversed": lambda t, m: t.random_(10, 3), "random_to_zero": lambda t, m: t.random_(0),
    "random_to_keyword": lambda t, m: t.random_(to=5), "random_keywords": lambda t, m: t.random_(**{"from": 2, "to": 5}),
    "random_300": lambda t, m: t.random_(300), "random_huge": lambda t, m: t.random_(2**40),
    "geometric": lambda t, m: t.geometric_(0.3), "geometric_zero": lambda t, m: t.geometric_(0),
    "geometric_one": lambda t, m: t.geometric_(1), "geometric_no_p": lambda t, m: t.geometric_(),
    "log_normal": lambda t, m: t.log_normal_(), "log_normal_zero_std": lambda t, m: t.log_normal_(1, 0),
    "log_normal_negative_std": lambda t, m: t.log_normal_(1, -1),
    "cauchy": lambda t, m: t.cauchy_(), "cauchy_negative_sigma": lambda t, m: t.cauchy_(0, -1), "cauchy_zero_sigma": lambda t, m: t.cauchy_(0, 0),
}
DTYPES = ["float32", "float16", "float64", "int64", "int32", "int16", "int8", "uint8", "bool"]


def _meta(t: Any) -> Any:
    """What a fill must match: the tensor itself back, its dtype and shape, one version bump (values are random)."""
    return str(t.dtype).rpartition(".")[2], tuple(t.shape), t._version, t.requires_grad


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
def test_accepts_and_rejects_like_torch(form: Fill, dtype: str) -> None:
    assert_same_outcome(lambda m: _meta(form(m.zeros(4, dtype=getattr(m, dtype)), m)))


AUTOGRAD_FORMS: dict[str, Fill] = {
    "uniform_": lambda t, m: t.uniform_(), "normal_": lambda t, m: t.normal_(), "bernoulli_": lambda t, m: t.bernoulli_(),
    "bernoulli_tensor_p": lambda t, m: t.bernoulli_(m.full(t.shape, 0.5, requires_grad=True)),
    "exponential_": lambda t, m: t.exponential_(), "random_": lambda t, m: t.random_(), "random_to": lambda t, m: t.random_(5),
    "random_from_to": lambda t, m: t.random_(1, 5), "geometric_": lambda t, m: t.geometric_(0.5),
    "log_normal_": lambda t, m: t.log_normal_(), "cauchy_": lambda t, m: t.cauchy_(),
}


def _node(t: Any) -> str | None:
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def _on_non_leaf(m: Any, fill: Fill) -> Any:
    x = m.ones(3, requires_grad=True)
    y = x * 2
    returned = fill(y, m)
    seen = returned is y, _node(y), y._version
    y.sum().backward()
    return seen, x.grad


def _on_view_of_non_leaf(m: Any, fill: Fill) -> Any:
    x = m.ones(3, requires_grad=True)
    z = x * 2
    fill(z[:2], m)
    seen = _node(z), z._version
    z.sum().backward()
    return seen, x.grad


def _on_leaf_without_grad_mode(m: Any, fill: Fill) -> Any:
    x = m.ones(3, requires_grad=True)
    with m.no_grad():
        fill(x, m)
    return x.requires_grad, x.is_leaf, x._version


def _p_gets_zero_gradient(m: Any) -> Any:
    p = m.full((3,), 0.5, requires_grad=True)
    y = m.ones(3, requires_grad=True) * 2
    y.bernoulli_(p)
    y.sum().backward()
    return p.grad


SITUATIONS: dict[str, Callable[[Any, Fill], Any]] = {
    "leaf_in_grad_mode": lambda m, fill: fill(m.ones(3, requires_grad=True), m),
    "leaf_under_no_grad": _on_leaf_without_grad_mode,
    "non_leaf": _on_non_leaf,
    "view_of_leaf": lambda m, fill: fill(m.ones(3, requires_grad=True)[:2], m),
    "view_of_non_leaf": _on_view_of_non_leaf,
    "expanded": lambda m, fill: fill(m.zeros(1).expand(3), m),
}


@pytest.mark.parametrize("situation", SITUATIONS.values(), ids=SITUATIONS.keys())
@pytest.mark.parametrize("fill", AUTOGRAD_FORMS.values(), ids=AUTOGRAD_FORMS.keys())
def test_in_place_rules_match_torch(fill: Fill, situation: Callable[[Any, Fill], Any]) -> None:
    assert_same_outcome(lambda m: situation(m, fill))


ARGUMENTS: dict[str, Call] = {
    "bernoulli_p_gets_zero_gradient": _p_gets_zero_gradient,
    "generator_keyword": lambda m: _meta(m.zeros(3).uniform_(0, 1, generator=m.Generator().manual_seed(0))),
    "normal_keywords": lambda m: _meta(m.zeros(3).normal_(mean=1, std=2, generator=m.Generator())),
    "uniform_unknown_keywords": lambda m: m.zeros(3).uniform_(a=2, b=3),
    "uniform_string": lambda m: m.zeros(3).uniform_("a"),
    "uniform_nan": lambda m: m.zeros(3).uniform_(float("nan"), 1),
    "uniform_inf": lambda m: m.zeros(3).uniform_(0, float("inf")),
    "uniform_range_too_wide": lambda m: m.zeros(3).uniform_(-3e38, 3e38),
    "uniform_half_out_of_range": lambda m: m.zeros(3, dtype=m.float16).uniform_(-1e5, 1),
    "exponential_keyword": lambda m: _meta(m.zeros(3).exponential_(lambd=2.0)),
    "exponential_infinite_rate": lambda m: m.zeros(3).exponential_(float("inf")),
    "bernoulli_keyword": lambda m: _meta(m.zeros(3).bernoulli_(p=0.5)),
    "bernoulli_int_p": lambda m: _meta(m.zeros(3).bernoulli_(1)),
    "geometric_keywords": lambda m: _meta(m.zeros(3).geometric_(p=0.5, generator=m.Generator())),
    "geometric_nan": lambda m: m.zeros(3).geometric_(float("nan")),
    "log_normal_keywords": lambda m: _meta(m.zeros(3).log_normal_(mean=1, std=2)),
    "cauchy_keywords": lambda m: _meta(m.zeros(3).cauchy_(median=1, sigma=2)),
    "normal_tensor_mean": lambda m: _meta(m.zeros(3).normal_(m.tensor(1.0), 2)),
    "normal_infinite_std": lambda m: _meta(m.zeros(3).normal_(0, float("inf"))),
    "random_generator": lambda m: _meta(m.zeros(3).random_(1, 5, generator=m.Generator())),
    "random_bad_generator": lambda m: m.zeros(3).random_(generator=5),
    "random_float": lambda m: m.zeros(3).random_(2.5),
    "random_float_from": lambda m: m.zeros(3).random_(1.5, 3),
    "random_from_keyword_alone": lambda m: m.zeros(3).random_(**{"from": 1}),
    "random_three_arguments": lambda m: m.zeros(3).random_(1, 2, 3),
    "random_beyond_int64": lambda m: m.zeros(3, dtype=m.int64).random_(2**63),
    "random_double_huge": lambda m: _meta(m.zeros(3, dtype=m.float64).random_(2**60)),
    "random_float_below_precision": lambda m: _meta(m.zeros(3).random_(-(2**30), 0)),
    "random_float_from_above_top": lambda m: _meta(m.zeros(3).random_(2**30, None)),
    "random_float_from_at_top": lambda m: _meta(m.zeros(3).random_(2**24, None)),
    "random_float_from_below_top": lambda m: _meta(m.zeros(3).random_(2**24 - 1, None)),
    "random_long_from_lowest": lambda m: _meta(m.zeros(3, dtype=m.int64).random_(-(2**63), None)),
    "empty_still_checked": lambda m: m.zeros(0).uniform_(2, 1),
    "empty_random_still_checked": lambda m: m.zeros(0).random_(10, 3),
    "zero_dim": lambda m: _meta(m.tensor(0.0).random_(3)),
}


@pytest.mark.parametrize("call", ARGUMENTS.values(), ids=ARGUMENTS.keys())
def test_arguments_like_torch(call: Call) -> None:
    assert_same_outcome(call)


# -- distributions: moments against theory, for glassgrad and (as a check on the parametrisation) for torch --------
N = 200_000


def _moments(mean: float, var: float) -> Callable[[np.ndarray], None]:
    def check(x: np.ndarray) -> None:
        se = math.sqrt(var / N)
        assert abs(x.mean() - mean) < 6 * se, (x.mean(), mean)
        # the variance's standard error, for distributions with a finite fourth moment of the order of var**2
        assert abs(x.var() - var) < 0.05 * var, (x.var(), var)

    return check


def _support(low: float, high: float, integral: bool = False) -> Callable[[np.ndarray], None]:
    def check(x: np.ndarray) -> None:
        assert x.min() >= low and x.max() <= high
        if integral:
            assert np.array_equal(x, np.round(x))
            assert set(np.unique(x)) == set(range(int(low), int(high) + 1))  # every value is drawn

    return check


def _cauchy_quartiles(median: float, sigma: float) -> Callable[[np.ndarray], None]:
    def check(x: np.ndarray) -> None:  # no moments: its quartiles are median -+ sigma
        q1, q2, q3 = np.quantile(x, [0.25, 0.5, 0.75])
        assert abs(q2 - median) < 0.02 * sigma and abs(q1 - (median - sigma)) < 0.02 * sigma
        assert abs(q3 - (median + sigma)) < 0.02 * sigma

    return check


_LN_MEAN, _LN_STD = 0.5, 0.4
DISTRIBUTIONS: dict[str, tuple[Fill, list[Callable[[np.ndarray], None]]]] = {
    "uniform": (lambda t, m: t.uniform_(-1.0, 3.0), [_moments(1.0, 16 / 12), _support(-1.0, 3.0)]),
    "normal": (lambda t, m: t.normal_(2.0, 0.5), [_moments(2.0, 0.25)]),
    "bernoulli": (lambda t, m: t.bernoulli_(0.3), [_moments(0.3, 0.21), _support(0, 1, integral=True)]),
    "bernoulli_tensor_p": (lambda t, m: t.bernoulli_(m.full((N,), 0.8, dtype=m.float64)), [_moments(0.8, 0.16)]),
    "exponential": (lambda t, m: t.exponential_(4.0), [_moments(0.25, 1 / 16), _support(0.0, np.inf)]),
    "random_from_to": (lambda t, m: t.random_(3, 10), [_moments(6.0, (7**2 - 1) / 12), _support(3, 9, integral=True)]),
    "random_to": (lambda t, m: t.random_(5), [_support(0, 4, integral=True)]),
    "geometric": (lambda t, m: t.geometric_(0.25), [_moments(4.0, 0.75 / 0.0625), _support(1, np.inf)]),
    "log_normal": (lambda t, m: t.log_normal_(_LN_MEAN, _LN_STD),
                   [_moments(math.exp(_LN_MEAN + _LN_STD**2 / 2), (math.exp(_LN_STD**2) - 1) * math.exp(2 * _LN_MEAN + _LN_STD**2)),
                    _support(0.0, np.inf)]),
    "cauchy": (lambda t, m: t.cauchy_(1.0, 2.0), [_cauchy_quartiles(1.0, 2.0)]),
}


@pytest.mark.parametrize("m", [torch, glassgrad], ids=["torch", "glassgrad"])
@pytest.mark.parametrize(("fill", "checks"), DISTRIBUTIONS.values(), ids=DISTRIBUTIONS.keys())
def test_distribution(m: Any, fill: Fill, checks: list[Callable[[np.ndarray], None]]) -> None:
    m.manual_seed(0)
    t = m.zeros(N, dtype=m.float64)
    fill(t, m)
    for check in checks:
        check(t.numpy())


@pytest.mark.parametrize(("dtype", "top"), [("float16", 2**11), ("float32", 2**24), ("int8", 127), ("uint8", 255), ("bool", 1)])
def test_random_without_bounds_covers_the_dtype(dtype: str, top: int) -> None:
    """random_() draws from [0, top]: 2**mantissa digits for floats, the largest value for integers (torch agrees)."""
    for m in (torch, glassgrad):
        m.manual_seed(1)
        values = m.zeros(20_000, dtype=getattr(m, dtype)).random_().double().numpy()
        assert values.min() >= 0 and values.max() <= top
        assert values.max() > 0.95 * top


def test_generator_makes_fills_reproducible_and_leaves_the_default_stream_alone() -> None:
    glassgrad.manual_seed(5)
    expected_default = glassgrad.rand(4)
    glassgrad.manual_seed(5)
    first = glassgrad.zeros(6).normal_(generator=glassgrad.Generator().manual_seed(9))
    second = glassgrad.zeros(6).normal_(generator=glassgrad.Generator().manual_seed(9))
    assert first.tolist() == second.tolist()
    assert glassgrad.rand(4).tolist() == expected_default.tolist()  # the default stream did not move


def test_default_generator_is_seeded_by_manual_seed() -> None:
    draws = []
    for _ in range(2):
        glassgrad.manual_seed(11)
        t = glassgrad.zeros(5)
        draws.append([t.uniform_().tolist(), t.random_(100).tolist(), t.bernoulli_(0.5).tolist(), t.cauchy_().tolist()])
    assert draws[0] == draws[1]
    glassgrad.manual_seed(12)
    assert glassgrad.zeros(5).uniform_().tolist() != draws[0][0]


def test_nn_init_fills_through_the_tensor_methods() -> None:
    """nn.init.uniform_ is Tensor.uniform_ under no_grad: the same stream, one version bump, no graph."""
    w = glassgrad.zeros(3, 4, requires_grad=True)
    glassgrad.nn.init.uniform_(w, -2.0, 2.0, generator=glassgrad.Generator().manual_seed(3))
    expected = glassgrad.zeros(3, 4).uniform_(-2.0, 2.0, generator=glassgrad.Generator().manual_seed(3))
    assert w.tolist() == expected.tolist() and w._version == 1 and w.is_leaf
