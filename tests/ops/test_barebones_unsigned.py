"""uint16, uint32 and uint64 against PyTorch 2.13, which supports them only in part: tensors of them are made,
converted, copied, indexed, multiplied and summed, while add, comparisons, max and the like refuse them, and they
promote only with floating types."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad

from ..outcome import assert_same_outcome, expression

pytestmark = pytest.mark.torch_oracle

CASES = [
    expression(source, np=np)
    for source in (
        "m.tensor([1, 2, 3], dtype=m.uint16)", "m.zeros(2, dtype=m.uint32)", "m.ones(2, 2, dtype=m.uint64)",
        "m.full((2,), 7, dtype=m.uint16)", "m.empty(3, dtype=m.uint32).shape", "m.tensor([2**64 - 1, 2**63], dtype=m.uint64)",
        "m.from_numpy(np.array([1, 2], dtype=np.uint32))", "m.tensor(np.array([5], dtype=np.uint64))",
        "m.as_tensor(np.array([[1, 2]], dtype=np.uint16))", "m.tensor([1.5, 2.7]).to(m.uint16)",
        "m.tensor([70000], dtype=m.uint32).long()", "m.tensor([7], dtype=m.uint64).float()", "m.tensor([7], dtype=m.uint16).double()",
        "m.tensor([1, 2], dtype=m.uint16).to(m.uint32)", "m.tensor([1, 2], dtype=m.uint16).numpy().dtype.name",
        "m.tensor([1, 2], dtype=m.uint16).tolist()", "m.tensor([4], dtype=m.uint64).item()", "m.tensor([1, 2], dtype=m.uint16).type()",
        "repr(m.tensor([[1, 70000]], dtype=m.uint32)).replace('glassgrad.', 'torch.')",
        "[m.ones(1, dtype=d).is_signed() for d in (m.uint16, m.uint32, m.uint64)]",
        "[(d.is_signed, d.is_floating_point, d.itemsize) for d in (m.uint16, m.uint32, m.uint64)]",
        "[repr(m.iinfo(d)) for d in (m.uint16, m.uint32, m.uint64)]", "[m.iinfo(d).max for d in (m.uint16, m.uint32, m.uint64)]",
        "m.promote_types(m.uint16, m.float16)", "m.promote_types(m.float64, m.uint64)", "m.promote_types(m.uint32, m.uint32)",
        "m.promote_types(m.uint64, m.int64)", "m.promote_types(m.uint16, m.uint8)", "m.promote_types(m.bool, m.uint32)",
        "m.promote_types(m.uint32, m.complex64)",
        "[m.can_cast(m.uint16, m.int8), m.can_cast(m.float32, m.uint32), m.can_cast(m.uint64, m.float16)]",
        "m.from_numpy(np.array([object()]))",
    )
]
x, y = "m.tensor([1, 2, 3], dtype=m.uint16)", "m.tensor([3, 1, 2], dtype=m.uint16)"
ARITHMETIC = [
    expression(source.format(x=x, y=y))
    for source in (
        "{x} * {y}", "{x} * 2", "{x} / {y}", "{x} + 1.5", "{x} - 1.5", "{x} * m.tensor([1.5])", "{x}.sqrt()",
        "{x} == {y}", "{x} != 2", "{x} & {y}", "{x} | {y}", "{x} ^ {y}", "{x}.sum()", "{x}.prod()", "{x}.cumsum(0)",
        "{x}.sort().values", "{x}.clone()", "m.cat([{x}, {y}])", "m.stack([{x}, {y}])", "{x}[m.tensor([0, 2])]",
        "{x}.reshape(3, 1)", "{x}.repeat(2)", "{x}.roll(1)", "{x}.any()", "{x}.isnan()",
        "m.where(m.tensor([True, False, True]), {x}, {y})", "{x}.clone().fill_(3)", "{x}.clone().zero_()",
        "{x} + {y}", "{x} + 1", "1 + {x}", "m.add(1, {x})", "{x} - {y}", "1 - {x}", "{x}.sub(1, alpha=2)", "-{x}", "{x}.abs()",
        "{x} < {y}", "{x} <= 2", "{x} > {y}", "{x} >= {y}", "{x}.max()", "{x}.min()", "{x}.max(0)", "{x}.min(dim=0)",
        "{x}.mean()", "m.arange(3, dtype=m.uint16)", "m.arange(0, 3, 1, dtype=m.uint64)",
        "{x} + m.tensor([1], dtype=m.int16)", "{x} * m.tensor([True])", "{x} * m.tensor([1], dtype=m.uint32)",
        "{x} * m.tensor([1j])", "{x}.add_({y})", "{x}.mul_(2)",
        "{x}.argmax()", "{x}.argmin(0)", "{x}.amax()", "{x}.amin(0)", "m.maximum({x}, {y})", "m.minimum({x}, {y})",
        "m.fmax({x}, {y})", "m.fmin({x}, {y})", "{x}.clamp(min=1)", "{x}.clamp(1, 2)", "{x}.clamp(max=2)",
        "{x}.clamp(max=m.tensor(2, dtype=m.uint16))", "{x}.clamp(min=m.tensor(2, dtype=m.uint16))", "{x} << {y}", "{x} >> 1", "~{x}",
        "{x}.pow({y})", "{x} ** 2", "2 ** {x}", "{x} // {y}", "{x}.div({y}, rounding_mode='floor')", "{x} % {y}",
        "{x}.fmod(2)", "{x}.flip(0)", "{x}.reshape(1, 3).fliplr()", "{x}.floor()", "{x}.argsort()",
    )
]


@pytest.mark.parametrize("snippet", CASES + ARITHMETIC)
def test_outcome_matches_torch(snippet) -> None:
    assert_same_outcome(snippet)


def test_mean_names_the_dtype_as_pytorch_does() -> None:
    assert_same_outcome(lambda m: m.ones(2, dtype=m.int64).mean())


HASHES = [
    expression(source)
    for source in (
        "m.hash_tensor(m.arange(6.0).reshape(2, 3), 1)", "m.hash_tensor(m.tensor([-1, 2]))", "m.hash_tensor(m.tensor([-0.0]))",
        "m.hash_tensor(m.tensor([1.5], dtype=m.float16))", "m.hash_tensor(m.tensor([-1], dtype=m.int8))",
        "m.hash_tensor(m.tensor([True, True, False]))", "m.zeros(3, 0).hash_tensor(dim=0)", "m.zeros(0, 3).hash_tensor(dim=0)",
        "m.zeros(0).hash_tensor()", "m.hash_tensor(m.tensor([7], dtype=m.uint16))", "m.hash_tensor(m.ones(2), mode=1)",
        "m.ones(2, 3).hash_tensor(dim=[1], keepdim=True)", "m.zeros(2, 0).amax(1)",
    )
]


@pytest.mark.parametrize("snippet", HASHES)
def test_hash_tensor_matches_torch(snippet) -> None:
    # hash_tensor's result is uint64, the one op here that makes one from other dtypes
    assert_same_outcome(snippet)


@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64"])
def test_checkpoints_cross_load_both_ways_as_pytorch_writes_them(name: str, tmp_path) -> None:
    values = [1, 2, 60000]
    glassgrad.save({"u": glassgrad.tensor(values).to(getattr(glassgrad, name))}, tmp_path / "ours.pt")
    torch.save({"u": torch.tensor(values).to(getattr(torch, name))}, tmp_path / "theirs.pt")
    theirs = torch.load(tmp_path / "ours.pt", weights_only=True)["u"]
    ours = glassgrad.load(tmp_path / "theirs.pt", weights_only=True)["u"]
    assert theirs.dtype is getattr(torch, name) and theirs.tolist() == values
    assert ours.dtype is getattr(glassgrad, name) and ours.tolist() == values
