"""The window functions of torch.signal.windows, with PyTorch's arguments, checks and formulas.

Each window of length M samples a curve at M points: `sym=True` (the default) gives a symmetric window,
for filter design; `sym=False` a periodic one (the symmetric window of length M + 1 without its last
point), for spectral analysis. The points are a linspace, so `requires_grad=True` gives a window that
autograd follows back to that linspace, as PyTorch's does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ... import _layout
from ..._dtype import dtype as Dtype
from ...tensor import Tensor

__all__ = [
    "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming", "hamming", "hann",
    "kaiser", "nuttall",
]


def _settled_dtype(name: str, M: int, dtype: Dtype | None, layout: Any) -> Dtype:
    """The dtype to compute in, after the checks every window makes."""
    import glassgrad

    dtype = dtype or glassgrad.get_default_dtype()
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not _layout.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (glassgrad.float32, glassgrad.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _trivial(M: int, dtype: Dtype, device: Any, requires_grad: bool, *, one_is_ones: bool) -> Tensor | None:
    """The window of length 0 (empty), and of length 1 for the windows whose formula would divide by M - 1."""
    import glassgrad

    if M == 0:
        return glassgrad.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if M == 1 and one_is_ones:
        return glassgrad.ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def _span(M: int, sym: bool) -> int:
    """What spaces the points: M - 1 for a symmetric window, M for a periodic one (of length 2 or more)."""
    return M if not sym and M > 1 else M - 1


def _points(start: Any, step_end: Any, M: int, dtype: Dtype, device: Any, requires_grad: bool) -> Tensor:
    import glassgrad

    return glassgrad.linspace(start, step_end, M, dtype=dtype, device=device, requires_grad=requires_grad)


def exponential(
    M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True, dtype: Dtype | None = None,
    layout: Any = _layout.strided, device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """exp(-|n - center| / tau)."""
    import glassgrad

    dtype = _settled_dtype("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if (empty := _trivial(M, dtype, device, requires_grad, one_is_ones=False)) is not None:
        return empty
    if center is None:
        center = _span(M, sym) / 2.0
    k = _points(-center / tau, (-center + (M - 1)) / tau, M, dtype, device, requires_grad)
    return glassgrad.exp(-glassgrad.abs(k))


def cosine(
    M: int, *, sym: bool = True, dtype: Dtype | None = None, layout: Any = _layout.strided, device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """sin(pi (n + 1/2) / M), the sine window."""
    import glassgrad

    dtype = _settled_dtype("cosine", M, dtype, layout)
    if (empty := _trivial(M, dtype, device, requires_grad, one_is_ones=False)) is not None:
        return empty
    scale = math.pi / (M + 1 if not sym and M > 1 else M)
    return glassgrad.sin(_points(0.5 * scale, (0.5 + (M - 1)) * scale, M, dtype, device, requires_grad))


def gaussian(
    M: int, *, std: float = 1.0, sym: bool = True, dtype: Dtype | None = None, layout: Any = _layout.strided,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """exp(-((n - (M - 1) / 2) / std)**2 / 2)."""
    import glassgrad

    dtype = _settled_dtype("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if (empty := _trivial(M, dtype, device, requires_grad, one_is_ones=False)) is not None:
        return empty
    start = -_span(M, sym) / 2.0
    scale = 1 / (std * math.sqrt(2))
    k = _points(start * scale, (start + (M - 1)) * scale, M, dtype, device, requires_grad)
    return glassgrad.exp(-(k**2))


def kaiser(
    M: int, *, beta: float = 12.0, sym: bool = True, dtype: Dtype | None = None, layout: Any = _layout.strided,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """I0(beta sqrt(1 - (2n / (M - 1) - 1)**2)) / I0(beta)."""
    import glassgrad

    dtype = _settled_dtype("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if (trivial := _trivial(M, dtype, device, requires_grad, one_is_ones=True)) is not None:
        return trivial
    b = glassgrad.tensor(beta, dtype=dtype, device=device)  # in the window's dtype, so that beta * beta - k**2 >= 0
    step = 2.0 * b / (M if not sym else M - 1)
    end = glassgrad.minimum(b, -b + (M - 1) * step)
    k = _points(-b.item(), end.item(), M, dtype, device, requires_grad)  # the dtype's values, as Python floats
    return glassgrad.i0(glassgrad.sqrt(b * b - k**2)) / glassgrad.i0(b)


def bartlett(
    M: int, *, sym: bool = True, dtype: Dtype | None = None, layout: Any = _layout.strided, device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """1 - |2n / (M - 1) - 1|, the triangular window."""
    import glassgrad

    dtype = _settled_dtype("bartlett", M, dtype, layout)
    if (trivial := _trivial(M, dtype, device, requires_grad, one_is_ones=True)) is not None:
        return trivial
    step = 2 / (M if not sym else M - 1)
    return 1 - glassgrad.abs(_points(-1, -1 + (M - 1) * step, M, dtype, device, requires_grad))


def general_cosine(
    M: int, *, a: Iterable[float], sym: bool = True, dtype: Dtype | None = None, layout: Any = _layout.strided,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """sum_i (-1)**i a_i cos(2 pi i n / (M - 1)): the family hamming, hann, blackman and nuttall belong to."""
    import glassgrad

    dtype = _settled_dtype("general_cosine", M, dtype, layout)
    if (trivial := _trivial(M, dtype, device, requires_grad, one_is_ones=True)) is not None:
        return trivial
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    step = 2 * math.pi / (M if not sym else M - 1)
    k = _points(0, (M - 1) * step, M, dtype, device, requires_grad)
    signed = glassgrad.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, device=device, requires_grad=requires_grad)
    order = glassgrad.arange(signed.shape[0], dtype=dtype, device=device, requires_grad=requires_grad)
    return (signed.unsqueeze(-1) * glassgrad.cos(order.unsqueeze(-1) * k)).sum(0)


def general_hamming(
    M: int, *, alpha: float = 0.54, sym: bool = True, dtype: Dtype | None = None, layout: Any = _layout.strided,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:
    """alpha - (1 - alpha) cos(2 pi n / (M - 1)); its errors name general_cosine, as PyTorch's do."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hamming(
    M: int, *, sym: bool = True, dtype: Dtype | None = None, layout: Any = _layout.strided, device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(
    M: int, *, sym: bool = True, dtype: Dtype | None = None, layout: Any = _layout.strided, device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def blackman(
    M: int, *, sym: bool = True, dtype: Dtype | None = None, layout: Any = _layout.strided, device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    dtype = _settled_dtype("blackman", M, dtype, layout)  # checked under its own name first, unlike hann
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def nuttall(
    M: int, *, sym: bool = True, dtype: Dtype | None = None, layout: Any = _layout.strided, device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    a = [0.3635819, 0.4891775, 0.1365995, 0.0106411]
    return general_cosine(M, a=a, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
