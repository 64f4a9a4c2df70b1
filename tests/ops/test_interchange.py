"""asarray, frombuffer, DLPack, empty_strided/empty_permuted and tril/triu_indices against PyTorch 2.13.

Values, dtypes and errors (type and first sentence) are compared call by call; memory sharing is checked
by writing through one side and reading the other, in both libraries.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from ..outcome import assert_same_outcome, expression, statements
from .outcome import describe

pytestmark = pytest.mark.torch_oracle

CALLS = [
    expression(source, np=np)
    for source in (
        # asarray: what it makes of each kind of object
        "m.asarray([1, 2])", "m.asarray([1.0, 2])", "m.asarray((1, 2.5))", "m.asarray(3.5)", "m.asarray(True)",
        "m.asarray([True, False])", "m.asarray(1 + 2j)", "m.asarray(range(3))", "m.asarray(np.array([1, 2], dtype=np.int32))",
        "m.asarray(np.float32(2.5))", "m.asarray(np.int32(2))", "m.asarray([1, 2], dtype=m.float64)",
        "m.asarray(2, dtype=m.float64)", "m.asarray(m.ones(2), dtype=m.int64)", "m.asarray(np.ones(2), dtype=m.float32)",
        "m.asarray(bytearray(b'abcd'))", "m.asarray(bytearray(8), dtype=m.int32)",
        "m.asarray(bytearray(8), dtype=m.int32, copy=True)", "m.asarray(memoryview(bytearray(8)), dtype=m.uint8)",
        "m.asarray([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).requires_grad", "m.asarray(np.ones(2), requires_grad=True).is_leaf",
        "m.asarray(np.ones(2)[::2], copy=False).stride()",
        # asarray: what it refuses
        "m.asarray('ab')", "m.asarray(None)", "m.asarray([1, 2], copy=False)", "m.asarray(2.5, copy=False)",
        "m.asarray(np.float64(2.5), copy=False)", "m.asarray(np.ones(2), copy=False, dtype=m.float32)",
        "m.asarray(m.ones(2), copy=False, dtype=m.float64)", "m.asarray([1, 2], requires_grad=True)",
        "m.asarray(m.ones(2, dtype=m.int64), requires_grad=True)", "m.asarray(np.ones(2).astype('>f8'))",
        "m.asarray(np.ones(2), device='cuda')", "m.asarray(m.ones(2), device='cuda')",
        # frombuffer
        "m.frombuffer(bytearray(b'\\x01\\x00\\x00\\x00\\x02\\x00\\x00\\x00'), dtype=m.int32)",
        "m.frombuffer(bytearray(8), dtype=m.float32, count=1, offset=4)",
        "m.frombuffer(bytearray(8), dtype=m.float32, requires_grad=True).requires_grad",
        "m.frombuffer(bytearray(8), dtype=m.float32, count=3)", "m.frombuffer(bytearray(7), dtype=m.float32)",
        "m.frombuffer(bytearray(8), dtype=m.float32, offset=9)", "m.frombuffer(bytearray(8), dtype=m.float32, offset=-1)",
        "m.frombuffer(bytearray(0), dtype=m.float32)", "m.frombuffer(bytearray(8), dtype=m.float32, count=0)",
        "m.frombuffer([1, 2], dtype=m.float32)", "m.frombuffer(bytearray(8), dtype=m.int64, requires_grad=True)",
        # DLPack
        "m.from_dlpack(np.arange(3.0))", "m.from_dlpack(m.to_dlpack(m.arange(4)))", "m.to_dlpack(np.ones(2))",
        "m.from_dlpack(m.ones(2, requires_grad=True))", "m.from_dlpack(m.ones(2)).requires_grad",
        "m.ones(2).__dlpack_device__()[1]", "m.ones(2, requires_grad=True).__dlpack__()",
        "np.from_dlpack(m.arange(3.0)).tolist()",
        # empty_strided, empty_permuted: only the layout of uninitialised memory is comparable
        "m.empty_strided((2, 3), (1, 2)).stride()", "m.empty_strided((2, 3), (1, 2)).shape",
        "m.empty_strided([2, 3], [3, 1], dtype=m.float64).dtype", "m.empty_strided((2, 3), (0, 0)).stride()",
        "m.empty_strided((2, 0), (5, 7)).stride()", "m.empty_strided((), ()).shape",
        "m.empty_strided((2, 3), (3, 1), requires_grad=True).requires_grad", "m.empty_strided((2, 3), (1,))",
        "m.empty_strided((2, 3), (-1, 1))", "m.empty_strided((2, -3), (3, 1))", "m.empty_strided(2, 1)",
        "m.empty_strided((2, 3), (1.5, 1))", "m.empty_strided([2, 3], [3, 1], requires_grad=True, dtype=m.int64)",
        "m.empty_permuted((2, 3, 4), (2, 0, 1)).stride()", "m.empty_permuted((2, 3, 4), (2, 0, 1)).shape",
        "m.empty_permuted([2, 3], [1, 0]).stride()", "m.empty_permuted((2, 3, 4), (0, 1, 2), dtype=m.int32).dtype",
        "m.empty_permuted((2, 3), (1, 0), requires_grad=True).requires_grad", "m.empty_permuted((2, 3, 4), (0, 1))",
        "m.empty_permuted((2, 3, 4), (0, 1, 1))", "m.empty_permuted((2, 3), (1, 2))", "m.empty_permuted((2, 3), (1, -1))",
        "m.empty_permuted((2, -3), (1, 0))",
        # tril_indices, triu_indices
        "m.tril_indices(3, 3)", "m.tril_indices(3, 4, 1)", "m.tril_indices(3, 4, -1)", "m.triu_indices(3, 4, 1)",
        "m.triu_indices(4, 3, -2)", "m.triu_indices(0, 3)", "m.tril_indices(3, 3, offset=5)", "m.tril_indices(3, 3, offset=-5)",
        "m.tril_indices(row=2, col=2)", "m.tril_indices(3, 3, dtype=m.int32)", "m.tril_indices(3, 3, dtype=m.float32)",
        "m.triu_indices(3, 3, dtype=m.uint8)", "m.tril_indices(-1, 3)", "m.tril_indices(3, -1)", "m.tril_indices(3.0, 3)",
        "m.tril_indices(3, 3, 1.0)", "m.tril_indices(3, 3, requires_grad=True)", "m.tril_indices(3, 3, device='cuda')",
    )
]

# PyTorch warns once per process (that requires_grad now follows the tensor's, that a buffer is read-only), so
# whether its warning shows depends on the order the tests run in: these compare values and errors only.
TENSOR_CALLS = [
    statements(source)
    for source in (
        "r = m.asarray(b'abcd')", "r = m.frombuffer(b'abcd', dtype=m.uint8)",
        "x = m.ones(2)\nr = [m.asarray(x) is x, m.asarray(x, copy=False) is x, m.asarray(x, dtype=m.float32) is x, "
        "m.asarray(x, copy=True) is x, m.asarray(x, device='cpu') is x]",
        "x = m.ones(2, requires_grad=True)\ny = m.asarray(x, requires_grad=False)\nr = (y is x, x.requires_grad)",
        "x = m.ones(2)\ny = m.asarray(x, requires_grad=True)\nr = (y is x, x.requires_grad, y.is_leaf)",
        "y = m.ones(2, requires_grad=True) * 2\nz = m.asarray(y)\nr = (z is y, z.requires_grad)",
        "y = m.ones(2, requires_grad=True) * 2\nz = m.asarray(y, requires_grad=False)\n"
        "r = (z is y, z.requires_grad, z.grad_fn is None, y.requires_grad)",
        "y = m.ones(2, requires_grad=True) * 2\nz = m.asarray(y, requires_grad=True)\nr = z is y",
        "x = m.ones(2, requires_grad=True)\nz = m.asarray(x, dtype=m.float64)\nz.sum().backward()\nr = (z.is_leaf, x.grad)",
        "x = m.ones(2, requires_grad=True)\nz = m.asarray(x, copy=True)\n(z * 3).sum().backward()\nr = (z.is_leaf, x.grad)",
        "x = m.ones(2, requires_grad=True)\nz = m.asarray(x, copy=True, requires_grad=False)\nr = (z.is_leaf, z.requires_grad)",
        "x = m.ones(2)\nz = m.asarray(x, copy=True, requires_grad=True)\nr = (z.is_leaf, z.requires_grad, x.requires_grad)",
        "x = m.ones(2)\nz = m.asarray(x, dtype=m.float64, requires_grad=True)\nr = (z.is_leaf, z.requires_grad, x.requires_grad)",
    )
]


@pytest.mark.parametrize("snippet", CALLS)
def test_call_matches_torch(snippet: Any) -> None:
    assert_same_outcome(snippet)


@pytest.mark.parametrize("snippet", TENSOR_CALLS)
def test_asarray_of_a_tensor_aliases_copies_and_detaches_like_torch(snippet: Any) -> None:
    assert_same_outcome(snippet, compare_warnings=False)


def test_asarray_of_a_grad_requiring_tensor_warns_that_requires_grad_follows_it() -> None:
    with pytest.warns(UserWarning, match="unspecified requires_grad now defaults to obj.requires_grad"):
        glassgrad.asarray(glassgrad.ones(2, requires_grad=True))


def test_a_read_only_buffer_warns_and_stays_read_only() -> None:
    with pytest.warns(UserWarning, match="^The given buffer is not writable"):
        made = glassgrad.frombuffer(b"abcd", dtype=glassgrad.uint8)
    with pytest.raises(ValueError, match="read-only"):
        made.add_(1)


@pytest.mark.parametrize(
    ("label", "make"),
    [
        ("asarray", lambda m, a: m.asarray(a)),
        ("asarray_copy_false", lambda m, a: m.asarray(a, copy=False)),
        ("asarray_copy_true", lambda m, a: m.asarray(a, copy=True)),
        ("asarray_same_dtype", lambda m, a: m.asarray(a, dtype=m.float64)),
        ("asarray_other_dtype", lambda m, a: m.asarray(a, dtype=m.float32)),
        ("from_dlpack", lambda m, a: m.from_dlpack(a)),
    ],
)
def test_memory_is_shared_with_a_numpy_array_where_torch_shares_it(label: str, make: Any) -> None:
    def shares(m: Any) -> bool:
        a = np.zeros(3)
        make(m, a)[0] = 5
        return bool(a[0] == 5)

    assert shares(glassgrad) == shares(torch)


@pytest.mark.parametrize(
    ("label", "make"),
    [
        ("frombuffer", lambda m, b: m.frombuffer(b, dtype=m.uint8, offset=2)),
        ("asarray", lambda m, b: m.asarray(b, dtype=m.uint8)),
        ("asarray_copy", lambda m, b: m.asarray(b, dtype=m.uint8, copy=True)),
    ],
)
def test_memory_is_shared_with_a_bytearray_where_torch_shares_it(label: str, make: Any) -> None:
    def shares(m: Any) -> int:
        buffer = bytearray(6)
        make(m, buffer)[0] = 7
        return buffer.index(7) if 7 in buffer else -1

    assert shares(glassgrad) == shares(torch)


def test_dlpack_round_trips_between_glassgrad_numpy_and_torch_sharing_memory() -> None:
    values = np.arange(6.0).reshape(2, 3)
    ours = glassgrad.from_dlpack(torch.from_dlpack(values.copy()))  # numpy -> torch -> glassgrad
    theirs = torch.from_dlpack(ours)  # glassgrad -> torch, through Tensor.__dlpack__
    capsule = glassgrad.from_dlpack(torch.to_dlpack(theirs))  # torch's capsule -> glassgrad
    back = torch.from_dlpack(glassgrad.to_dlpack(capsule))  # glassgrad's capsule -> torch
    np.testing.assert_array_equal(back.numpy(), values)
    back[0, 0] = -1.0  # one buffer all the way round
    assert ours[0, 0].item() == theirs[0, 0].item() == capsule[0, 0].item() == -1.0
    assert describe(glassgrad.from_dlpack(np.from_dlpack(ours))) == describe(torch.from_dlpack(np.from_dlpack(theirs)))


def test_a_dlpack_capsule_is_consumed_once_like_torch() -> None:
    def second_use(m: Any) -> str:
        capsule = m.to_dlpack(m.ones(2))
        m.from_dlpack(capsule)
        with pytest.raises(RuntimeError, match=r"^from_dlpack received an invalid capsule") as raised:
            m.from_dlpack(capsule)
        return type(raised.value).__name__

    assert second_use(glassgrad) == second_use(torch)
