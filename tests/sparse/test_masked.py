"""torch.masked against PyTorch 2.13: each reduction and normalization with `mask=` (values, gradients, dims,
keepdim, dtypes, fully masked-out slices) and the MaskedTensor basics glassgrad has."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

DATA = np.array([[0.5, -1.0, 2.0, 0.25], [1.5, 3.0, -0.5, 1.0], [-2.0, 0.75, 1.25, -0.125]])
MASK = np.array([[True, False, True, True], [False, False, False, False], [True, True, True, False]])
ROW_MASK = np.array([True, False, True, True])  # broadcast over the rows


def run(m: Any, op: str, *args: Any, mask: Any = MASK, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
    """op's value and the gradient of a weighted sum of it (nan-free weights), on m."""
    x = m.tensor(DATA, requires_grad=True)
    out = getattr(m.masked, op)(x, *args, mask=None if mask is None else m.tensor(mask), **kwargs)
    if out.requires_grad:  # argmax and argmin have no gradient
        finite = m.where(m.isfinite(out), out, m.zeros_like(out))
        (finite * m.arange(1, out.numel() + 1, dtype=out.dtype).reshape(out.shape)).sum().backward()
    grad = x.grad if x.grad is not None else m.zeros(1)
    return out.detach().numpy(), grad.numpy()


CASES = [
    ("sum", (), {}), ("sum", (1,), {}), ("sum", ((0, 1),), {"keepdim": True}), ("sum", (0,), {"mask": ROW_MASK}),
    ("sum", (1,), {"mask": None}), ("sum", (1,), {"dtype": torch.float32}),
    ("prod", (1,), {}), ("prod", (), {"keepdim": True}),
    ("amax", (1,), {}), ("amin", (0,), {"keepdim": True}), ("amax", (), {}),
    ("argmax", (1,), {}), ("argmin", (0,), {}),
    ("mean", (1,), {}), ("mean", (), {}), ("mean", (0,), {"mask": ROW_MASK}), ("mean", (1,), {"mask": None}),
    ("norm", (2.0, 1), {}), ("norm", (1.0,), {}), ("norm", (float("inf"), 0), {}), ("norm", (float("-inf"), 1), {}),
    ("var", (1,), {}), ("var", (1,), {"unbiased": False}), ("std", (0,), {"correction": 0}), ("std", (), {}),
    ("var", (1,), {"keepdim": True, "mask": None}),
    ("logsumexp", (1,), {}), ("logsumexp", (0,), {"keepdim": True}),
    ("softmax", (1,), {}), ("log_softmax", (0,), {}), ("softmin", (1,), {}), ("softmax", (-1,), {"mask": ROW_MASK}),
    ("cumsum", (1,), {}), ("cumprod", (0,), {}),
    ("normalize", (2.0, 1), {}), ("normalize", (1.0, 0), {"eps": 0.5}),
]


@pytest.mark.parametrize(("op", "args", "kwargs"), CASES, ids=[f"{op}{args}{kwargs}" for op, args, kwargs in CASES])
def test_masked_ops_match_torch(op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    mine_kwargs = {k: getattr(glassgrad, str(v).split(".")[-1]) if isinstance(v, torch.dtype) else v for k, v in kwargs.items()}
    mine, theirs = run(glassgrad, op, *args, **mine_kwargs), run(torch, op, *args, **kwargs)
    for a, b in zip(mine, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


PROTOTYPE = "ignore:The PyTorch API of MaskedTensors is in prototype stage"


@pytest.mark.filterwarnings(PROTOTYPE)
@pytest.mark.parametrize(
    "build",
    [
        lambda m: m.masked.sum(m.ones(2, 2), mask=m.ones(3, 2, 2, dtype=m.bool)),
        lambda m: m.masked.mean(m.arange(4), mask=m.ones(4, dtype=m.bool)),
        lambda m: m.masked.sum(m.ones(2, 2), (0, 0), mask=m.ones(2, 2, dtype=m.bool)),
        lambda m: m.masked.sum(m.ones(2, 2), 2, mask=m.ones(2, 2, dtype=m.bool)),
        lambda m: m.masked.masked_tensor(m.ones(2), m.ones(2)),
        lambda m: m.masked.masked_tensor(m.ones(2, 2), m.ones(2, dtype=m.bool)),
        lambda m: m.masked.masked_tensor(m.ones(2), m.tensor([True, False])) + m.masked.masked_tensor(
            m.ones(2), m.tensor([False, True])),
    ],
)
def test_errors_match_torch(build: Any) -> None:
    with pytest.raises(Exception) as theirs:
        build(torch)
    with pytest.raises(type(theirs.value)) as mine:
        build(glassgrad)
    assert str(mine.value).split("\n")[0].replace("glassgrad.", "torch.") == str(theirs.value).split("\n")[0]


def test_integer_sums_promote_to_int64() -> None:
    for m in (torch, glassgrad):
        out = m.masked.sum(m.tensor([[1, 2], [3, 4]], dtype=m.int32), 1, mask=m.tensor([[True, False], [True, True]]))
        assert out.tolist() == [1, 7] and str(out.dtype).endswith("int64")


def masked(m: Any, **kwargs: Any) -> Any:
    return m.masked.masked_tensor(m.tensor(DATA[:2, :3]), m.tensor(MASK[[0, 2], :3]), **kwargs)


@pytest.mark.filterwarnings(PROTOTYPE)
@pytest.mark.parametrize(
    "build",
    [
        lambda m: masked(m),
        lambda m: masked(m).sum(),
        lambda m: masked(m).sum(0),
        lambda m: masked(m).amax(1),
        lambda m: masked(m).mean(),
        lambda m: masked(m) * 2,
        lambda m: masked(m) / 4,
        lambda m: masked(m) + masked(m),
        lambda m: masked(m).exp(),
        lambda m: m.masked.masked_tensor(m.tensor([1, 2, 3]), m.tensor([True, False, True])),
        lambda m: m.masked.masked_tensor(m.tensor(2.5), m.tensor(False)),
    ],
)
def test_masked_tensor_prints_as_torchs(build: Any) -> None:
    assert repr(build(glassgrad)) == repr(build(torch))


@pytest.mark.filterwarnings(PROTOTYPE)
@pytest.mark.filterwarnings("ignore:It is not recommended to create a MaskedTensor with a tensor that requires_grad")
def test_masked_tensor_gradient_and_conversion() -> None:
    results = []
    for m in (torch, glassgrad):
        mt = masked(m, requires_grad=True)
        (mt * mt).sum().backward()
        assert m.masked.is_masked_tensor(mt.grad) and mt.is_leaf and mt.requires_grad
        results.append((repr(mt.grad), mt.to_tensor(-1.0).detach().numpy(), mt.get_mask().numpy(), tuple(mt.shape)))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])
    np.testing.assert_array_equal(results[0][2], results[1][2])
    assert results[0][3] == results[1][3]
