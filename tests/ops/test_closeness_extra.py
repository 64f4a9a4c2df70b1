"""isclose, allclose and equal on the boundaries the drawn OpInfo inputs rarely hit, with PyTorch's messages.

test_op_properties compares exception types; here the first sentence of each message is compared
too, and the values at exact tolerance boundaries, at integers too large for float32, and at inf/nan.
"""

from __future__ import annotations

import pytest

from ..outcome import assert_same_outcome

pytestmark = pytest.mark.torch_oracle


def expression(source: str) -> pytest.param:
    return pytest.param(lambda m: eval(source, {"m": m, "T": m.tensor, "inf": float("inf"), "nan": float("nan")}), id=source)


CASES = [
    expression(source)
    for source in (
        # boundaries: allowed error is atol + rtol * |other|, compared with <=
        "m.isclose(T([5]), T([7]), atol=2.0)", "m.isclose(T([5]), T([7]), atol=1.9)",
        "m.isclose(T([5]), T([7]), rtol=0.2857142857142857, atol=0)", "m.isclose(T([5]), T([7]), rtol=0.28, atol=0)",
        "m.isclose(T([2]), T([3]), rtol=0.34, atol=0)", "m.isclose(T([3]), T([2]), rtol=0.34, atol=0)",
        "m.isclose(T([-3]), T([3]), rtol=2.0, atol=0)", "m.isclose(T([-3]), T([3]), rtol=1.0, atol=0)",
        "m.isclose(T([1e-8]), T([0.0]))", "m.isclose(T([1e10]), T([1.00001e10]))", "m.isclose(T([1.0 + 1e-7]), T([1.0]), rtol=0, atol=0)",
        # integers are compared in the default float dtype, except when both tolerances are zero
        "m.isclose(T([16777217]), T([16777216]), rtol=0, atol=1e-300)", "m.isclose(T([2**62]), T([2**62 + 1]), rtol=0, atol=0)",
        "m.isclose(T([2**62]), T([2**62 + 1]))", "m.isclose(T([0], dtype=m.uint8), T([255], dtype=m.uint8), atol=1)",
        "m.isclose(T([1], dtype=m.uint8), T([2], dtype=m.uint8), atol=1)", "m.isclose(T([100], dtype=m.int8), T([-100], dtype=m.int8), atol=250)",
        "m.isclose(T([True]), T([False]), atol=1)", "m.isclose(T([True]), T([False]), atol=0.99)",
        # float16 rounds each step
        "m.isclose(T([65504.0], dtype=m.float16), T([65500.0], dtype=m.float16), rtol=1e-3)",
        "m.isclose(T([1.0], dtype=m.float16), T([1.0009765625], dtype=m.float16), rtol=0, atol=0.0009765625)",
        "m.isclose(T([1.0], dtype=m.float16), T([1.001], dtype=m.float16))",
        # infinities and nan
        "m.isclose(T([inf, -inf, inf]), T([inf, -inf, -inf]))", "m.isclose(T([1.0]), T([inf]), atol=inf)",
        "m.isclose(T([1.0]), T([2.0]), rtol=inf)", "m.isclose(T([nan]), T([nan]))", "m.isclose(T([nan]), T([nan]), equal_nan=True)",
        "m.isclose(T([1.0]), T([nan]), rtol=inf, atol=inf)", "m.allclose(T([nan]), T([nan]), equal_nan=True)",
        # shapes and arguments
        "m.isclose(T([[1.0], [2.0]]), T([1.0, 2.0, 3.0]))", "m.allclose(T([[1.0], [2.0]]), T([1.0, 2.0, 3.0]))",
        "m.isclose(T(1.0), T(1.0))", "m.allclose(T([]), T([]))", "m.isclose(T([1.0]), T([1.0]), 0.1, 0.1, True)",
        "m.isclose(input=T([1.0]), other=T([1.0]))", "m.isclose(T([1.0]), T([1.0]), rtol=T(1.0))",
        "m.isclose(T([1.0]), T([1.0]), atol=True)", "m.isclose(T([1.0], requires_grad=True), T([1.0]))",
        "T([1.0, 2.0]).isclose(T([1.0, 2.1]), rtol=0.1)", "T([1.0]).allclose(T([1.0]))", "T([1.0]).equal(T([1.0], dtype=m.float64))",
        # equal promotes, and never broadcasts
        "m.equal(T([1.0]), T([1]))", "m.equal(T([16777217]), T([16777216.0]))", "m.equal(T([1.0], dtype=m.float16), T([1.0], dtype=m.float64))",
        "m.equal(T([True]), T([1]))", "m.equal(T([0.0]), T([-0.0]))", "m.equal(T([1.0]), T([1.0, 1.0]))", "m.equal(T([1.0]), T(1.0))",
        "m.equal(T([[1.0]]), T([1.0]))", "m.equal(T([nan]), T([nan]))", "m.equal(T([]), T([], dtype=m.int64))",
        # errors, with PyTorch's first sentence
        "m.isclose(T([1, 2]), T([1.0, 2.0]))", "m.isclose(T([1.0]), T([1.0], dtype=m.float64))", "m.isclose(T([True]), T([1]))",
        "m.isclose(T([1], dtype=m.uint8), T([1], dtype=m.int8))", "m.isclose(T([1.0], dtype=m.float16), T([1.0], dtype=m.float64))",
        "m.isclose(T([1.0, 2.0]), T([1.0, 2.0, 3.0]))", "m.allclose(T([1.0, 2.0]), T([1.0, 2.0, 3.0]))",
        "m.isclose(T([1.0]), 1.0)", "m.isclose(1.0, T([1.0]))", "m.isclose(T([1.0]), None)", "m.allclose(T([1.0]), 1.0)",
        "m.isclose(T([1.0]), T([1.0]), rtol=-1)", "m.isclose(T([1.0]), T([1.0]), atol=-0.5)", "m.isclose(T([1.0]), T([1.0]), rtol=nan)",
        "m.isclose(T([1.0]), T([1.0]), rtol=-1, atol=-1)", "m.isclose(T([1]), T([1.0]), rtol=-1)", "m.allclose(T([1.0]), T([1.0]), rtol=-1)",
        "m.isclose(T([1.0]), T([1.0]), rtol='a')", "m.isclose(T([1.0]), T([1.0]), rtol=None)", "m.isclose(T([1.0]), T([1.0]), rtol=T([1.0, 2.0]))",
        "m.isclose(T([1.0]), T([1.0]), equal_nan=1)", "m.isclose(T([1.0]), T([1.0]), equal_nan=None)",
        "m.equal(T([1.0]), 1.0)", "m.equal(1.0, T([1.0]))", "m.equal(T([1.0]), None)",
        "T([1.0]).isclose(1.0)", "T([1.0]).allclose(1.0)", "T([1.0]).equal(1.0)", "T([1.0]).equal([1.0])",
    )
]


@pytest.mark.parametrize("snippet", CASES)
def test_closeness_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)


def test_isclose_follows_the_default_dtype_for_integers() -> None:
    def run(m):
        previous = m.get_default_dtype()
        m.set_default_dtype(m.float64)
        try:
            return m.isclose(m.tensor([16777217]), m.tensor([16777216]), rtol=0, atol=1e-300)
        finally:
            m.set_default_dtype(previous)

    assert_same_outcome(run)
