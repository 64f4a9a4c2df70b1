"""CPU autocast as PyTorch's: which ops compute in bfloat16 or float32, the values, the gradients' dtypes, per thread."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

RNG = np.random.default_rng(3)
A, W, T, IMAGES, BATCH = (
    RNG.standard_normal(shape).astype(np.float32) for shape in ((3, 4), (5, 4), (3, 5), (2, 3, 4, 4), (2, 4, 3, 3))
)


def _region(m: Any, dtype_name: str) -> dict[str, Any]:
    a, w = m.tensor(A, requires_grad=True), m.tensor(W, requires_grad=True)
    images = m.tensor(IMAGES)
    with m.autocast("cpu", dtype=getattr(m, dtype_name)):
        out = {
            "linear": m.nn.functional.linear(a, w), "matmul": a @ w.T, "mm": m.mm(a, w.T),
            "conv2d": m.nn.functional.conv2d(images, m.ones(2, 3, 3, 3)),
            "mse_loss": m.nn.functional.mse_loss(m.nn.functional.linear(a, w), m.tensor(T)),
            "cat": m.cat([a, a.double()]), "add": a + 1, "double_mm": m.mm(a.double(), w.double().T),
            "enabled": m.is_autocast_enabled("cpu"), "dtype": str(m.get_autocast_dtype("cpu")).split(".")[-1],
        }
        with m.autocast("cpu", enabled=False):
            out["disabled_mm"] = m.mm(a, w.T)
    out["after"] = m.is_autocast_enabled("cpu")
    (out["linear"].float().sum() + out["mse_loss"]).backward()
    out["grads"] = [a.grad, w.grad]
    return out


def _described(value: Any) -> Any:
    if isinstance(value, list):
        return [_described(v) for v in value]
    if hasattr(value, "dtype") and not isinstance(value, str):
        return str(value.dtype).split(".")[-1], np.asarray(value.detach().float().numpy(), dtype=np.float64).round(5).tolist()
    return value


@pytest.mark.torch_oracle
@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
def test_cpu_autocast_gives_pytorchs_dtypes_values_and_gradients(dtype_name: str) -> None:
    ours, theirs = _region(glassgrad, dtype_name), _region(torch, dtype_name)
    assert _dtypes(ours) == _dtypes(theirs)
    for name, value in ours.items():  # half precision's rounding, summed in another order: a few units in the last place
        if name not in ("enabled", "dtype", "after"):
            np.testing.assert_allclose(_values(value), _values(theirs[name]), rtol=2e-2, atol=2e-2, err_msg=name)


def _dtypes(results: dict[str, Any]) -> dict[str, Any]:
    """Each result's dtype (a list's, each), the flags and names as they are."""
    def dtype(value: Any) -> Any:
        if isinstance(value, list):
            return [dtype(v) for v in value]
        return value if isinstance(value, bool | str) else _described(value)[0]

    return {k: dtype(v) for k, v in results.items()}


def _values(value: Any) -> np.ndarray:
    return np.concatenate([np.ravel(v) for _, v in _described(value)]) if isinstance(value, list) else np.array(_described(value)[1])


def test_cpu_autocast_is_per_thread() -> None:
    seen = []
    a = glassgrad.ones(2, 2)
    with glassgrad.autocast("cpu"):
        thread = threading.Thread(target=lambda: seen.append((a @ a).dtype))
        thread.start()
        thread.join()
        seen.append((a @ a).dtype)
    assert seen == [glassgrad.float32, glassgrad.bfloat16]


def _checkpoint_under_autocast(m: Any) -> list[Any]:
    x = m.tensor(A, requires_grad=True)
    with m.autocast("cpu", dtype=m.bfloat16):
        out = m.utils.checkpoint.checkpoint(lambda t: (t @ t.T).sin(), x, use_reentrant=False)
    out.float().sum().backward()  # outside the region: the recomputation runs in bfloat16 as the forward did
    return [str(out.dtype).split(".")[-1], x.grad.numpy().round(4).tolist()]


@pytest.mark.torch_oracle
def test_a_checkpoint_recomputes_in_the_forwards_autocast_state() -> None:
    assert _checkpoint_under_autocast(glassgrad) == _checkpoint_under_autocast(torch)


def _norms_of_bfloat16_with_float32_parameters(m: Any) -> list[Any]:
    x = m.tensor(BATCH).to(m.bfloat16).requires_grad_()
    batch, group, layer = m.nn.BatchNorm2d(4), m.nn.GroupNorm(2, 4), m.nn.LayerNorm(3)
    outs = [batch(x), group(x), layer(x)]
    sum(o.float().sum() for o in outs).backward()
    refused = None
    try:
        m.nn.functional.batch_norm(x, m.zeros(4, dtype=m.float64), m.ones(4, dtype=m.float64))
    except RuntimeError as error:
        refused = str(error)
    return [_described(outs), _described([x.grad, batch.weight.grad]), _described(batch.running_mean), refused]


@pytest.mark.torch_oracle
def test_normalization_takes_float32_parameters_with_a_bfloat16_input() -> None:
    ours, theirs = _norms_of_bfloat16_with_float32_parameters(glassgrad), _norms_of_bfloat16_with_float32_parameters(torch)
    np.testing.assert_allclose(np.array(ours[0][0][1]), np.array(theirs[0][0][1]), atol=2e-2)
    assert [[d for d, _ in part] for part in ours[:2]] == [[d for d, _ in part] for part in theirs[:2]]
    assert ours[2:] == theirs[2:]
