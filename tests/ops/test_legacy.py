"""Legacy constructors (Tensor(...), FloatTensor & co, Tensor.new) and Tensor.type, against PyTorch 2.13.

Uninitialised results (Tensor(2, 3)) are compared by shape and dtype only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import glassgrad

from .outcome import Call, assert_same_outcome

pytestmark = pytest.mark.torch_oracle

TYPED = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor",
         "BoolTensor"]
DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def _meta(t: Any) -> Any:
    return t.shape, t.dtype


def _alias_shares(m: Any) -> Any:
    y = m.ones(2)
    z = m.Tensor(y)
    with m.no_grad():
        y.add_(1)
    return z is y, z.data_ptr() == y.data_ptr(), z._version, z


def _numpy_shared(m: Any) -> Any:
    array = np.ones(2, dtype=np.float32)
    t = m.Tensor(array)
    array[0] = 5
    return t


CASES: dict[str, Call] = {
    "no_args": lambda m: m.Tensor(),
    "sizes": lambda m: _meta(m.Tensor(40, 1)),
    "three_sizes": lambda m: _meta(m.Tensor(2, 3, 4)),
    "one_size": lambda m: _meta(m.Tensor(3)),
    "zero_size": lambda m: m.Tensor(0),
    "torch_size": lambda m: _meta(m.Tensor(m.Size([2, 3]))),
    "empty_torch_size": lambda m: _meta(m.Tensor(m.Size([]))),
    "numpy_int_size": lambda m: _meta(m.Tensor(np.int64(3))),
    "numpy_0d_size": lambda m: _meta(m.Tensor(np.array(3))),
    "size_keyword": lambda m: _meta(m.Tensor(size=(2,))),
    "negative_size": lambda m: m.Tensor(-1),
    "list": lambda m: m.Tensor([1, 2]),
    "tuple_is_data": lambda m: m.Tensor((2, 3)),
    "nested": lambda m: m.Tensor([[1, 2], [3, 4]]),
    "bools": lambda m: m.Tensor([True, False]),
    "empty_list": lambda m: m.Tensor([]),
    "empty_tuple": lambda m: m.Tensor(()),
    "range": lambda m: m.Tensor(range(3)),
    "list_of_tensors": lambda m: m.Tensor([m.tensor(1.0), m.tensor(2.0)]),
    "data_keyword": lambda m: m.Tensor(data=[1]),
    "numpy_int64": lambda m: m.Tensor(np.ones(2, dtype="int64")),
    "numpy_float32_shares_memory": _numpy_shared,
    "tensor_aliases": _alias_shares,
    "long_tensor_keeps_dtype": lambda m: m.Tensor(m.arange(3)),
    "int_0d_tensor_is_data": lambda m: m.Tensor(m.tensor(3)),
    "other_keyword": lambda m: m.Tensor(other=m.ones(2)),
    "alias_of_leaf_requiring_grad": lambda m: m.Tensor(m.ones(2, requires_grad=True)),
    "alias_of_non_leaf": lambda m: m.Tensor(m.ones(2, requires_grad=True) * 2),
    "device_cpu": lambda m: _meta(m.Tensor(2, 3, device="cpu")),
    "is_a_tensor": lambda m: isinstance(m.Tensor(2), m.Tensor),
    # rejected
    "float": lambda m: m.Tensor(2.5),
    "bool": lambda m: m.Tensor(True),
    "none": lambda m: m.Tensor(None),
    "string": lambda m: m.Tensor("a"),
    "dtype_keyword": lambda m: m.Tensor(2, 3, dtype=m.float64),
    "requires_grad_keyword": lambda m: m.Tensor(2, requires_grad=True),
    "size_and_list": lambda m: m.Tensor(2, [3]),
    "size_and_float": lambda m: m.Tensor(2, 3.0),
    "two_lists": lambda m: m.Tensor([1], [2]),
    "tensor_and_size": lambda m: m.Tensor(m.ones(2), 2),
    "device_cuda": lambda m: m.Tensor(2, device="cuda"),
    # typed classes
    "bool_tensor_of_ints": lambda m: m.BoolTensor([2, 0]),
    "long_tensor_truncates": lambda m: m.LongTensor([1.7, -1.7]),
    "long_tensor_ragged": lambda m: m.LongTensor([[1], [2, 3]]),
    "typed_dtype_keyword": lambda m: m.FloatTensor(2, dtype=m.float32),
    "typed_device_keyword": lambda m: m.FloatTensor([1.0], device="cpu"),
    "typed_negative_size": lambda m: m.FloatTensor(-2),
    "typed_float": lambda m: m.FloatTensor(2.5),
    "parameter_is_a_float_tensor": lambda m: isinstance(m.nn.Parameter(m.ones(2)), m.FloatTensor),
    "isinstance_tuple": lambda m: isinstance(m.zeros(1, dtype=m.float64), (m.FloatTensor, m.DoubleTensor)),
    # new: the legacy constructor of the tensor's dtype
    "new_sizes": lambda m: _meta(m.ones(2, dtype=m.float64).new(2, 3)),
    "new_data": lambda m: m.ones(2, dtype=m.int64).new([1.5, 2]),
    "new_no_args": lambda m: m.ones(2, dtype=m.float64).new(),
    "new_other_dtype": lambda m: m.ones(2, dtype=m.int64).new(m.ones(2)),
    "new_same_dtype": lambda m: m.ones(2).new(m.ones(2)),
    # type
    "type_name_bool": lambda m: m.ones(1, dtype=m.bool).type(),
    "type_class": lambda m: m.ones(2).type(m.DoubleTensor),
    "type_string": lambda m: m.ones(2).type("torch.LongTensor"),
    "type_dtype": lambda m: m.ones(2).type(m.float64),
    "type_dtype_keyword": lambda m: m.ones(2).type(dtype=m.float64),
    "type_non_blocking": lambda m: m.ones(2).type(m.DoubleTensor, non_blocking=True),
    "type_tensor_is_default_dtype": lambda m: m.ones(2, dtype=m.int64).type(m.Tensor),
    "type_records_a_cast": lambda m: m.ones(2, requires_grad=True).type(m.DoubleTensor),
    "type_unchanged_is_self": lambda m: [(lambda x, s=spec: x.type(s(m)) is x)(m.ones(2))
                                        for spec in (lambda m: m.FloatTensor, lambda m: "torch.FloatTensor", lambda m: m.float32)],
    "type_unbound": lambda m: m.Tensor.type(m.ones(2)),
    "type_bad_name": lambda m: m.ones(2).type("torch.Foo"),
    "type_dtype_name": lambda m: m.ones(2).type("torch.float64"),
    "type_python_type": lambda m: m.ones(2).type(int),
    "type_number": lambda m: m.ones(2).type(5),
}

for _name in TYPED:
    CASES |= {
        f"{_name}_sizes": lambda m, n=_name: _meta(getattr(m, n)(2, 3)),
        f"{_name}_data": lambda m, n=_name: getattr(m, n)([1.5, 2]),
        f"{_name}_no_args": lambda m, n=_name: getattr(m, n)(),
        f"{_name}_of_long_tensor": lambda m, n=_name: getattr(m, n)(m.tensor([1, 2])),
        f"{_name}_of_float_tensor": lambda m, n=_name: getattr(m, n)(m.tensor([1.0, 2.0])),
        f"{_name}_torch_size": lambda m, n=_name: _meta(getattr(m, n)(m.Size([2]))),
        f"{_name}_numpy": lambda m, n=_name: getattr(m, n)(np.ones(2, dtype=np.float32)),
        f"{_name}_attributes": lambda m, n=_name: (getattr(m, n).__name__, getattr(m, n).dtype, getattr(m, n).is_cuda),
        f"{_name}_is_no_subclass": lambda m, n=_name: (issubclass(getattr(m, n), m.Tensor), issubclass(m.Tensor, getattr(m, n))),
        f"{_name}_isinstance": lambda m, n=_name: [isinstance(m.zeros(1, dtype=getattr(m, d)), getattr(m, n)) for d in DTYPES],
        f"{_name}_not_instance": lambda m, n=_name: isinstance(5, getattr(m, n)),
    }
for _dtype in DTYPES:
    CASES[f"type_name_{_dtype}"] = lambda m, d=_dtype: m.ones(2, dtype=getattr(m, d)).type()


@pytest.mark.parametrize("call", CASES.values(), ids=CASES.keys())
def test_matches_torch(call: Call) -> None:
    assert_same_outcome(call)


@pytest.mark.parametrize("name", TYPED)
def test_typed_class_prints_as_glassgrads(name: str) -> None:
    assert repr(getattr(glassgrad, name)) == f"<class 'glassgrad.{name}'>"


def test_alias_shares_the_version_counter_and_records_alias_backward() -> None:
    x = glassgrad.ones(2, requires_grad=True)
    y = x * 2
    z = glassgrad.Tensor(y)
    assert z._base is y and type(z.grad_fn).__name__ == "AliasBackward0"
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_legacy_constructor_does_not_touch_ops_fast_path() -> None:
    # Ops build tensors with Tensor._wrap, which bypasses Tensor.__new__ (the legacy constructor).
    t = glassgrad.Tensor._wrap(np.zeros((2, 2), dtype=np.float32))
    assert type(t) is glassgrad.Tensor and t.shape == (2, 2)
