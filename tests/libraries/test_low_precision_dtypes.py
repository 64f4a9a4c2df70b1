"""bfloat16 and the float8 family against PyTorch: names, promotion, limits, conversions, arithmetic, printing."""

from __future__ import annotations

import itertools
import math
import pickle
import subprocess
import sys

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


# -- through the library: creation, conversion to Python and NumPy, autograd, optimizers, checkpoints ----------------
def as_float(t: glassgrad.Tensor | torch.Tensor) -> np.ndarray:
    return t.detach().float().numpy()


def bf16_close(ours: glassgrad.Tensor, theirs: torch.Tensor, rtol: float = 2e-2, atol: float = 1e-2) -> None:
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_allclose(as_float(ours), as_float(theirs), rtol=rtol, atol=atol)


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.tensor([1.5, -2.0]).bfloat16(),
        lambda m: m.tensor([1.5, -2.0]).half(),
        lambda m: m.tensor([1.5, -2.0]).to(m.bfloat16),
        lambda m: m.tensor([1.5, -2.0], dtype=m.bfloat16),
        lambda m: m.zeros(2, 3, dtype=m.bfloat16),
        lambda m: m.ones(2, dtype=m.bfloat16),
        lambda m: m.full((2,), 0.1, dtype=m.bfloat16),
        lambda m: m.arange(4, dtype=m.bfloat16),
    ],
)
def test_factories_and_conversions_make_the_dtype_and_values_pytorch_does(make) -> None:
    ours, theirs = make(glassgrad), make(torch)
    assert ours.is_floating_point() and ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(as_float(ours), as_float(theirs))
    assert ours.tolist() == theirs.tolist()


def test_randn_in_bfloat16_has_the_dtype() -> None:
    assert glassgrad.randn(3, dtype=glassgrad.bfloat16).dtype is glassgrad.bfloat16


def test_item_and_tolist_give_python_floats() -> None:
    ours, theirs = glassgrad.tensor([0.1, 3.0]).bfloat16(), torch.tensor([0.1, 3.0]).bfloat16()
    assert type(ours[0].item()) is float and ours[0].item() == theirs[0].item()
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn"])
def test_numpy_refuses_the_dtype_as_pytorch_does(name: str) -> None:
    with pytest.raises(TypeError) as theirs:
        torch.zeros(2, dtype=getattr(torch, name)).numpy()
    with pytest.raises(TypeError) as ours:
        glassgrad.zeros(2, dtype=getattr(glassgrad, name)).numpy()
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(TypeError, match=str(theirs.value)):
        np.asarray(glassgrad.zeros(2, dtype=getattr(glassgrad, name)))


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2"])
def test_a_low_precision_leaf_may_require_grad(name: str) -> None:
    assert glassgrad.zeros(2, dtype=getattr(glassgrad, name)).requires_grad_().requires_grad
    assert glassgrad.zeros(2, dtype=getattr(glassgrad, name), requires_grad=True).requires_grad


@pytest.mark.parametrize("other", ["float16", "float32", "int64", "bool"])
def test_bfloat16_with_tensors_of_other_dtypes_promotes_as_pytorch(other: str) -> None:
    def result(m):
        return (m.ones(2, dtype=m.bfloat16) + m.ones(2, dtype=getattr(m, other))).dtype

    assert result(glassgrad).name == str(result(torch)).removeprefix("torch.")


@pytest.mark.parametrize("other", ["float32", "float64"])
def test_a_product_of_mixed_dtypes_is_refused_in_pytorchs_words(other: str) -> None:
    def product(m):
        return m.nn.functional.linear(m.ones(2, 2, dtype=m.bfloat16), m.ones(2, 2, dtype=getattr(m, other)))

    with pytest.raises(RuntimeError) as theirs:
        product(torch)
    with pytest.raises(RuntimeError) as ours:
        product(glassgrad)
    assert str(ours.value) == str(theirs.value)


def test_a_long_sum_accumulates_in_float32_as_pytorchs_does() -> None:
    ours, theirs = glassgrad.full((4096,), 0.1, dtype=glassgrad.bfloat16), torch.full((4096,), 0.1, dtype=torch.bfloat16)
    for op in (lambda t: t.sum(), lambda t: t.mean(), lambda t: t.view(64, 64).sum(0)):
        got, want = op(ours), op(theirs)
        assert got.dtype is glassgrad.bfloat16
        np.testing.assert_array_equal(as_float(got), as_float(want))


def pair(values: np.ndarray) -> tuple[glassgrad.Tensor, torch.Tensor]:
    """The same bfloat16 leaf, requiring grad, in both libraries."""
    theirs = torch.tensor(values).bfloat16().requires_grad_()
    return glassgrad.tensor(values).bfloat16().requires_grad_(), theirs


def test_gradients_flow_in_bfloat16_through_matmul_softmax_and_reductions() -> None:
    rng = np.random.default_rng(0)
    (a, ta), (b, tb) = pair(rng.standard_normal((4, 8), np.float32)), pair(rng.standard_normal((8, 5), np.float32))

    def loss(m, x, y):
        return (m.softmax(x @ y, dim=-1) * m.arange(5.0).bfloat16()).sum() + (x.exp() * 0.5).mean()

    ours, theirs = loss(glassgrad, a, b), loss(torch, ta, tb)
    bf16_close(ours, theirs)
    ours.backward()
    theirs.backward()
    bf16_close(a.grad, ta.grad)
    bf16_close(b.grad, tb.grad)
    assert (a @ b).grad_fn is not None


def weight(m, *shape: int):
    return m.linspace(-1, 1, math.prod(shape)).view(shape).bfloat16()


OPS = {
    "linear": lambda m, x: m.nn.functional.linear(x, weight(m, 5, 4), weight(m, 5)),
    "conv1d": lambda m, x: m.nn.functional.conv1d(x, weight(m, 2, 3, 2)),
    "conv_transpose1d": lambda m, x: m.nn.functional.conv_transpose1d(x, weight(m, 3, 2, 2)),
    "einsum": lambda m, x: m.einsum("bij,bkj->bik", x, x),
    "bmm": lambda m, x: m.bmm(x, x.transpose(1, 2)),
    "layer_norm": lambda m, x: m.nn.functional.layer_norm(x, (4,), weight(m, 4), weight(m, 4)),
    "gelu": lambda m, x: m.nn.functional.gelu(x, approximate="tanh"),
    "attention": lambda m, x: m.nn.functional.scaled_dot_product_attention(x, x, x, is_causal=True),
    "log_softmax": lambda m, x: m.log_softmax(x, 1),
    "cumsum": lambda m, x: x.cumsum(2),
    "var": lambda m, x: x.var(1),
    "norm": lambda m, x: x.norm(dim=2),
    "sort": lambda m, x: x.sort(2).values,
    "max_pool1d": lambda m, x: m.nn.functional.max_pool1d(x, 2),
    "clamp": lambda m, x: x.clamp(-0.5, 0.5),
}


@pytest.mark.parametrize("op", OPS.values(), ids=OPS.keys())
def test_ops_keep_bfloat16_and_pytorchs_values_and_gradients(op) -> None:
    x, tx = pair(np.random.default_rng(2).standard_normal((2, 3, 4), np.float32))
    ours, theirs = op(glassgrad, x), op(torch, tx)
    bf16_close(ours, theirs)
    ours.square().sum().backward()
    theirs.square().sum().backward()
    bf16_close(x.grad, tx.grad, atol=3e-2)


def test_a_module_converts_to_bfloat16() -> None:
    model = glassgrad.nn.Sequential(glassgrad.nn.Embedding(5, 4), glassgrad.nn.LayerNorm(4)).bfloat16()
    assert {p.dtype for p in model.parameters()} == {glassgrad.bfloat16}


def mlp(m, state: dict | None = None):
    m.manual_seed(0)
    model = m.nn.Sequential(m.nn.Linear(6, 16), m.nn.ReLU(), m.nn.Linear(16, 3))
    if state is not None:
        model.load_state_dict(state)
    return model.to(m.bfloat16)


@pytest.mark.parametrize(
    "optimizer",
    [
        lambda m, params: m.optim.SGD(params, lr=0.1, momentum=0.9),
        lambda m, params: m.optim.AdamW(params, lr=0.01, weight_decay=0.1),
    ],
    ids=["SGD", "AdamW"],
)
def test_a_bfloat16_mlp_trains_as_pytorchs(optimizer) -> None:
    theirs = mlp(torch)
    ours = mlp(glassgrad, {k: glassgrad.tensor(v.numpy()) for k, v in mlp(torch).float().state_dict().items()})
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((8, 6), np.float32), rng.integers(0, 3, 8)
    runs = []
    for m, model in ((glassgrad, ours), (torch, theirs)):
        opt = optimizer(m, model.parameters())
        inputs, labels = m.tensor(x).bfloat16(), m.tensor(y)
        losses = []
        for _ in range(4):
            opt.zero_grad()
            loss = m.nn.functional.cross_entropy(model(inputs), labels)
            loss.backward()
            opt.step()
            losses.append(loss)
        runs.append((losses, model, opt))
    (our_losses, ours, our_opt), (their_losses, theirs, their_opt) = runs
    for mine, expected in zip(our_losses, their_losses, strict=True):
        bf16_close(mine, expected)
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters(), strict=True):
        assert p.grad.dtype is glassgrad.bfloat16, name
        bf16_close(p, q)
    our_state, their_state = our_opt.state_dict()["state"][0], their_opt.state_dict()["state"][0]
    assert {k: v.dtype.name for k, v in our_state.items()} == {
        k: str(v.dtype).removeprefix("torch.") for k, v in their_state.items()
    }


def checkpoint(m) -> dict:
    values = m.tensor([0.1, -2.5, 3e4, 1e-3])
    return {"bf16": values.bfloat16(), "half": values.half(), "f8": values.to(m.float8_e4m3fn),
            "state": mlp(m).state_dict()}


def same_bytes(ours: glassgrad.Tensor, theirs: torch.Tensor) -> None:
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    assert ours.detach()._data.tobytes() == theirs.detach().view(torch.uint8).numpy().tobytes()


def test_low_precision_checkpoints_round_trip_and_cross_load_both_ways(tmp_path) -> None:
    ours, theirs = checkpoint(glassgrad), checkpoint(torch)
    glassgrad.save(ours, tmp_path / "ours.pt")
    torch.save(theirs, tmp_path / "theirs.pt")
    for loaded in (glassgrad.load(tmp_path / "ours.pt"), glassgrad.load(tmp_path / "theirs.pt", weights_only=True)):
        for key in ("bf16", "half", "f8"):
            same_bytes(loaded[key], theirs[key])
        assert loaded["state"]["0.weight"].dtype is glassgrad.bfloat16
    from_ours = torch.load(tmp_path / "ours.pt", weights_only=True)
    for key in ("bf16", "half", "f8"):
        same_bytes(ours[key], from_ours[key])
    assert from_ours["state"]["2.bias"].dtype is torch.bfloat16


SAFETENSORS = """
import torch
from safetensors.torch import load_file, save_file
save_file({"w": torch.arange(6.0).view(2, 3).bfloat16() / 3, "h": torch.ones(2).half() / 3}, "ours.safetensors")
back = load_file("theirs.safetensors")
assert back["w"].dtype is torch.bfloat16, back["w"].dtype
torch.save({k: v.float() for k, v in back.items()}, "read.pt")
"""


def test_safetensors_writes_and_reads_bfloat16_through_glassgrad(tmp_path) -> None:
    safetensors = pytest.importorskip("safetensors.torch")
    theirs = {"w": torch.arange(6.0).view(2, 3).bfloat16() / 3, "h": torch.ones(2).half() / 3}
    safetensors.save_file(theirs, tmp_path / "theirs.safetensors")
    (tmp_path / "script.py").write_text(SAFETENSORS)
    result = subprocess.run(
        [sys.executable, "-m", "glassgrad.cli", "run", "script.py"], capture_output=True, text=True, timeout=120,
        check=False, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    written = safetensors.load_file(tmp_path / "ours.safetensors")
    for key, t in theirs.items():
        assert written[key].dtype == t.dtype and torch.equal(written[key], t), key
        np.testing.assert_array_equal(torch.load(tmp_path / "read.pt")[key].numpy(), t.float().numpy())
