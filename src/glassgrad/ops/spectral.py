"""Short-time Fourier analysis: the window functions (hann, hamming, blackman, bartlett, kaiser) and stft/istft.

A window of length N is symmetric over N points, or (periodic=True, the default, which spectral analysis wants)
the first N points of the symmetric window of length N + 1. Windows are computed as PyTorch's kernels compute them
(arange scaled, then cos or i0) in float64, then cast.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from .creation import _finish
from .elementwise import not_implemented_for

Shape = Callable[[np.ndarray, int], np.ndarray]  # (arange(n) as float64, n) -> the symmetric window of length n


def _window_dtype(name: str, dtype: Any, requires_grad: bool) -> _dtype.dtype:
    d = _dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)
    if d.is_complex:
        raise not_implemented_for("arange_cpu", d)
    if not d.is_floating_point:
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype={_dtype.CPP_NAMES[d]}, device=cpu, "
            f"layout=Strided (default), requires_grad={str(requires_grad).lower()}, pinned_memory=false (default), "
            "memory_format=(nullopt))"
        )
    return d


def _window(name: str, window_length: int, periodic: bool, shape: Shape, dtype: Any, device: Any,
            requires_grad: bool) -> Tensor:
    if not isinstance(window_length, (int, np.integer)) or isinstance(window_length, bool):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not {type(window_length).__name__}")
    d = _window_dtype(name, dtype, requires_grad)
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if window_length <= 1:
        values = np.ones(window_length)
    else:
        n = window_length + 1 if periodic else window_length
        values = shape(np.arange(n, dtype=np.float64), n)[:window_length]
    return _finish(values.astype(d.np), requires_grad, device)


def _cosine(alpha: float, beta: float) -> Shape:
    return lambda i, n: alpha - beta * np.cos(i * (2 * math.pi / (n - 1)))


def _blackman(i: np.ndarray, n: int) -> np.ndarray:
    x = i * (math.pi / (n - 1))
    return np.cos(x * 4) * 0.08 - np.cos(x * 2) * 0.5 + 0.42


def _bartlett(i: np.ndarray, n: int) -> np.ndarray:
    rising = i * (2.0 / (n - 1))
    first_half = ((n - 1) >> 1) + 1
    return np.concatenate([rising[:first_half], 2 - rising[first_half:]])


def _kaiser(beta: float) -> Shape:
    def shape(i: np.ndarray, n: int) -> np.ndarray:
        alpha = (n - 1) / 2.0
        return np.i0(beta * np.sqrt(np.maximum(1 - ((i - alpha) / alpha) ** 2, 0))) / np.i0(beta)

    return shape


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None, device: Any = None,
                pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    return _window("hann_window", window_length, periodic, _cosine(0.5, 0.5), dtype, device, requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *, dtype: Any = None,
                   layout: Any = None, device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    return _window("hamming_window", window_length, periodic, _cosine(alpha, beta), dtype, device, requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None, device: Any = None,
                    pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    return _window("blackman_window", window_length, periodic, _blackman, dtype, device, requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None, device: Any = None,
                    pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    return _window("bartlett_window", window_length, periodic, _bartlett, dtype, device, requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype: Any = None, layout: Any = None,
                  device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    return _window("kaiser_window", window_length, periodic, _kaiser(beta), dtype, device, requires_grad)


# -- what this module exports (collected by ops/__init__.py) ----------------------------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "hann_window": hann_window, "hamming_window": hamming_window, "blackman_window": blackman_window,
    "bartlett_window": bartlett_window, "kaiser_window": kaiser_window,
}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
