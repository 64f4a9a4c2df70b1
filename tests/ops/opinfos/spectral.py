"""OpInfos of glassgrad/ops/spectral.py: the window functions (lengths drawn from the input's size, 0 and 1 included)."""

from __future__ import annotations

from typing import Any

from ..opinfo import OpInfo

WINDOWS = ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window")


def window(name: str, *args: Any, **kwargs: Any) -> Any:
    return lambda m, x: getattr(m, name)(x.numel(), *args, dtype=m.float64, **kwargs)


def refusals(name: str) -> tuple[Any, ...]:
    return (
        lambda m: getattr(m, name)(-1),
        lambda m: getattr(m, name)(4, dtype=m.int64),
        lambda m: getattr(m, name)(4, dtype=m.complex64),
        lambda m: getattr(m, name)(4.0),
    )


OPS = [
    *(OpInfo(f"glassgrad.{name}", window(name), order=0, errors=refusals(name)) for name in WINDOWS),
    *(OpInfo(f"glassgrad.{name}", window(name, False), order=0, id=f"{name}_symmetric") for name in WINDOWS),
    *(OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x.numel() + 2), order=0, rtol=1e-6, atol=1e-7,
             id=f"{name}_float32") for name in WINDOWS),
    OpInfo("glassgrad.hamming_window", window("hamming_window", True, 0.3, 0.2), order=0, id="hamming_window_alpha_beta"),
    OpInfo("glassgrad.kaiser_window", window("kaiser_window", False, 3.5), order=0, id="kaiser_window_beta"),
    OpInfo("glassgrad.hann_window", lambda m, x: m.hann_window(x.numel(), requires_grad=True, dtype=m.float64) * 2,
           id="hann_window_requires_grad"),
]
