"""OpInfos of glassgrad.fft (glassgrad/ops/fft.py).

Complex inputs are drawn as real pairs and read with view_as_complex; complex outputs are compared through
view_as_real, so values, first and second derivatives (including rfft's and irfft's half spectra) are checked
against PyTorch and finite differences on real tensors.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..opinfo import OpInfo, Shapes, unary


def signals(min_dims: int = 1, pairs: bool = False, min_side: int = 1) -> st.SearchStrategy[Shapes]:
    """One input of 1 to 3 dims (a trailing 2 when it holds complex numbers as pairs)."""
    shapes = hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=min_side, max_side=5)
    return shapes.map(lambda s: ((*s, 2),) if pairs else (s,))


def as_real(m: Any, out: Any) -> Any:
    return m.view_as_real(out.resolve_conj()) if out.is_complex() else out


def transform(name: str, id: str = "", *, pairs: bool = False, min_dims: int = 1, min_side: int = 1,
              errors: tuple[Any, ...] = (), **kwargs: Any) -> OpInfo:
    """glassgrad.fft.<name>(input, **kwargs) on a real input, or a complex one made of real pairs.

    A one-sided spectrum of one bin stands for a signal of no points (an error in both libraries), so transforms to a
    real signal of the default length take min_side=2 for their gradchecks to have something to check.
    """

    def fn(m: Any, x: Any) -> Any:
        return as_real(m, getattr(m.fft, name)(m.view_as_complex(x) if pairs else x, **kwargs))

    return OpInfo(f"glassgrad.fft.{name}", fn, signals(min_dims, pairs, min_side), id=id or name, errors=errors)


def frequencies(name: str, d: float = 1.0, dtype: str | None = None) -> OpInfo:
    """The frequencies of a transform as long as the input has elements (no gradient: they are constants)."""

    def fn(m: Any, x: Any) -> Any:
        return getattr(m.fft, name)(x.numel(), d, dtype=None if dtype is None else getattr(m, dtype))

    return OpInfo(f"glassgrad.fft.{name}", fn, unary(max_side=5), order=0, id=f"{name}_{d}_{dtype}",
                  errors=(lambda m: getattr(m.fft, name)(4, dtype=m.int64),))


ONE_DIM_ERRORS = (
    lambda m: m.fft.fft(m.ones(3), norm="Ortho"),
    lambda m: m.fft.fft(m.ones(3), n=0),
    lambda m: m.fft.fft(m.ones(0)),
    lambda m: m.fft.fft(m.tensor(1.0)),
    lambda m: m.fft.fft(m.ones(3), dim=2),
    lambda m: m.fft.fft(m.ones(3, dtype=m.float16)),
    lambda m: m.fft.fft(m.ones(2, 3), dim=(0,)),
)

OPS = [
    transform("fft", "fft_complex", pairs=True, errors=ONE_DIM_ERRORS),
    transform("fft", "fft_real"),
    transform("fft", "fft_n_ortho", n=4, dim=0, norm="ortho"),
    transform("ifft", "ifft_complex", pairs=True, n=3),
    transform("ifft", "ifft_real", norm="forward"),
    transform("rfft", errors=(lambda m: m.fft.rfft(m.ones(3, dtype=m.complex64)),)),
    transform("rfft", "rfft_n", n=5, dim=0, norm="ortho"),
    transform("irfft", pairs=True, min_side=2),
    transform("irfft", "irfft_n", pairs=True, n=5, norm="forward",
              errors=(lambda m: m.fft.irfft(m.ones(1, dtype=m.complex64)),)),
    transform("irfft", "irfft_real", n=4),
    transform("hfft", pairs=True, n=3),
    transform("hfft", "hfft_default", pairs=True, norm="ortho", min_side=2),
    transform("ihfft"),
    transform("ihfft", "ihfft_n", n=6, dim=0, norm="forward"),
    transform("fft2", pairs=True, min_dims=2),
    transform("ifft2", "ifft2_real", min_dims=2, s=(3, 2), norm="ortho"),
    transform("rfft2", min_dims=2),
    transform("irfft2", pairs=True, min_dims=2, s=(2, 5)),
    transform("fftn", pairs=True, min_dims=0),
    transform("fftn", "fftn_real_s", s=(4,), norm="forward"),
    transform("ifftn", pairs=True, dim=(0, -1), norm="ortho", min_dims=2),
    transform("rfftn", errors=(
        lambda m: m.fft.rfftn(m.ones(2, 3), dim=()),
        lambda m: m.fft.rfftn(m.ones(2, 3), dim=(0, 0)),
        lambda m: m.fft.rfftn(m.ones(2, 3), s=(2, 2, 2)),
        lambda m: m.fft.rfftn(m.ones(2, 3), s=(2,), dim=(0, 1)),
    )),
    transform("rfftn", "rfftn_s", s=(-1, 3), min_dims=2),
    transform("irfftn", pairs=True, min_side=2),
    transform("irfftn", "irfftn_s", pairs=True, s=(3, -1), norm="ortho", min_dims=2, min_side=2),
    transform("hfft2", pairs=True, min_dims=2, min_side=2, errors=(
        lambda m: m.fft.hfft2(m.ones(2, 3, dtype=m.complex64), dim=()),
        lambda m: m.fft.hfft2(m.ones(2, 3, dtype=m.float16)),
    )),
    transform("hfft2", "hfft2_s", pairs=True, min_dims=2, s=(3, 4), norm="forward"),
    transform("hfftn", pairs=True, min_side=2),
    transform("hfftn", "hfftn_real", s=(-1, 5), dim=(0, -1), norm="ortho", min_dims=2),
    transform("hfftn", "hfftn_one_dim", pairs=True, dim=(0,), s=(4,)),
    transform("ihfft2", min_dims=2, errors=(
        lambda m: m.fft.ihfft2(m.ones(2, 3, dtype=m.complex64)),
        lambda m: m.fft.ihfftn(m.ones(2, 3), dim=()),
        lambda m: m.fft.ihfft2(m.ones(2, 3, dtype=m.float16)),
    )),
    transform("ihfft2", "ihfft2_s", min_dims=2, s=(3, 4), norm="ortho"),
    transform("ihfftn", min_dims=0),
    transform("ihfftn", "ihfftn_one_dim", dim=(-1,), norm="forward"),
    transform("fftshift", min_dims=0, errors=(lambda m: m.fft.fftshift(m.tensor(1.0)),)),
    transform("fftshift", "fftshift_dim", dim=0),
    transform("ifftshift", dim=(-1,)),
    transform("ifftshift", "ifftshift_all", min_dims=1),
    frequencies("fftfreq"),
    frequencies("fftfreq", 0.3, "float64"),
    frequencies("rfftfreq"),
    frequencies("rfftfreq", 2.5, "float64"),
]
