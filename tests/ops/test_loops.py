"""ops/_loops.pyx gives its NumPy routes' results bit for bit: ReLU, the backward kernels of tanh, sigmoid and
threshold at 0 (ReLU's, on any input), and the tiled transposing copy (with a bias row) that a small-batch linear
layer's product ends with. The layers against PyTorch are tests/nn/test_product_orientation.py's and the op tables';
here each loop meets its NumPy route on awkward values and shapes.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad
from glassgrad import _native
from glassgrad.ops import elementwise

loops = _native.kernels("glassgrad.ops._loops")
needs_the_loops = pytest.mark.skipif(loops is None, reason="the loops are not built, or GLASSGRAD_PURE=1")

SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 3.0, -3.0]


def awkward(shape: tuple[int, ...], dtype: type, seed: int) -> np.ndarray:
    """Normal draws with NaN, infinities, signed zeros and subnormals first."""
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    x.reshape(-1)[: len(SPECIAL)] = SPECIAL[: x.size]
    return x


def assert_same_bits(got: np.ndarray, expected: np.ndarray) -> None:
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))  # -0.0 stays -0.0


SHAPES = [(0,), (10,), (3, 17), (2, 3, 5)]


@needs_the_loops
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_relu_loop_is_numpys_maximum_with_zero(dtype: type, shape: tuple[int, ...]) -> None:
    x = awkward(shape, dtype, 0)
    assert_same_bits(loops.relu(x), np.maximum(x.dtype.type(0), x))


@needs_the_loops
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", ["tanh", "sigmoid", "threshold"])
@pytest.mark.parametrize("nan_gradient", [False, True])
def test_backward_loop_is_its_numpy_route(
    name: str, dtype: type, shape: tuple[int, ...], nan_gradient: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    kernel = getattr(elementwise, f"_{name}_backward_kernel")
    grad = awkward(shape, dtype, 1)
    if not nan_gradient:  # threshold's route zeroes dead units again only when some product is NaN: both cases
        grad = np.nan_to_num(grad, nan=0.5, posinf=2.0, neginf=-2.0)
    result = awkward(shape, dtype, 2)  # for threshold at 0: dead units below and at 0 (both signs), NaN is live
    by_loop, by_numpy = np.empty_like(result), np.empty_like(result)
    with np.errstate(all="ignore"):  # as the kernels run in backward: PyTorch computes NaN without a warning
        kernel(grad, result, by_loop)
        monkeypatch.setattr(elementwise, "_loops", None)
        kernel(grad, result, by_numpy)
    assert_same_bits(by_loop, by_numpy)


@needs_the_loops
def test_the_loops_take_only_contiguous_native_float_arrays_of_one_size() -> None:
    a = np.ones((4, 6), np.float32)
    out = np.empty_like(a)
    assert loops.tanh_backward(a, a, out)
    assert not loops.tanh_backward(a.T, a, out)  # transposed
    assert not loops.tanh_backward(a[:, ::2], a[:, ::2], out[:, ::2])  # strided
    assert not loops.tanh_backward(a, a.astype(np.float64), out)  # mixed dtypes
    assert not loops.tanh_backward(a, a.astype(">f4"), out)  # not the machine's byte order
    assert not loops.tanh_backward(a, a[:2], out)  # sizes differ
    assert not loops.sigmoid_backward(a.astype(np.float16), a.astype(np.float16), out.astype(np.float16))
    assert loops.relu(a.T) is None and loops.relu(a.astype(np.int32)) is None


@needs_the_loops
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (16, 16), (17, 33), (256, 64), (5, 40)])
def test_transposed_loop_is_numpys_copy_then_add(dtype: type, rows: int, cols: int) -> None:
    rng = np.random.default_rng(1)
    source = rng.standard_normal((rows, cols)).astype(dtype)
    bias = rng.standard_normal(rows).astype(dtype)
    plain = loops.transposed(source)
    assert plain.flags.c_contiguous and plain.shape == (cols, rows)
    np.testing.assert_array_equal(plain, source.T)
    with_bias = loops.transposed(source, bias)
    np.testing.assert_array_equal(with_bias, np.ascontiguousarray(source.T) + bias)


@pytest.mark.torch_oracle
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "float16", "int32"])
def test_relu_on_every_layout_and_dtype_matches_torch(layout: str) -> None:
    """The loop takes contiguous float32 and float64 arrays; the rest keep NumPy's route, with the same answer."""
    base = np.array([[-2.0, -0.0, 0.0, 1.5], [np.nan, np.inf, -np.inf, 3.0], [-1.0, 2.0, -3.0, 0.5]])
    dtype = {"float16": "float16", "int32": "int32"}.get(layout, "float32")
    values = np.nan_to_num(base, nan=0.0, posinf=5, neginf=-5) if layout == "int32" else base
    results = []
    for lib in (glassgrad, torch):
        x = lib.tensor(values.astype(dtype))
        results.append(lib.relu(x.t() if layout == "transposed" else x).numpy())
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(np.signbit(results[0]), np.signbit(results[1]))
