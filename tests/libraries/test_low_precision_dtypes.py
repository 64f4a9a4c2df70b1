"""bfloat16 and the float8 family against PyTorch: names, promotion, limits, conversions, arithmetic, printing."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest
import torch

import glassgrad

pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed (pip install 'glassgrad[libraries]')")
pytestmark = pytest.mark.torch_oracle

LOW = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]
OTHERS = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64", "complex64"]


@pytest.mark.parametrize("name", LOW)
def test_the_dtype_reads_as_pytorchs(name: str) -> None:
    ours, theirs = getattr(glassgrad, name), getattr(torch, name)
    assert ours.itemsize == theirs.itemsize
    assert ours.is_floating_point == theirs.is_floating_point
    assert ours.is_signed == theirs.is_signed
    assert ours.is_complex == theirs.is_complex
    assert pickle.loads(pickle.dumps(ours)) is ours


@pytest.mark.parametrize("name", LOW)
def test_finfo_matches(name: str) -> None:
    ours, theirs = glassgrad.finfo(getattr(glassgrad, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field


@pytest.mark.parametrize(("a", "b"), list(itertools.product(LOW[:3], LOW[:3] + OTHERS)))
def test_promotion_matches_or_refuses_as_pytorch_does(a: str, b: str) -> None:
    def promote(module):
        return module.promote_types(getattr(module, a), getattr(module, b))

    try:
        expected = str(promote(torch)).removeprefix("torch.")
    except RuntimeError as error:
        with pytest.raises(RuntimeError) as ours:
            promote(glassgrad)
        assert str(ours.value) == str(error)
        return
    assert promote(glassgrad).name == expected


VALUES = [0.0, 1.0, -2.5, 3.14159, 1e-3, 123.456, -0.0078125, 1e4]


@pytest.mark.parametrize("name", LOW[:3])
def test_conversion_from_float32_rounds_as_pytorch_does(name: str) -> None:
    ours = glassgrad.tensor(VALUES).to(getattr(glassgrad, name))
    theirs = torch.tensor(VALUES).to(getattr(torch, name))
    assert ours.dtype.name == name
    np.testing.assert_array_equal(ours.float().numpy(), theirs.float().numpy())
    np.testing.assert_array_equal(ours.double().numpy(), theirs.double().numpy())


def test_bfloat16_arithmetic_rounds_each_result_as_pytorch_does() -> None:
    a, b = VALUES, VALUES[::-1]
    ours = glassgrad.tensor(a, dtype=glassgrad.bfloat16), glassgrad.tensor(b, dtype=glassgrad.bfloat16)
    theirs = torch.tensor(a, dtype=torch.bfloat16), torch.tensor(b, dtype=torch.bfloat16)
    for op in (lambda x, y: x + y, lambda x, y: x * y, lambda x, y: x - y, lambda x, y: x * 1.5):
        got, want = op(*ours), op(*theirs)
        assert got.dtype is glassgrad.bfloat16
        np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())


def test_bfloat16_with_float32_tensors_and_python_scalars_promotes_as_pytorch() -> None:
    x = glassgrad.ones(2, dtype=glassgrad.bfloat16)
    assert (x + 1.5).dtype is glassgrad.bfloat16
    assert (x + glassgrad.ones(2)).dtype is glassgrad.float32
    assert (x * glassgrad.tensor(2.0)).dtype is glassgrad.bfloat16  # a 0-d float32 does not lift it


def test_a_bfloat16_tensor_prints_as_pytorchs() -> None:
    values = [1.0, 2.5, -3.0]
    assert repr(glassgrad.tensor(values, dtype=glassgrad.bfloat16)).replace("glassgrad.", "torch.") == repr(
        torch.tensor(values, dtype=torch.bfloat16)
    )


def test_an_ml_dtypes_array_becomes_a_tensor_of_its_dtype() -> None:
    import ml_dtypes

    array = np.ones(3, dtype=ml_dtypes.float8_e5m2)
    assert glassgrad.from_numpy(array).dtype is glassgrad.float8_e5m2
