"""glassgrad.fft: discrete Fourier transforms with PyTorch's signatures, dtypes, errors and graphs.

Every transform is one of PyTorch's three primitives, each a node of its own (FftC2CBackward0, FftR2CBackward0,
FftC2RBackward0), reached as PyTorch reaches them: sizes given by `n`/`s` first slice (SliceBackward0) or zero-pad
(ConstantPadNdBackward0) the input, ifft and ihfft of real input conjugate a forward real transform, hfft conjugates
its input. The primitives' gradients are transforms again (PyTorch's formulas), so higher derivatives come free.

A primitive carries a normalization: none, 1/sqrt(n) or 1/n (n the signal's size over the transformed dims), chosen
from `norm` and the direction as PyTorch's norm_from_string does. The backward of a transform applies the same
factor in the opposite direction: that is its adjoint.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _dtype
from .._quiet import quietly
from ..tensor import Tensor
from . import creation
from .complex_ops import conj, conj_physical, real
from .convolution import pad
from .elementwise import require_tensor
from .rearrange import roll
from .shape import cat, narrow
from .table import complex_derivative

NAMESPACE = "glassgrad.fft"

Dims = Sequence[int] | None
Sizes = Sequence[int] | None


class Normalization(enum.IntEnum):
    """PyTorch's fft_norm_mode: the factor a primitive applies."""

    NONE = 0
    BY_ROOT_N = 1
    BY_N = 2


def _normalization(norm: str | None, forward: bool) -> Normalization:
    if norm is None or norm == "backward":
        return Normalization.NONE if forward else Normalization.BY_N
    if norm == "forward":
        return Normalization.BY_N if forward else Normalization.NONE
    if norm == "ortho":
        return Normalization.BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


# NumPy's `norm` that applies a primitive's factor: "backward" scales only inverse transforms, "forward" only forward.
_NUMPY_NORM = {
    (True, Normalization.NONE): "backward", (True, Normalization.BY_ROOT_N): "ortho", (True, Normalization.BY_N): "forward",
    (False, Normalization.NONE): "forward", (False, Normalization.BY_ROOT_N): "ortho", (False, Normalization.BY_N): "backward",
}


# -- the primitives ---------------------------------------------------------------------------------------------
def _r2c_grad(grad: Tensor, dim: tuple[int, ...], normalization: Normalization, onesided: bool, last_dim_size: int) -> Tensor:
    """The adjoint of a real-to-complex transform: the missing half of a one-sided spectrum is zero, then the
    inverse complex transform's real part."""
    if onesided:
        missing = last_dim_size - grad.shape[dim[-1]]
        if missing > 0:
            zeros = creation.zeros(*grad.shape[: dim[-1]], missing, *grad.shape[dim[-1] + 1 :], dtype=grad.dtype)
            grad = cat([grad, zeros], dim[-1])
    return real(fft_c2c(grad, dim, normalization, forward=False))


def _c2r_grad(grad: Tensor, dim: tuple[int, ...], normalization: Normalization) -> Tensor:
    """The adjoint of a complex-to-real transform: a one-sided real-to-complex transform whose bins that stand for two
    (a bin and its mirror image; all but the first, and the last when the signal's length is even) count twice."""
    spectrum = fft_r2c(grad, dim, normalization, onesided=True)
    last = dim[-1]
    doubled = grad.shape[last] - spectrum.shape[last]
    if doubled <= 0:
        return spectrum
    weights = np.ones(spectrum.shape[last], dtype=grad._data.dtype)
    weights[1 : 1 + doubled] = 2
    return spectrum * Tensor._wrap(weights.reshape((-1,) + (1,) * (spectrum.ndim - 1 - last)))


FftC2CBackward0 = complex_derivative(
    "FftC2CBackward0", self=lambda grad, dim, normalization, forward: fft_c2c(grad, dim, normalization, not forward)
)
FftR2CBackward0 = complex_derivative("FftR2CBackward0", self=_r2c_grad)
FftC2RBackward0 = complex_derivative("FftC2RBackward0", self=_c2r_grad)


def fft_c2c(input: Tensor, dim: tuple[int, ...], normalization: Normalization, forward: bool) -> Tensor:
    """PyTorch's _fft_c2c: a complex transform over `dim`, forward (e^-i) or inverse (e^+i), with its factor."""
    data = input._data
    if dim:
        kernel = np.fft.fftn if forward else np.fft.ifftn
        data = kernel(data, axes=dim, norm=_NUMPY_NORM[forward, normalization])
    else:  # no dims (a 0-d input): the identity, as a copy
        data = data.copy()
    return FftC2CBackward0.record(data, (input,), dim=dim, normalization=normalization, forward=forward)


def fft_r2c(input: Tensor, dim: tuple[int, ...], normalization: Normalization, onesided: bool) -> Tensor:
    """PyTorch's _fft_r2c: a forward transform of a real input, keeping the last dim's first n // 2 + 1 bins when
    one-sided (the rest are their mirror images' conjugates)."""
    kernel = np.fft.rfftn if onesided else np.fft.fftn
    out = kernel(input._data, axes=dim, norm=_NUMPY_NORM[True, normalization])
    return FftR2CBackward0.record(
        out.astype(input.dtype.to_complex().np, copy=False), (input,),
        dim=dim, normalization=normalization, onesided=onesided, last_dim_size=input.shape[dim[-1]],
    )


def fft_c2r(input: Tensor, dim: tuple[int, ...], normalization: Normalization, last_dim_size: int) -> Tensor:
    """PyTorch's _fft_c2r: an inverse transform of a one-sided spectrum to a real signal whose last dim has
    `last_dim_size` points (the imaginary parts of the bins that are their own mirror images are ignored)."""
    sizes = [input.shape[d] for d in dim[:-1]] + [last_dim_size]
    out = np.fft.irfftn(input._data, s=sizes, axes=dim, norm=_NUMPY_NORM[False, normalization])
    return FftC2RBackward0.record(out.astype(input.dtype.to_real().np, copy=False), (input,), dim=dim, normalization=normalization)


# -- arguments as PyTorch reads them --------------------------------------------------------------------------
def _promoted(input: Tensor, require_complex: bool = False) -> Tensor:
    """Integers and bools compute in the default float dtype; float16 is refused as on PyTorch's CPU."""
    d = input.dtype
    if not d.is_complex:
        if not d.is_floating_point:
            d = _dtype.get_default_dtype()
        if d is _dtype.float16:
            raise RuntimeError("Unsupported dtype Half")
        if require_complex:
            d = d.to_complex()
    return input if d is input.dtype else input.to(d)


def _wrap(input: Tensor, dim: int) -> int:
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"argument 'dim' must be int, not {type(dim).__name__}")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return input._wrap_dim(dim)


def _check_size(n: int) -> int:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _resized(input: Tensor, dims: Sequence[int], sizes: Sequence[int]) -> Tensor:
    """Each dim cut or zero-padded at its end to its size: slices first, then one pad, as PyTorch's resize_fft_input."""
    amounts = [0] * (2 * input.ndim)
    for d, n in zip(dims, sizes, strict=True):
        if input.shape[d] > n:
            input = narrow(input, d, 0, n)
        elif input.shape[d] < n:
            amounts[2 * (input.ndim - 1 - d) + 1] = n - input.shape[d]
    return pad(input, amounts) if any(amounts) else input


def _listed(value: int | Sequence[int] | None) -> Sequence[int] | None:
    """PyTorch reads one int where it takes a list of ints."""
    return (value,) if isinstance(value, (int, np.integer)) else value


def _plan(input: Tensor, s: Sizes, dim: Dims) -> tuple[tuple[int, ...], list[int]]:
    """The dims an n-dimensional transform runs over and the signal's size along each (canonicalize_fft_shape_and_dim_args)."""
    dims: tuple[int, ...] = ()
    if dim is not None:
        dims = tuple(_wrap(input, d) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > input.ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {input.ndim} dimensions.")
        if dim is None:
            dims = tuple(range(input.ndim - len(s), input.ndim))
        sizes = [input.shape[d] if n == -1 else int(n) for d, n in zip(dims, s, strict=True)]
    else:
        if dim is None:
            dims = tuple(range(input.ndim))
        sizes = [input.shape[d] for d in dims]
    for n in sizes:
        _check_size(n)
    return dims, sizes


# -- one-dimensional transforms ----------------------------------------------------------------------------------
def _c2c(input: Tensor, n: int | None, dim: int, norm: str | None, forward: bool) -> Tensor:
    d = _wrap(input, dim)
    size = _check_size(input.shape[d] if n is None else n)
    return fft_c2c(_resized(input, (d,), (size,)), (d,), _normalization(norm, forward), forward)


def _r2c(name: str, input: Tensor, n: int | None, dim: int, norm: str | None, forward: bool, onesided: bool) -> Tensor:
    if input.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got {input.dtype.scalar_name}")
    input = _promoted(input)
    d = _wrap(input, dim)
    size = _check_size(input.shape[d] if n is None else n)
    out = fft_r2c(_resized(input, (d,), (size,)), (d,), _normalization(norm, forward), onesided)
    return out if forward else conj(out)  # an inverse transform of a real signal is the forward one's conjugate


def _c2r(input: Tensor, n: int | None, dim: int, norm: str | None, forward: bool) -> Tensor:
    input = _promoted(input, require_complex=True)
    d = _wrap(input, dim)
    size = _check_size(2 * (input.shape[d] - 1) if n is None else n)
    if n is not None:
        input = _resized(input, (d,), (size // 2 + 1,))
    if forward:  # hfft: the inverse real transform of the conjugate
        input = conj(input)
    return fft_c2r(input, (d,), _normalization(norm, forward), size)


def fft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    require_tensor("fft_fft", "input", 1, input)
    if input.is_complex():
        return _c2c(input, n, dim, norm, forward=True)
    return _r2c("fft", input, n, dim, norm, forward=True, onesided=False)


def ifft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    require_tensor("fft_ifft", "input", 1, input)
    if input.is_complex():
        return _c2c(input, n, dim, norm, forward=False)
    return _r2c("ifft", input, n, dim, norm, forward=False, onesided=False)


def rfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    return _r2c("rfft", require_tensor("fft_rfft", "input", 1, input), n, dim, norm, forward=True, onesided=True)


def ihfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    return _r2c("ihfft", require_tensor("fft_ihfft", "input", 1, input), n, dim, norm, forward=False, onesided=True)


def irfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    return _c2r(require_tensor("fft_irfft", "input", 1, input), n, dim, norm, forward=False)


def hfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    return _c2r(require_tensor("fft_hfft", "input", 1, input), n, dim, norm, forward=True)


# -- n-dimensional transforms ----------------------------------------------------------------------------------
def _nd_c2c(name: str, input: Tensor, s: Sizes, dim: Dims, norm: str | None, forward: bool) -> Tensor:
    require_tensor(f"fft_{name}", "input", 1, input)
    dims, sizes = _plan(input, _listed(s), _listed(dim))
    x = _resized(_promoted(input, require_complex=True), dims, sizes)
    return fft_c2c(x, dims, _normalization(norm, forward), forward)


def _nd_r2c(name: str, input: Tensor, s: Sizes, dim: Dims, norm: str | None) -> Tensor:
    if require_tensor(f"fft_{name}", "input", 1, input).is_complex():
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {input.dtype.scalar_name}")
    dims, sizes = _plan(input, _listed(s), _listed(dim))
    if not dims:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _resized(_promoted(input), dims, sizes)
    return fft_r2c(x, dims, _normalization(norm, True), onesided=True)


def _nd_c2r_plan(name: str, input: Tensor, s: Sizes, dim: Dims) -> tuple[Tensor, tuple[int, ...], int]:
    """The one-sided spectrum resized for a real n-dimensional output, its dims, and the output's last size."""
    require_tensor(f"fft_{name}", "input", 1, input)
    s = _listed(s)
    dims, sizes = _plan(input, s, _listed(dim))
    if not dims:
        family = name.removesuffix("2") + "n" if name.endswith("2") else name  # irfft2's message names irfftn
        raise RuntimeError(f"{family} must transform at least one axis")
    # the output's last size defaults to what a one-sided spectrum of that length came from
    last = 2 * (input.shape[dims[-1]] - 1) if s is None or s[-1] == -1 else sizes[-1]
    sizes[-1] = _check_size(last) // 2 + 1
    return _resized(_promoted(input, require_complex=True), dims, sizes), dims, last


def _nd_c2r(name: str, input: Tensor, s: Sizes, dim: Dims, norm: str | None) -> Tensor:
    x, dims, last = _nd_c2r_plan(name, input, s, dim)
    return fft_c2r(x, dims, _normalization(norm, False), last)


def _nd_hfft(name: str, input: Tensor, s: Sizes, dim: Dims, norm: str | None) -> Tensor:
    """A forward transform of a Hermitian-symmetric signal: complex transforms over all but the last dim, then the
    conjugate's inverse real transform over the last (PyTorch's fft_hfftn), each with the forward normalization."""
    x, dims, last = _nd_c2r_plan(name, input, s, dim)
    normalization = _normalization(norm, True)
    if len(dims) > 1:
        x = fft_c2c(x, dims[:-1], normalization, forward=True)
    return fft_c2r(conj(x), dims[-1:], normalization, last)


def _nd_ihfft(name: str, input: Tensor, s: Sizes, dim: Dims, norm: str | None) -> Tensor:
    """hfftn's inverse: a one-sided real transform over the last dim, conjugated, then inverse complex transforms."""
    require_tensor(f"fft_{name}", "input", 1, input)
    dims, sizes = _plan(input, _listed(s), _listed(dim))
    if not dims:
        raise RuntimeError("ihfftn must transform at least one axis")
    if input.is_complex():
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {input.dtype.scalar_name}")
    normalization = _normalization(norm, False)
    x = fft_r2c(_resized(_promoted(input), dims, sizes), dims[-1:], normalization, onesided=True)
    if len(dims) == 1:
        return conj(x)
    return fft_c2c(conj_physical(x), dims[:-1], normalization, forward=False)


def fftn(input: Tensor, s: Sizes = None, dim: Dims = None, norm: str | None = None) -> Tensor:
    return _nd_c2c("fftn", input, s, dim, norm, forward=True)


def ifftn(input: Tensor, s: Sizes = None, dim: Dims = None, norm: str | None = None) -> Tensor:
    return _nd_c2c("ifftn", input, s, dim, norm, forward=False)


def rfftn(input: Tensor, s: Sizes = None, dim: Dims = None, norm: str | None = None) -> Tensor:
    return _nd_r2c("rfftn", input, s, dim, norm)


def irfftn(input: Tensor, s: Sizes = None, dim: Dims = None, norm: str | None = None) -> Tensor:
    return _nd_c2r("irfftn", input, s, dim, norm)


def fft2(input: Tensor, s: Sizes = None, dim: Sequence[int] = (-2, -1), norm: str | None = None) -> Tensor:
    return _nd_c2c("fft2", input, s, dim, norm, forward=True)


def ifft2(input: Tensor, s: Sizes = None, dim: Sequence[int] = (-2, -1), norm: str | None = None) -> Tensor:
    return _nd_c2c("ifft2", input, s, dim, norm, forward=False)


def rfft2(input: Tensor, s: Sizes = None, dim: Sequence[int] = (-2, -1), norm: str | None = None) -> Tensor:
    return _nd_r2c("rfft2", input, s, dim, norm)


def irfft2(input: Tensor, s: Sizes = None, dim: Sequence[int] = (-2, -1), norm: str | None = None) -> Tensor:
    return _nd_c2r("irfft2", input, s, dim, norm)


def hfftn(input: Tensor, s: Sizes = None, dim: Dims = None, norm: str | None = None) -> Tensor:
    return _nd_hfft("hfftn", input, s, dim, norm)


def ihfftn(input: Tensor, s: Sizes = None, dim: Dims = None, norm: str | None = None) -> Tensor:
    return _nd_ihfft("ihfftn", input, s, dim, norm)


def hfft2(input: Tensor, s: Sizes = None, dim: Sequence[int] = (-2, -1), norm: str | None = None) -> Tensor:
    return _nd_hfft("hfft2", input, s, dim, norm)


def ihfft2(input: Tensor, s: Sizes = None, dim: Sequence[int] = (-2, -1), norm: str | None = None) -> Tensor:
    return _nd_ihfft("ihfft2", input, s, dim, norm)


# -- frequencies and shifts ------------------------------------------------------------------------------------
def _frequencies(name: str, bins: np.ndarray, n: int, d: float, dtype: Any, requires_grad: bool, device: Any) -> Tensor:
    target = _dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)
    if not (target.is_floating_point or target.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    # computed in the result's dtype, bin by bin times 1 / (n * d) (inf for n * d == 0), as PyTorch's mul_ does
    scale = quietly(np.divide, 1.0, np.float64(n) * d)
    out = quietly(np.multiply, bins.astype(target.np), target.np.type(scale))
    return creation.tensor(out, dtype=target, device=device, requires_grad=requires_grad)


def fftfreq(n: int, d: float = 1.0, *, dtype: Any = None, layout: Any = None, device: Any = None,
            requires_grad: bool = False) -> Tensor:
    """The sample frequencies of an n-point transform: 0, 1, ..., then the negative ones, over n * d."""
    creation._size((n,))  # a negative n: PyTorch's error for a negative size
    bins = np.concatenate([np.arange((n + 1) // 2), np.arange(-(n // 2), 0)])
    return _frequencies("fftfreq", bins, n, d, dtype, requires_grad, device)


def rfftfreq(n: int, d: float = 1.0, *, dtype: Any = None, layout: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """The non-negative sample frequencies of an n-point real transform (rfft's n // 2 + 1 bins)."""
    return _frequencies("rfftfreq", np.arange(n // 2 + 1), n, d, dtype, requires_grad, device)


def _shift(input: Tensor, dim: int | Sequence[int] | None, amount: Callable[[int], int]) -> Tensor:
    dims = tuple(range(input.ndim)) if dim is None else tuple(_wrap(input, d) for d in ((dim,) if isinstance(dim, int) else dim))
    if not dims:
        raise RuntimeError("`shifts` required")
    return roll(input, tuple(amount(input.shape[d]) for d in dims), dims)


def fftshift(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """The zero frequency moved to the middle: a roll by half of each dim."""
    return _shift(require_tensor("fft_fftshift", "input", 1, input), dim, lambda size: size // 2)


def ifftshift(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """fftshift's inverse (they differ for odd sizes)."""
    return _shift(require_tensor("fft_ifftshift", "input", 1, input), dim, lambda size: (size + 1) // 2)


# -- what this module exports (collected by ops/__init__.py) ----------------------------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "fft": fft, "ifft": ifft, "rfft": rfft, "irfft": irfft, "hfft": hfft, "ihfft": ihfft,
    "fft2": fft2, "ifft2": ifft2, "rfft2": rfft2, "irfft2": irfft2,
    "fftn": fftn, "ifftn": ifftn, "rfftn": rfftn, "irfftn": irfftn,
    "hfft2": hfft2, "ihfft2": ihfft2, "hfftn": hfftn, "ihfftn": ihfftn,
    "fftfreq": fftfreq, "rfftfreq": rfftfreq, "fftshift": fftshift, "ifftshift": ifftshift,
}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
