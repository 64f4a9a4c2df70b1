"""t[index], t[index] = value and index_put_ against PyTorch 2.13, on drawn index expressions.

A drawn index mixes ints, slices (steps included, and the negative or zero steps PyTorch rejects), None,
Ellipsis, Python bools, 0-d integer and bool tensors, integer tensors, masks, lists and nested lists, over a
drawn shape; it is used as a tuple, as a bare item, or as a list (PyTorch's list-as-tuple rule). Both
libraries must agree on the result's shape, dtype and values, on whether it is a view, on grad_fn's name, on
the gradient of a weighted sum through it, on warnings, and on the type of any exception. Expected values
are torch's.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import glassgrad

pytestmark = pytest.mark.torch_oracle

Part = tuple[Any, ...]  # ("int", 2), ("slice", start, stop, step), ("mask", array), ...: built for either library
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# -- drawing index expressions ---------------------------------------------------------------------------------------
KINDS = ("int", "int", "slice", "slice", "none", "ellipsis", "bool", "int0d", "bool0d", "tensor", "tensor", "mask", "list",
         "nested", "bools", "float")
_NO_DIM = ("none", "bool", "bool0d", "ellipsis")


@st.composite
def _part(draw: st.DrawFn, shape: tuple[int, ...], dim: int, kinds: tuple[str, ...] = KINDS) -> tuple[Part, int]:
    """One part of an index aimed (mostly) at input dim `dim`, and the dim the next part aims at."""
    size = shape[dim] if dim < len(shape) else 2
    valid = st.integers(-size, size - 1) if size else st.just(0)
    kind = draw(st.sampled_from(kinds))
    if kind == "int":
        return ("int", draw(st.integers(-size - 1, size))), dim + 1
    if kind == "slice":
        bound = st.none() | st.integers(-size - 2, size + 2)
        step = draw(st.none() | st.sampled_from([1, 1, 2, 3, -1, 0]))
        return ("slice", draw(bound), draw(bound), step), dim + 1
    if kind == "none":
        return ("none",), dim
    if kind == "ellipsis":
        return ("ellipsis",), len(shape)
    if kind == "bool":
        return ("bool", draw(st.booleans())), dim
    if kind == "int0d":
        return ("tensor", np.array(draw(valid)), draw(st.sampled_from(["int64", "int32"]))), dim + 1
    if kind == "bool0d":
        return ("tensor", np.array(draw(st.booleans())), "bool"), dim
    if kind == "tensor":
        index_shape = draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=0, max_side=3))
        return ("tensor", draw(hnp.arrays(np.int64, index_shape, elements=valid)), "int64"), dim + 1
    if kind == "mask":
        k = draw(st.integers(1, max(1, min(2, len(shape) - dim))))
        mask_shape = tuple(shape[dim + j] if dim + j < len(shape) else 1 for j in range(k))
        if draw(st.integers(0, 9)) == 0:  # now and then a mask of the wrong shape
            mask_shape = (*mask_shape[:-1], mask_shape[-1] + 1)
        return ("tensor", draw(hnp.arrays(np.bool_, mask_shape)), "bool"), dim + k
    if kind == "list":
        return ("list", draw(st.lists(valid, max_size=3))), dim + 1
    if kind == "nested":
        rows = draw(st.integers(1, 2))
        width = draw(st.integers(0, 2))
        return ("list", [draw(st.lists(valid, min_size=width, max_size=width)) for _ in range(rows)]), dim + 1
    if kind == "bools":
        return ("list", draw(st.lists(st.booleans(), min_size=size, max_size=size))), dim + 1
    return ("float", 1.5), dim + 1


@st.composite
def indexing(draw: st.DrawFn) -> tuple[tuple[int, ...], list[Part], str]:
    """A shape, the parts of an index, and its form: "tuple", "bare" (one part alone) or "list"."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4))
    parts: list[Part] = []
    dim = 0
    for _ in range(draw(st.integers(0, len(shape) + 2))):
        # past the last dim, mostly parts that index no dim (or PyTorch's "too many indices" would be all we see)
        spent = dim >= len(shape) and draw(st.integers(0, 9)) > 0
        part, dim = draw(_part(shape, dim, kinds=_NO_DIM if spent else KINDS))
        parts.append(part)
    form = draw(st.sampled_from(["tuple", "tuple", "bare", "list"]) if len(parts) == 1 else st.sampled_from(["tuple", "list"]))
    return shape, parts, form


def build(m: Any, parts: list[Part], form: str) -> Any:
    items = [_build_part(m, p) for p in parts]
    if form == "bare":
        return items[0]
    return items if form == "list" else tuple(items)


def _build_part(m: Any, part: Part) -> Any:
    kind = part[0]
    if kind == "slice":
        return slice(*part[1:])
    if kind == "tensor":
        return m.tensor(part[1], dtype=getattr(m, part[2]))
    return {"int": lambda: part[1], "none": lambda: None, "ellipsis": lambda: Ellipsis, "bool": lambda: part[1],
            "list": lambda: part[1], "float": lambda: part[1]}[kind]()


# -- running one library -------------------------------------------------------------------------------------------
def _data(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(1.0, math.prod(shape) + 1).reshape(shape)  # distinct values: a misplaced element shows


def _weights(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(1.0, math.prod(shape) + 1).reshape(shape) * 0.5 + 3


def _array(t: Any) -> Any:
    return None if t is None else t.detach().numpy().copy()


def _node(t: Any) -> str | None:
    return None if t.grad_fn is None else type(t.grad_fn).__name__


class Outcome:
    """What a library did: an exception type, or named values (arrays compared exactly, others by equality)."""

    def __init__(self, warned: list[str], error: str | None = None, **values: Any) -> None:
        self.warned, self.error, self.values = warned, error, values

    def assert_matches(self, expected: Outcome) -> None:
        assert self.error == expected.error, f"torch raised {expected.error}, glassgrad {self.error}"
        assert self.warned == expected.warned, f"warnings: torch {expected.warned}, glassgrad {self.warned}"
        assert self.values.keys() == expected.values.keys()
        for name, want in expected.values.items():
            got = self.values[name]
            if isinstance(want, np.ndarray) or isinstance(got, np.ndarray):
                assert got is not None and want is not None, f"{name}: torch {want}, glassgrad {got}"
                np.testing.assert_array_equal(got, want, err_msg=name)
            else:
                assert got == want, f"{name}: torch {want!r}, glassgrad {got!r}"


def run(call: Any) -> Outcome:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            values = call()
        except Exception as err:  # which index expressions each library rejects is part of the comparison
            return Outcome(_categories(caught), type(err).__name__)
    return Outcome(_categories(caught), **values)


def _categories(caught: list[warnings.WarningMessage]) -> list[str]:
    return sorted({w.category.__name__ for w in caught})


def read(m: Any, shape: tuple[int, ...], parts: list[Part], form: str) -> dict[str, Any]:
    x = m.tensor(_data(shape), requires_grad=True)
    y = x[build(m, parts, form)]
    seen = {"shape": tuple(y.shape), "dtype": str(y.dtype).rpartition(".")[2], "values": _array(y),
            "view": y._base is x, "node": _node(y)}
    (y * m.tensor(_weights(tuple(y.shape)))).sum().backward()
    return {**seen, "grad": _array(x.grad)}


@SETTINGS
@given(case=indexing())
def test_getitem_matches_torch(case: tuple[tuple[int, ...], list[Part], str]) -> None:
    shape, parts, form = case
    run(lambda: read(glassgrad, shape, parts, form)).assert_matches(run(lambda: read(torch, shape, parts, form)))


# -- assignment ----------------------------------------------------------------------------------------------------
def _value_shapes(target: tuple[int, ...]) -> st.SearchStrategy[Any]:
    """Values for `t[index] = value` given the shape torch indexes: that shape, broadcastable ones, extra leading
    ones, 0-d, a Python float, or one that does not fit."""
    ones_in = st.lists(st.booleans(), min_size=len(target), max_size=len(target)).map(
        lambda keep: tuple(s if k else 1 for s, k in zip(target, keep, strict=True)))
    return st.one_of(
        st.just(target), ones_in, st.integers(0, len(target)).map(lambda k: target[k:]),
        st.just((1, 1, *target)), st.just(()), st.just("float"), st.just((*target[:-1], target[-1] + 1) if target else (2,)),
    )


def write(m: Any, shape: tuple[int, ...], parts: list[Part], form: str, value_shape: Any, accumulate: bool | None) -> dict[str, Any]:
    x = m.tensor(_data(shape), requires_grad=True)
    target = x * 1  # a non-leaf, so the in-place write is recorded
    before = target._version
    value = 2.5 if value_shape == "float" else m.tensor(-_data(value_shape), requires_grad=True)
    index = build(m, parts, form)
    if accumulate is None:
        target[index] = value
    else:
        target.index_put_(index, value, accumulate=accumulate)
    seen = {"values": _array(target), "node": _node(target), "bumped": target._version > before}
    (target * m.tensor(_weights(shape))).sum().backward()
    return {**seen, "grad": _array(x.grad), "value_grad": None if value_shape == "float" else _array(value.grad)}


def _torch_result_shape(shape: tuple[int, ...], index: Any) -> tuple[int, ...]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return tuple(torch.zeros(shape)[index].shape)
        except Exception:  # a rejected index: any value will do, the assignment must be rejected too
            return (2,)


@SETTINGS
@given(case=indexing(), data=st.data())
def test_setitem_matches_torch(case: tuple[tuple[int, ...], list[Part], str], data: st.DataObject) -> None:
    shape, parts, form = case
    value_shape = data.draw(_value_shapes(_torch_result_shape(shape, build(torch, parts, form))), label="value shape")
    expected = run(lambda: write(torch, shape, parts, form, value_shape, None))
    run(lambda: write(glassgrad, shape, parts, form, value_shape, None)).assert_matches(expected)


@st.composite
def tensor_indices(draw: st.DrawFn) -> tuple[tuple[int, ...], list[Part]]:
    """index_put_'s indices: integer tensors and masks only, one after another from dim 0."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    parts: list[Part] = []
    dim = 0
    for _ in range(draw(st.integers(1, 3))):
        part, dim = draw(_part(shape, dim, kinds=("tensor", "mask")))
        parts.append(part)
    return shape, parts


@SETTINGS
@given(case=tensor_indices(), accumulate=st.booleans(), data=st.data())
def test_index_put_matches_torch(case: tuple[tuple[int, ...], list[Part]], accumulate: bool, data: st.DataObject) -> None:
    shape, parts = case
    value_shape = data.draw(_value_shapes(_torch_result_shape(shape, build(torch, parts, "tuple"))).filter(
        lambda s: s != "float"), label="value shape")
    expected = run(lambda: write(torch, shape, parts, "tuple", value_shape, accumulate))
    run(lambda: write(glassgrad, shape, parts, "tuple", value_shape, accumulate)).assert_matches(expected)


# -- fixed cases -----------------------------------------------------------------------------------------------------
def test_integers_apply_before_advanced_indices() -> None:
    x = glassgrad.zeros(3, 4, 5)
    assert x[1, :, [0, 3]].shape == (4, 2) == tuple(torch.zeros(3, 4, 5)[1, :, [0, 3]].shape)


def test_indexing_a_0_dim_tensor_says_use_item() -> None:
    with pytest.raises(IndexError) as expected:
        torch.tensor(1.0)[0]
    with pytest.raises(IndexError) as actual:
        glassgrad.tensor(1.0)[0]
    assert str(actual.value) == str(expected.value) == (
        "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim "
        "tensor to a number"
    )


def test_basic_results_share_the_version_counter() -> None:
    x = glassgrad.zeros(3, 4)
    views = [x[0], x[1:], x[None], x[...], x[glassgrad.tensor(1)], x[:, 0:0]]
    copy = x[[0, 1]]
    x.add_(1)
    assert [v._version for v in views] == [1] * len(views) and copy._version == 0
    assert views[0].tolist() == [1.0] * 4


def test_uint8_index_warns_as_torch_does() -> None:
    for m in (torch, glassgrad):
        with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
            result = m.arange(3)[m.tensor([1, 0, 1], dtype=m.uint8)]
        assert result.tolist() == [0, 2]


@pytest.mark.parametrize(
    ("rows", "cols", "dtype"),
    [
        ([0, 2, 1, 2], [3, 0, -1, 1], "int64"),  # the pick of one class per row, a negative position among them
        ([0, 2], [1, 3], "int32"),
        ([[0], [2]], [0, 1, 3], "int64"),  # shapes that broadcast
        ([0, 1], [1, 4], "int64"),  # out of bounds
        ([0, 1, 2], [1, 2], "int64"),  # shapes that do not broadcast
    ],
    ids=["pick", "int32", "broadcast", "out_of_bounds", "mismatch"],
)
def test_a_tuple_of_position_tensors_matches_torch(rows: list[Any], cols: list[Any], dtype: str) -> None:
    """x[rows, cols], the hot case the plan reads without its general pass: values, gradient and errors."""
    def pick(m: Any) -> Any:
        x = m.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        try:
            y = x[m.tensor(rows, dtype=getattr(m, dtype)), m.tensor(cols, dtype=getattr(m, dtype))]
        except IndexError as error:
            return str(error)
        (y * m.arange(1.0, y.numel() + 1).reshape(y.shape)).sum().backward()
        return y.detach().numpy(), x.grad.numpy(), type(y.grad_fn).__name__

    mine, theirs = pick(glassgrad), pick(torch)
    if isinstance(theirs, str):
        assert mine == theirs
    else:
        for got, expected in zip(mine, theirs, strict=True):
            np.testing.assert_array_equal(got, expected)


def test_second_backward_through_an_advanced_index_fails_as_torch() -> None:
    def twice(m: Any) -> str:
        x = m.ones(3, requires_grad=True)
        y = x[m.tensor([0, 0, 2])].sum()
        y.backward()
        try:
            y.backward()
        except RuntimeError:
            return "second raises"
        return "both run"

    assert twice(glassgrad) == twice(torch) == "second raises"


@pytest.mark.parametrize("index", [(1, slice(None), [0, 2]), ([0, 0, 2], None), (slice(1, None), glassgrad.tensor([True, False, True, True]))],
                         ids=["select_then_index", "repeated", "mask"])
def test_getitem_has_second_derivatives(index: Any) -> None:
    x = glassgrad.randn(3, 4, 3, dtype=glassgrad.float64, requires_grad=True)
    assert glassgrad.autograd.gradgradcheck(lambda t: (t[index] ** 2), (x,))


def test_setitem_has_second_derivatives() -> None:
    def assign(x: Any, v: Any) -> Any:
        y = x * 1
        y[[0, 2], 1:] = v * v
        return y

    x = glassgrad.randn(3, 3, dtype=glassgrad.float64, requires_grad=True)
    v = glassgrad.randn(2, dtype=glassgrad.float64, requires_grad=True)
    assert glassgrad.autograd.gradgradcheck(assign, (x, v))
