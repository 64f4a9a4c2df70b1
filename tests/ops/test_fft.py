"""glassgrad.fft beyond the OpInfos: the graphs PyTorch records, dtypes, edge sizes, and spectral code end to end."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle


def _chain(t: Any) -> list[str]:
    """The node names from t's grad_fn down its first edges."""
    names, node = [], t.grad_fn
    while node is not None:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return names


CALLS: list[tuple[str, Callable[[Any, Any], Any], bool]] = [
    ("fft of real", lambda m, x: m.fft.fft(x), False),
    ("fft padded", lambda m, x: m.fft.fft(x, n=7), False),
    ("fft cut", lambda m, x: m.fft.fft(x, n=2), True),
    ("ifft of real", lambda m, x: m.fft.ifft(x), False),
    ("ihfft", lambda m, x: m.fft.ihfft(x), False),
    ("hfft", lambda m, x: m.fft.hfft(x), True),
    ("irfft padded", lambda m, x: m.fft.irfft(x, n=12), True),
    ("irfft of real", lambda m, x: m.fft.irfft(x), False),
    ("fftn of real", lambda m, x: m.fft.fftn(x), False),
    ("rfft2 resized", lambda m, x: m.fft.rfft2(x.reshape(2, 2), s=(3, 1)), False),
    ("fftshift", lambda m, x: m.fft.fftshift(x), False),
]


@pytest.mark.parametrize(("label", "call", "complex_input"), CALLS, ids=[c[0] for c in CALLS])
def test_records_pytorchs_graph(label: str, call: Callable[[Any, Any], Any], complex_input: bool) -> None:
    def chain(m: Any) -> list[str]:
        x = m.tensor([1.0, -2.0, 0.5, 3.0], requires_grad=True)
        return _chain(call(m, x.to(m.complex64) if complex_input else x))

    assert chain(glassgrad) == chain(torch)


@pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "rfftn", "irfftn"])
def test_result_dtypes_match_torch(name: str, dtype: str) -> None:
    def result(m: Any) -> str:
        try:
            return str(getattr(m.fft, name)(m.ones(4, dtype=getattr(m, dtype))).dtype).rpartition(".")[2]
        except Exception as err:
            return type(err).__name__

    assert result(glassgrad) == result(torch)


@pytest.mark.parametrize("n", [0, 1, 4, 5])
@pytest.mark.parametrize("d", [1.0, 0.25, 0.0])
@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequencies_match_torch_at_edge_sizes(name: str, n: int, d: float) -> None:
    expected = getattr(torch.fft, name)(n, d)
    np.testing.assert_array_equal(getattr(glassgrad.fft, name)(n, d).numpy(), expected.numpy())


def test_rfft_product_is_circular_convolution() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(8), rng.standard_normal(8)
    x = glassgrad.tensor(a, dtype=glassgrad.float64, requires_grad=True)
    y = glassgrad.fft.irfft(glassgrad.fft.rfft(x) * glassgrad.fft.rfft(glassgrad.tensor(b, dtype=glassgrad.float64)), n=8)
    direct = np.array([sum(a[j] * b[(i - j) % 8] for j in range(8)) for i in range(8)])
    np.testing.assert_allclose(y.detach().numpy(), direct, atol=1e-12)
    y.sum().backward()  # d/da_j of sum_i (a * b)_i is sum(b)
    np.testing.assert_allclose(x.grad.numpy(), np.full(8, b.sum()), atol=1e-12)


@pytest.mark.parametrize("optimizer", ["SGD", "Adam", "RMSprop"])
def test_a_spectral_layer_trains_as_in_pytorch(optimizer: str) -> None:
    """A Fourier neural operator's layer: complex weights on the low modes of rfft, written back with irfft."""
    rng = np.random.default_rng(0)
    signal = rng.standard_normal((2, 3, 16))
    weights = 0.1 * (rng.standard_normal((3, 4, 5)) + 1j * rng.standard_normal((3, 4, 5)))

    def train(m: Any) -> tuple[list[float], np.ndarray]:
        x = m.tensor(signal, dtype=m.float32)
        w = m.nn.Parameter(m.tensor(weights, dtype=m.cfloat))
        opt = getattr(m.optim, optimizer)([w], lr=0.01)
        losses = []
        for _ in range(4):
            x_ft = m.fft.rfft(x)
            out_ft = m.zeros(2, 4, 9, dtype=m.cfloat)
            out_ft[:, :, :5] = m.einsum("bix,iox->box", x_ft[:, :, :5], w)
            loss = (m.fft.irfft(out_ft, n=16) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, w.detach().numpy()

    (ours, w_ours), (theirs, w_theirs) = train(glassgrad), train(torch)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    np.testing.assert_allclose(w_ours, w_theirs, atol=1e-6)
