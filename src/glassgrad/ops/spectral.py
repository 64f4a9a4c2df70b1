"""Short-time Fourier analysis: the window functions (hann, hamming, blackman, bartlett, kaiser) and stft/istft.

A window of length N is symmetric over N points, or (periodic=True, the default, which spectral analysis wants)
the first N points of the symmetric window of length N + 1. Windows are computed as PyTorch's kernels compute them
(arange scaled, then cos or i0) in float64, then cast.

stft and istft are compositions of differentiable ops, in PyTorch's order (SpectralOps.cpp): frames are a strided
view (unfold) times the window, then one FFT primitive over the frame; istft inverts each frame, multiplies by the
window and overlap-adds the frames (F.fold), dividing by the overlap-added squared window.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from .complex_ops import complex, view_as_real
from .convolution import fold, pad
from .creation import _finish, ones
from .elementwise import not_implemented_for, require_tensor
from .fft import Normalization, fft_c2c, fft_c2r, fft_r2c

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


# -- stft and istft -------------------------------------------------------------------------------------------------
_WARNED: set[str] = set()  # PyTorch's TORCH_WARN_ONCE: each warning once per process


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)


def _flag(value: bool | None) -> str:
    """A C++ optional<bool> as PyTorch's messages print it."""
    return "None" if value is None else str(int(value))


def _window_repr(window: Tensor | None) -> str:
    return "None" if window is None else f"{window.type()}{{{list(window.shape)}}}"


def _centered(window: Tensor | None, win_length: int, n_fft: int, like: Tensor) -> Tensor | None:
    """A window shorter than n_fft with zeros on both sides (the extra one on the right); None stays rectangular."""
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    return pad(ones(win_length, dtype=like.dtype) if window is None else window, [left, n_fft - win_length - left])


def stft(input: Tensor, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
         window: Tensor | None = None, center: bool = True, pad_mode: str = "reflect", normalized: bool = False,
         onesided: bool | None = None, return_complex: bool | None = None, align_to_window: bool | None = None) -> Tensor:
    """The short-time Fourier transform: (batch,) n_freq x n_frames."""
    require_tensor("stft", "input", 1, input)
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:  # torch.stft pads in Python, then calls the kernel with center=False
        signal_dim = input.ndim
        half = int(n_fft // 2)
        input = pad(input.view([1] * (3 - signal_dim) + list(input.shape)), [half, half], pad_mode)
        input = input.view(input.shape[-signal_dim:])
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if window is None:
        _warn_once(
            "A window was not provided. A rectangular window will be applied,which is known to cause spectral leakage. "
            "Other windows such as torch.hann_window or torch.hamming_window are recommended to reduce spectral "
            "leakage.To suppress this warning and use a rectangular window, explicitly set "
            "`window=torch.ones(n_fft, device=<device>)`."
        )
    complex_result = return_complex if return_complex is not None else input.is_complex() or (
        window is not None and window.is_complex())
    if not complex_result:
        if return_complex is None:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                               "require that return_complex=True in a future PyTorch release.")
        _warn_once(
            "stft with return_complex=False is deprecated. In a future pytorch release, stft will return complex tensors "
            "for all inputs, and return_complex=False will raise an error.\nNote: you can still call torch.view_as_real "
            "on the complex output to recover the old return format."
        )
    call = (f"stft({input.type()}{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
            f"window={_window_repr(window)}, normalized={int(normalized)}, onesided={_flag(onesided)}, "
            f"return_complex={_flag(return_complex)}, align_to_window={_flag(align_to_window)}) : ")
    if not (input.dtype.is_floating_point or input.is_complex()):
        raise RuntimeError(call + "expected a tensor of floating point or complex values")
    if input.ndim not in (1, 2):
        raise RuntimeError(call + "expected a 1D or 2D tensor")
    signals = input.unsqueeze(0) if input.ndim == 1 else input
    length = signals.shape[1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(call + f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(call + f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(call + f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        raise RuntimeError(call + f"expected a 1D window tensor of size equal to win_length={win}, but got window with "
                           f"size {list(window.shape)}")
    if align_to_window:  # frames start where the window does, not where its zero padding does
        frames = signals.unfold(-1, win, hop)
        frames = _centered(frames if window is None else frames * window, win, n_fft, frames)
    else:
        frames = signals.unfold(-1, n_fft, hop)
        centered = _centered(window, win, n_fft, frames)
        if centered is not None:
            frames = frames * centered
    normalization = Normalization.BY_ROOT_N if normalized else Normalization.NONE
    if frames.is_complex():
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = fft_c2c(frames, (2,), normalization, True)
    else:
        out = fft_r2c(frames, (2,), normalization, True if onesided is None else onesided)
    out = out.transpose(1, 2)
    if input.ndim == 1:
        out = out.squeeze(0)
    return out if complex_result else view_as_real(out)


def _overlap_add(frames: Tensor, hop: int, length: int) -> Tensor:
    """Frames (channels, n_frames, n) summed into signals (channels, length), frame i starting at i * hop."""
    if frames.is_complex():
        return complex(_overlap_add(frames.real, hop, length), _overlap_add(frames.imag, hop, length))
    n = frames.shape[-1]
    return fold(frames.transpose(1, 2), (1, length), (1, n), stride=(1, hop)).reshape(frames.shape[0], length)


def istft(input: Tensor, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
          window: Tensor | None = None, center: bool = True, normalized: bool = False, onesided: bool | None = None,
          length: int | None = None, return_complex: bool = False) -> Tensor:
    """stft's least-squares inverse: frames inverted, windowed, overlap-added and divided by the window's envelope."""
    require_tensor("istft", "input", 1, input)
    if window is None:
        _warn_once(
            "A window was not provided. A rectangular window will be applied.Please provide the same window used by stft "
            "to make the inversion lossless.To suppress this warning and use a rectangular window, explicitly set "
            "`window=torch.ones(n_fft, device=<device>)`."
        )
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    real_ndim = input.ndim + 1  # PyTorch reads the sizes of view_as_real(input) before it checks anything
    if real_ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-real_ndim}, {real_ndim - 1}], but got "
                         f"{-real_ndim - 1})")
    call = (f"istft(CPU{input.dtype.scalar_name}Type{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={_window_repr(window)}, center={int(center)}, normalized={int(normalized)}, "
            f"onesided={_flag(onesided)}, length={length}, return_complex={int(return_complex)}) ")
    if input.numel() == 0:
        raise RuntimeError(call + ": input tensor cannot be empty.")
    if input.ndim not in (2, 3):
        raise RuntimeError(call + ": expected a tensor with 3 or 4 dimensions of real, or 2 or 3 dimensions of complex, "
                           f"but got {input.ndim + 1}")
    fft_size, n_frames = input.shape[-2], input.shape[-1]
    one_sided = fft_size != n_fft if onesided is None else onesided
    if one_sided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(call + ": expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not one_sided and n_fft != fft_size:
        raise RuntimeError(call + ": expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        raise RuntimeError(call + ": expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(call + ": expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        raise RuntimeError(call + ": Invalid window shape. window has to be 1D and length of `win_length`")
    real_dtype = input.real.dtype
    full_window = _centered(ones(win, dtype=real_dtype) if window is None else window, win, n_fft, input.real)
    spectra = (input.unsqueeze(0) if input.ndim == 2 else input).transpose(1, 2)  # (channels, n_frames, fft_size)
    normalization = Normalization.BY_ROOT_N if normalized else Normalization.BY_N
    if return_complex:
        if one_sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = fft_c2c(spectra, (2,), normalization, False)
    else:
        if window is not None and window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not one_sided:
            spectra = spectra.narrow(-1, 0, n_fft // 2 + 1)
        frames = fft_c2r(spectra, (2,), normalization, n_fft)
    expected = n_fft + hop * (n_frames - 1)
    signal = _overlap_add(frames * full_window.view(1, 1, n_fft), hop, expected)
    envelope = _overlap_add((full_window * full_window).expand(1, n_frames, n_fft), hop, expected)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else -(n_fft // 2) if center else expected
    signal, envelope = signal[:, start:end], envelope[:, start:end]
    if bool((envelope.abs().min() < 1e-11).item()):
        raise RuntimeError(call + "window overlap add min: 1")
    signal = signal / envelope
    if input.ndim == 2:
        signal = signal.squeeze(0)
    if end > expected:
        _warn_once("The length of signal is shorter than the length parameter. Result is being padded with zeros in the "
                   "tail. Please check your center and hop_length settings.")
        signal = pad(signal, [0, end - expected])
    return signal


# -- what this module exports (collected by ops/__init__.py) ----------------------------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "hann_window": hann_window, "hamming_window": hamming_window, "blackman_window": blackman_window,
    "bartlett_window": bartlett_window, "kaiser_window": kaiser_window, "stft": stft, "istft": istft,
}
METHODS: dict[str, Callable[..., Any]] = {"stft": stft, "istft": istft}
INPLACE: tuple[str, ...] = ()
