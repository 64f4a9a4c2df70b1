"""torch.signal.windows against PyTorch: values, dtypes, gradients and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

WINDOWS = {
    "bartlett": {}, "blackman": {}, "cosine": {}, "hamming": {}, "hann": {}, "nuttall": {},
    "exponential": {"tau": 2.5}, "gaussian": {"std": 0.7}, "kaiser": {"beta": 5.0}, "general_hamming": {"alpha": 0.6},
    "general_cosine": {"a": [0.4, 0.35, 0.25]},
}


@pytest.mark.parametrize("name", sorted(WINDOWS))
@pytest.mark.parametrize("M", [0, 1, 2, 7, 10])
@pytest.mark.parametrize("sym", [True, False])
def test_windows_match_pytorchs(name: str, M: int, sym: bool) -> None:
    for dtype in ("float32", "float64"):
        theirs = getattr(torch.signal.windows, name)(M, sym=sym, dtype=getattr(torch, dtype), **WINDOWS[name])
        ours = getattr(glassgrad.signal.windows, name)(M, sym=sym, dtype=getattr(glassgrad, dtype), **WINDOWS[name])
        assert ours.numpy().dtype == theirs.numpy().dtype and ours.shape == theirs.shape
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6 if dtype == "float32" else 1e-12, atol=1e-7)


def test_exponential_takes_a_center_for_a_periodic_window() -> None:
    theirs = torch.signal.windows.exponential(9, center=2.0, sym=False, dtype=torch.float64)
    ours = glassgrad.signal.windows.exponential(9, center=2.0, sym=False, dtype=glassgrad.float64)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["gaussian", "general_cosine", "kaiser"])
def test_requires_grad_gives_a_window_autograd_follows(name: str) -> None:
    grads = []
    for m in (torch, glassgrad):
        window = getattr(m.signal.windows, name)(6, requires_grad=True, dtype=m.float64, **WINDOWS[name])
        assert window.requires_grad and window.grad_fn is not None
        grads.append(window.sum().item())
    assert grads[0] == pytest.approx(grads[1], rel=1e-12)


CALLS = [
    ("hann", (-1,), {}), ("bartlett", (4,), {"dtype": "int64"}), ("blackman", (-2,), {}), ("nuttall", (3,), {"dtype": "float16"}),
    ("exponential", (4,), {"tau": 0.0}), ("exponential", (4,), {"center": 1.0}), ("gaussian", (4,), {"std": -1.0}),
    ("kaiser", (4,), {"beta": -0.5}), ("general_cosine", (4,), {"a": []}), ("general_cosine", (4,), {"a": 3.0}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), CALLS)
def test_errors_match_pytorchs(name: str, args: tuple, kwargs: dict) -> None:
    errors = []
    for m in (torch, glassgrad):
        given = {k: getattr(m, v) if k in ("dtype", "layout") else v for k, v in kwargs.items()}
        with pytest.raises((ValueError, TypeError)) as info:
            getattr(m.signal.windows, name)(*args, **given)
        errors.append((type(info.value).__name__, str(info.value).replace("glassgrad", "torch")))
    assert errors[0] == errors[1]
