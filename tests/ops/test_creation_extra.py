"""manual_seed, seed and initial_seed: the global stream's contract (streams need not match PyTorch's values);
Tensor.new_* against PyTorch 2.13."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import glassgrad

from .outcome import Call, assert_same_outcome


def test_manual_seed_repeats_the_stream() -> None:
    glassgrad.manual_seed(123)
    first = (glassgrad.rand(3).numpy(), glassgrad.randn(2, 2).numpy(), glassgrad.randint(0, 10, (4,)).numpy())
    glassgrad.manual_seed(123)
    again = (glassgrad.rand(3).numpy(), glassgrad.randn(2, 2).numpy(), glassgrad.randint(0, 10, (4,)).numpy())
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)


def test_manual_seed_returns_the_generator_and_sets_initial_seed() -> None:
    generator = glassgrad.manual_seed(42)
    assert generator.initial_seed() == 42 == glassgrad.initial_seed()


def test_seed_picks_a_fresh_seed_and_records_it() -> None:
    chosen = glassgrad.seed()
    assert isinstance(chosen, int) and chosen == glassgrad.initial_seed()
    glassgrad.manual_seed(chosen)
    a = glassgrad.rand(4).numpy()
    glassgrad.manual_seed(chosen)
    np.testing.assert_array_equal(a, glassgrad.rand(4).numpy())


def test_different_seeds_give_different_streams() -> None:
    glassgrad.manual_seed(1)
    a = glassgrad.rand(8).numpy()
    glassgrad.manual_seed(2)
    assert not np.array_equal(a, glassgrad.rand(8).numpy())


def _x(m: Any) -> Any:
    return m.ones(2, 3, dtype=m.float64, requires_grad=True)


def _i(m: Any) -> Any:
    return m.arange(3)


NEW: dict[str, Call] = {
    "zeros_varargs": lambda m: _x(m).new_zeros(2, 3),
    "zeros_tuple": lambda m: _x(m).new_zeros((2, 3)),
    "zeros_list": lambda m: _x(m).new_zeros([2, 3]),
    "zeros_size": lambda m: _x(m).new_zeros(m.Size([2])),
    "zeros_size_keyword": lambda m: _x(m).new_zeros(size=(2,)),
    "zeros_empty": lambda m: _x(m).new_zeros(0),
    "zeros_dtype": lambda m: _x(m).new_zeros(2, dtype=m.int32),
    "zeros_python_float_is_double": lambda m: _i(m).new_zeros(2, dtype=float),
    "zeros_requires_grad": lambda m: _x(m).new_zeros(2, requires_grad=True),
    "zeros_integer_requires_grad": lambda m: _i(m).new_zeros(2, requires_grad=True),
    "zeros_no_size": lambda m: _x(m).new_zeros(),
    "zeros_negative": lambda m: _x(m).new_zeros(-1),
    "zeros_float_size": lambda m: _x(m).new_zeros(2.0),
    "zeros_mixed_size": lambda m: _x(m).new_zeros(2, (3,)),
    "ones": lambda m: _i(m).new_ones(2),
    "ones_device": lambda m: _i(m).new_ones(2, device="cpu"),
    "full_truncates_to_dtype": lambda m: _i(m).new_full((2,), 3.5),
    "full_bool_value": lambda m: _x(m).new_full([2], True),
    "full_keywords": lambda m: _x(m).new_full(size=(2,), fill_value=1),
    "full_0d_tensor_value": lambda m: _x(m).new_full((2,), m.tensor(3.0)),
    "full_1d_tensor_value": lambda m: _x(m).new_full((2,), m.tensor([3.0])),
    "full_dtype": lambda m: _x(m).new_full((2,), 3.7, dtype=m.int64),
    "full_requires_grad": lambda m: _x(m).new_full((2,), 3.7, requires_grad=True),
    "full_int_size": lambda m: _i(m).new_full(2, 3.5),
    "full_negative": lambda m: _x(m).new_full((-1,), 3.7),
    "empty_meta": lambda m: (lambda t: (t.shape, t.dtype, t.requires_grad))(_i(m).new_empty(2, 3)),
    "empty_requires_grad": lambda m: (lambda t: (t.shape, t.dtype, t.requires_grad))(_x(m).new_empty((2,), requires_grad=True)),
    "tensor_list": lambda m: _x(m).new_tensor([1, 2]),
    "tensor_truncates": lambda m: _i(m).new_tensor([1.5]),
    "tensor_scalar": lambda m: _x(m).new_tensor(3),
    "tensor_bools": lambda m: _x(m).new_tensor([True]),
    "tensor_numpy": lambda m: _i(m).new_tensor(np.ones(2, dtype=np.float32)),
    "tensor_of_tensor_warns_and_copies": lambda m: _i(m).new_tensor(m.ones(2)),
    "tensor_of_tensor_detaches": lambda m: _x(m).new_tensor(_x(m) * 2),
    "tensor_never_shares": lambda m: (lambda x: x.new_tensor(x.numpy()).data_ptr() == x.data_ptr())(m.ones(2)),
    "tensor_dtype": lambda m: _x(m).new_tensor([1], dtype=m.float32),
    "tensor_requires_grad": lambda m: _x(m).new_tensor([1], requires_grad=True),
    "tensor_data_keyword": lambda m: _x(m).new_tensor(data=[1]),
    "tensor_string": lambda m: _x(m).new_tensor("a"),
    "tensor_two_arguments": lambda m: _x(m).new_tensor(1, 2),
}


@pytest.mark.torch_oracle
@pytest.mark.parametrize("call", NEW.values(), ids=NEW.keys())
def test_new_methods_match_torch(call: Call) -> None:
    assert_same_outcome(call)


@pytest.mark.torch_oracle
@pytest.mark.parametrize("scalar", [np.float64(1.5), np.float32(1.5), np.int32(3), np.bool_(True)], ids=repr)
def test_tensor_of_a_numpy_scalar_keeps_its_dtype(scalar: Any) -> None:
    assert_same_outcome(lambda m: m.tensor(scalar))


@pytest.mark.torch_oracle
@pytest.mark.parametrize(
    "data",
    [
        [np.float64(1)], [np.int32(1)], [1, np.float64(2)], [np.float32(1), 2.0], [np.float16(1), 2], [True, 2],
        [[1, 2], [3, 4.5]], [], [[], []], [np.int8(1), np.uint8(2)], [1 + 2j, 1.0], [np.bool_(True)],
        ((1, 2.0), (2.0, 3)),
    ],
    ids=repr,
)
def test_tensor_of_a_sequence_promotes_its_elements_dtypes(data: Any) -> None:
    """A NumPy scalar in a list keeps its dtype as PyTorch's inference does: [np.float64(1)] is float64."""
    assert_same_outcome(lambda m: m.tensor(data))


@pytest.mark.torch_oracle
def test_tensor_of_a_list_of_tensors_keeps_their_dtype() -> None:
    assert_same_outcome(lambda m: m.tensor([m.tensor(1.0, dtype=m.float64), m.tensor(2.0, dtype=m.float64)]))
    assert_same_outcome(lambda m: m.tensor([m.tensor(1, dtype=m.int32), 2]))
