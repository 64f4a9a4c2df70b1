"""OpInfos of glassgrad/ops/spectral.py: the window functions (lengths drawn from the input's size, 0 and 1 included),
stft and istft."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..opinfo import ANY, Domain, OpInfo, Shapes

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


# -- stft and istft: windows are inputs too (their gradients are compared); each call passes one, as PyTorch warns
# once per process without it ------------------------------------------------------------------------------------
POSITIVE_WINDOW = Domain(0.5, 2.0)  # overlap-added squares stay away from 0: istft can divide by them


def signals_and_window(n: int, min_side: int = 3, batched: bool = True) -> st.SearchStrategy[Shapes]:
    """A signal (or a batch of them) at least `min_side` long, and a window of n points."""
    shapes = hnp.array_shapes(min_dims=1, max_dims=2 if batched else 1, min_side=1, max_side=4)
    lengths = st.integers(min_side, 12)
    return st.tuples(shapes, lengths).map(lambda sl: ((*sl[0][:-1], sl[1]), (n,)))


def spectrum(m: Any, x: Any, w: Any, **kwargs: Any) -> Any:
    return m.view_as_real(m.stft(x, 4, window=w, return_complex=True, **kwargs))


def complex_signal(m: Any, x: Any) -> Any:
    return m.complex(x, x.flip(-1))


def round_trip(m: Any, x: Any, w: Any, stft: dict[str, Any], **istft: Any) -> Any:
    out = m.istft(m.stft(x, 4, window=w, return_complex=True, **stft), 4, window=w, **{**stft, **istft})
    return m.view_as_real(out) if out.is_complex() else out


STFT_ERRORS = (
    lambda m: m.stft(m.ones(10), 4, window=m.ones(4)),  # return_complex is required for real input
    lambda m: m.stft(m.ones(10, dtype=m.int64), 4, window=m.ones(4), return_complex=True),
    lambda m: m.stft(m.ones(2, 2, 10), 4, window=m.ones(4), return_complex=True),
    lambda m: m.stft(m.ones(10), 16, window=m.ones(16), return_complex=True, center=False),
    lambda m: m.stft(m.ones(10), 4, 0, window=m.ones(4), return_complex=True),
    lambda m: m.stft(m.ones(10), 4, window=m.ones(5), return_complex=True),
    lambda m: m.stft(m.ones(10), 4, win_length=5, window=m.ones(5), return_complex=True),
    lambda m: m.stft(m.ones(10), 4, window=m.ones(4), return_complex=True, align_to_window=True),
    lambda m: m.stft(m.ones(10), 4, window=m.ones(4, dtype=m.complex64), return_complex=True, onesided=True),
    lambda m: m.stft(m.ones(3), 8, window=m.ones(8), return_complex=True),  # reflect padding longer than the signal
)
ISTFT_ERRORS = (
    lambda m: m.istft(m.ones(3, 4), 4, window=m.ones(4)),
    lambda m: m.istft(m.ones(3, 0, dtype=m.complex64), 4, window=m.ones(4)),
    lambda m: m.istft(m.ones(3, dtype=m.complex64), 4, window=m.ones(4)),
    lambda m: m.istft(m.ones(5, 5, dtype=m.complex64), 4, window=m.ones(4)),
    lambda m: m.istft(m.ones(3, 5, dtype=m.complex64), 4, 5, window=m.ones(4)),
    lambda m: m.istft(m.ones(3, 5, dtype=m.complex64), 4, window=m.ones(3)),
    lambda m: m.istft(m.ones(3, 5, dtype=m.complex64), 4, window=m.ones(4), return_complex=True),
    lambda m: m.istft(m.ones(4, 5, dtype=m.complex64), 4, window=m.ones(4, dtype=m.complex64)),
    lambda m: m.istft(m.ones(3, 5, dtype=m.complex64), 4, window=m.tensor([1.0, 0.0, 0.0, 0.0]), center=False),
)

OPS += [
    OpInfo("glassgrad.stft", spectrum, signals_and_window(4), domains=(ANY, POSITIVE_WINDOW), also=("Tensor.stft",),
           errors=STFT_ERRORS),
    OpInfo("glassgrad.stft", lambda m, x, w: spectrum(m, x, w, hop_length=1, center=False, normalized=True, onesided=False),
           signals_and_window(4, min_side=4), id="stft_every_hop_two_sided"),
    OpInfo("glassgrad.stft", lambda m, x, w: m.view_as_real(x.stft(5, 2, 3, w, pad_mode="constant", return_complex=True)),
           signals_and_window(3), id="stft_short_window_constant_pad"),
    OpInfo("glassgrad.stft", lambda m, x, w: spectrum(m, x, w, pad_mode="circular"), signals_and_window(4), id="stft_circular"),
    OpInfo("glassgrad.stft", lambda m, x, w: spectrum(m, complex_signal(m, x), w), signals_and_window(4), id="stft_complex"),
    OpInfo("glassgrad.istft", lambda m, x, w: round_trip(m, x, w, {}), signals_and_window(4), domains=(ANY, POSITIVE_WINDOW),
           also=("Tensor.istft",), errors=ISTFT_ERRORS),
    OpInfo("glassgrad.istft", lambda m, x, w: round_trip(m, x, w, {"hop_length": 2, "center": False}, length=5),
           signals_and_window(4, min_side=6), domains=(ANY, POSITIVE_WINDOW), id="istft_not_centered_length"),
    OpInfo("glassgrad.istft", lambda m, x, w: round_trip(m, x, w, {"win_length": 3, "hop_length": 1, "normalized": True}),
           signals_and_window(3), domains=(ANY, POSITIVE_WINDOW), id="istft_short_window_normalized"),
    OpInfo("glassgrad.istft", lambda m, x, w: round_trip(m, complex_signal(m, x), w, {"onesided": False}, return_complex=True),
           signals_and_window(4), domains=(ANY, POSITIVE_WINDOW), id="istft_complex"),
    OpInfo("glassgrad.istft", lambda m, x, w: round_trip(m, x, w, {"onesided": False}), signals_and_window(4),
           domains=(ANY, POSITIVE_WINDOW), id="istft_two_sided_to_real"),
]
