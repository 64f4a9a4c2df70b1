"""Elementwise gradients at the awkward points the property tests keep away from (kinks, ties, bounds, zeros).

OpInfo draws stay 0.02 away from kinks so that finite differences hold; here the exact points are
checked against PyTorch's one-sided choices, first and second derivatives.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

NAN, INF = math.nan, math.inf
Case = tuple[Callable[..., Any], list[list[float]]]

CASES: dict[str, Case] = {
    "abs_at_zero": (lambda m, x: m.abs(x), [[0.0, -0.0, 1.0]]),
    "sign_at_zero": (lambda m, x: m.sign(x), [[0.0, -1.0, 2.0]]),
    "sqrt_at_zero": (lambda m, x: m.sqrt(x), [[0.0, 4.0]]),
    "relu_at_zero": (lambda m, x: m.relu(x), [[0.0, -1.0, 1.0]]),
    "relu_nan_input_and_gradient": (  # a nan gradient stops at a dead unit; a nan input passes its gradient
        lambda m, x: m.relu(x) * m.tensor([NAN, 1.0, NAN, 1.0, 2.0], dtype=m.float64),
        [[-1.0, 0.0, 2.0, NAN, 3.0]],
    ),
    "pow_zero_base": (lambda m, x, e: m.pow(x, e), [[0.0, 0.0, 0.0, 2.0], [0.0, 2.0, -1.0, 0.0]]),
    "pow_zero_base_scalar_exponent": (lambda m, x: m.pow(x, 0.0) + m.pow(x, 2), [[0.0, 1.0]]),
    "pow_scalar_zero_base": (lambda m, e: m.pow(0.0, e), [[0.0, 1.0, 2.0]]),
    "round_floor_ceil_trunc": (lambda m, x: m.round(x) + m.floor(x) + m.ceil(x) + m.trunc(x), [[0.5, 1.0, -1.5]]),
    "clamp_at_bounds": (lambda m, x: m.clamp(x, -1.0, 1.0), [[-1.0, 1.0, 0.0, 2.0]]),
    "clamp_tensor_bounds": (
        lambda m, x, lo, hi: m.clamp(x, lo, hi),
        [[0.0, 1.0, 2.0, 0.5], [0.0, 1.0, 3.0, 0.0], [0.0, 2.0, 1.0, 0.5]],
    ),
    "clamp_tensor_min_only": (lambda m, x, lo: m.clamp(x, min=lo), [[0.0, 1.0, 2.0], [0.0, 2.0, 1.0]]),
    "clamp_tensor_max_only": (lambda m, x, hi: m.clamp(x, max=hi), [[0.0, 1.0, 2.0], [0.0, 2.0, 1.0]]),
    "maximum_ties_and_nan": (lambda m, a, b: m.maximum(a, b), [[1.0, 2.0, NAN, 1.0], [1.0, 1.0, 1.0, NAN]]),
    "minimum_ties_and_nan": (lambda m, a, b: m.minimum(a, b), [[1.0, 2.0, NAN, 1.0], [1.0, 1.0, 1.0, NAN]]),
    "fmax_ties_and_nan": (lambda m, a, b: m.fmax(a, b), [[1.0, 2.0, NAN, 1.0], [1.0, 1.0, 1.0, NAN]]),
    "fmin_ties_and_nan": (lambda m, a, b: m.fmin(a, b), [[1.0, 2.0, NAN, 1.0], [1.0, 1.0, 1.0, NAN]]),
    "logit_outside": (lambda m, x: m.logit(x), [[-0.5, 0.0, 0.5, 1.0, 1.5]]),
    "logit_eps_bounds": (lambda m, x: m.logit(x, eps=0.25), [[0.1, 0.25, 0.5, 0.75, 0.9]]),
    "xlogy_zero": (lambda m, x, y: m.xlogy(x, y), [[0.0, 0.0, 2.0, 0.0, 0.0], [0.0, 2.0, 0.0, NAN, -1.0]]),
    "xlogy_scalar_zero": (lambda m, x: m.xlogy(x, 0.0) + m.xlogy(x, 2.0), [[0.0, 1.0]]),
    "nan_to_num_special": (lambda m, x: m.nan_to_num(x * 2), [[NAN, INF, -INF, 1.0]]),
    "hypot_origin": (lambda m, a, b: m.hypot(a, b), [[0.0, 3.0], [0.0, 4.0]]),
    "remainder_by_tensor": (lambda m, a, b: m.remainder(a, b) + m.fmod(a, b), [[3.0, -3.0, 2.0], [2.0, 2.0, -1.5]]),
}


def _run(m: Any, fn: Callable[..., Any], values: list[list[float]]) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    xs = [m.tensor(v, dtype=m.float64, requires_grad=True) for v in values]
    out = fn(m, *xs)
    seed = m.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)), dtype=m.float64)
    first = m.autograd.grad(out, xs, seed, create_graph=True, allow_unused=True, materialize_grads=True)
    projection = sum((g * (i + 1.5)).sum() for i, g in enumerate(first) if g.requires_grad)
    if isinstance(projection, int):
        second = [np.zeros(len(v)) for v in values]
    else:
        second = [g.detach().numpy(force=True) for g in m.autograd.grad(projection, xs, allow_unused=True, materialize_grads=True)]
    return out.detach().numpy(), [g.detach().numpy(force=True) for g in first], second


@pytest.mark.parametrize("name", list(CASES))
def test_awkward_points_match_torch(name: str) -> None:
    fn, values = CASES[name]
    expected = _run(torch, fn, values)
    actual = _run(glassgrad, fn, values)
    np.testing.assert_allclose(actual[0], expected[0], equal_nan=True)
    for what, a, e in (("first", actual[1], expected[1]), ("second", actual[2], expected[2])):
        for i, (ai, ei) in enumerate(zip(a, e, strict=True)):
            np.testing.assert_allclose(ai, ei, rtol=1e-12, equal_nan=True, err_msg=f"{what} derivative of input {i}")


# Where PyTorch keeps the input on a tie whatever the tensor's length (its vectorized maximum does not), the sign
# of a zero must come out as PyTorch's: relu(-0.0) is -0.0. Lengths 3 and 37 cover NumPy's scalar and SIMD loops.
SIGNED_ZERO_CASES: dict[str, Callable[[Any, Any], Any]] = {
    "relu": lambda m, x: m.relu(x),
    "relu_inplace": lambda m, x: m.nn.functional.relu(x.clone(), inplace=True),
    "clamp_min": lambda m, x: m.clamp(x, min=0.0),
    "clamp_min_negative_zero": lambda m, x: m.clamp(x, min=-0.0),
    "clamp_max": lambda m, x: m.clamp(x, max=0.0),
    "clamp_max_negative_zero": lambda m, x: m.clamp(x, max=-0.0),
    "clamp_both": lambda m, x: m.clamp(x, 0.0, 0.0),
    "clamp_int_bound": lambda m, x: m.clamp(x, min=0),
    "hardtanh": lambda m, x: m.nn.functional.hardtanh(x, 0.0, 1.0),
    "relu6": lambda m, x: m.nn.functional.relu6(x),
    # out of their domain PyTorch's log and sqrt give an unsigned NaN; x86's default NaN (NumPy's) is negative
    **{name: (lambda m, x, name=name: getattr(m, name)(x)) for name in ("log", "log2", "log10", "sqrt")},
}


@pytest.mark.parametrize("name", list(SIGNED_ZERO_CASES))
@pytest.mark.parametrize("length", [3, 37])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_signed_zeros_match_torch(name: str, length: int, dtype: str) -> None:
    values = np.resize(np.array([-0.0, 0.0, -1.0, 2.0, NAN, -INF]), length)

    def run(m: Any) -> np.ndarray:
        return SIGNED_ZERO_CASES[name](m, m.tensor(values, dtype=getattr(m, dtype))).numpy()

    actual, expected = run(glassgrad), run(torch)
    # Values to one unit in the last place: PyTorch's vectorized float64 sqrt rounds sqrt(2) down on CPUs with
    # AVX-512 (NumPy's is correctly rounded); the signs, zeros' included, must match exactly.
    np.testing.assert_allclose(actual, expected, rtol=np.finfo(dtype).eps, atol=0)
    np.testing.assert_array_equal(np.signbit(actual), np.signbit(expected))


def test_where_broadcasts_all_three_arguments() -> None:
    def run(m: Any) -> list[np.ndarray]:
        cond = m.tensor([[True], [False]])
        a = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
        b = m.tensor(5.0, dtype=m.float64, requires_grad=True)
        out = m.where(cond, a * a, b * b)
        return [g.numpy() for g in m.autograd.grad(out.sum() * 1.0, [a, b])] + [out.detach().numpy()]

    for actual, expected in zip(run(glassgrad), run(torch), strict=True):
        np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("shapes", [((), (3,), ()), ((), (), (3,)), ((3,), (2, 3), (3,)), ((2, 3), (3,), (2, 1))])
@pytest.mark.parametrize("wanted", [(0,), (1,), (2,), (0, 1, 2)])
def test_clamp_tensor_backward_fails_where_torch_fails(shapes: tuple[tuple[int, ...], ...], wanted: tuple[int, ...]) -> None:
    def run(m: Any) -> Any:
        xs = [m.zeros(s, dtype=m.float64, requires_grad=i in wanted) for i, s in enumerate(shapes)]
        try:
            return [g.numpy() for g in m.autograd.grad(m.clamp(*xs).sum(), [xs[i] for i in wanted])]
        except RuntimeError as err:
            return str(err)

    expected = run(torch)
    actual = run(glassgrad)
    if isinstance(expected, str):
        assert actual == expected
    else:
        for a, e in zip(actual, expected, strict=True):
            np.testing.assert_array_equal(a, e)


def test_grad_fn_names_match_torch() -> None:
    def names(m: Any) -> list[str]:
        x = m.tensor([0.5, 0.25], dtype=m.float64, requires_grad=True)
        y = m.tensor([0.75, 0.5], dtype=m.float64, requires_grad=True)
        outs = [
            m.div(x, y, rounding_mode="floor"), m.fmod(x, 2), m.fmod(x, y), m.square(x), m.rsqrt(x), m.exp2(x),
            m.round(x, decimals=1), m.clamp(x, min=y), m.clamp(x, 0.0, 1.0), m.lerp(x, y, 0.5), m.lerp(x, y, y),
            m.addcmul(x, x, y), m.addcdiv(x, x, y), m.hypot(x, y), m.logaddexp(x, y), m.nan_to_num(x),
            m.xlogy(x, y), m.xlogy(2, y), m.xlogy(x, 2), x.masked_fill(x > 0.3, 1.0),
            x.masked_fill(x > 0.3, m.tensor(1.0, dtype=m.float64)), m.logit(x), m.erfinv(x), m.frac(x),
            m.pow(2, y), m.fmax(x, y), m.log1p(x), m.atan2(x, y), m.maximum(x, y), m.where(x > 0.3, x, y),
        ]
        return [type(o.grad_fn).__name__ for o in outs]

    assert names(glassgrad) == names(torch)
