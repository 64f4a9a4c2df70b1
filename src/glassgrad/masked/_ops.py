"""torch.masked's reductions and normalizations of dense tensors: `mask=` says which elements take part.

Each op replaces the masked-out elements by its identity (0 for sum, 1 for prod, -inf for amax and the
softmaxes, ...) and runs the dense op, as PyTorch 2.13 defines them; they are glassgrad ops throughout, so
the gradients (zero at masked-out elements) come with them. mean, var and std divide by the count of
masked-in elements, so a fully masked-out slice gives nan.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import glassgrad as gg
from glassgrad.tensor import Tensor

from .maskedtensor import MaskedTensor

Dims = int | Sequence[int] | None

_SMALL_INTEGERS = ("uint8", "bool", "int8", "int16", "int32")


def _canonical_dim(dim: Dims, ndim: int) -> tuple[int, ...]:
    """dim as a sorted tuple of dims; None (and, as PyTorch still reads it, ()) means every dim."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    bound = max(ndim, 1)
    dims: list[int] = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if not -bound <= d < bound:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but got {d})")
        dims.append(d % bound)
    return tuple(sorted(dims))


def _input_mask(input: Tensor, mask: Tensor | None) -> Tensor:
    """The mask as a bool tensor of input's shape (broadcast to it)."""
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError(
                "_input_mask expected broadcastable mask (got mask dimensionality higher than of the input)"
            )
        mask = gg.broadcast_to(mask.clone(), input.shape)
    return mask.to(dtype=gg.bool)


def _identity(op: str, input: Tensor, ord: float = 2.0) -> Any:
    """The value that leaves op's result unchanged, which masked-out elements take."""
    if op in ("sum", "norm"):
        return math.inf if op == "norm" and ord == -math.inf else 0
    if op == "prod":
        return 1
    low = op in ("amax", "argmax", "logsumexp")
    if input.dtype.is_floating_point or input.dtype.is_complex:
        return -math.inf if low else math.inf
    info = gg.iinfo(input.dtype)
    return info.min if low else info.max


def _combined(op: str, input: Any, mask: Tensor | None, ord: float = 2.0) -> Tensor:
    """input with its masked-out elements replaced by op's identity (a MaskedTensor brings its own mask)."""
    if isinstance(input, MaskedTensor):
        input, mask = input.get_data(), input.get_mask()
    if mask is None:
        return input
    fill = gg.tensor(_identity(op, input, ord), dtype=input.dtype)
    return gg.where(_input_mask(input, mask), input, fill)


def _summing_dtype(input: Tensor, dtype: Any) -> Any:
    """sum's and prod's dtype: small integers (and bool) are summed as int64, as in PyTorch."""
    if dtype is not None:
        return dtype
    return gg.int64 if input.dtype.name in _SMALL_INTEGERS else input.dtype


def _data(input: Any) -> Tensor:
    return input.get_data() if isinstance(input, MaskedTensor) else input


def sum(input: Any, dim: Dims = None, *, keepdim: bool = False, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
    dtype = _summing_dtype(_data(input), dtype)
    dims = _canonical_dim(dim, _data(input).ndim)
    return gg.sum(_combined("sum", input, mask), dims, bool(keepdim), dtype=dtype)


def prod(input: Any, dim: Dims = None, *, keepdim: bool = False, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
    dtype = _summing_dtype(_data(input), dtype)
    result = _combined("prod", input, mask).to(dtype=dtype)
    for d in reversed(_canonical_dim(dim, result.ndim)):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def _extreme(op: str) -> Any:
    def reduce(input: Any, dim: Dims = None, *, keepdim: bool = False, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
        masked = _combined(op, input, mask)
        return getattr(gg, op)(masked, _canonical_dim(dim, masked.ndim), bool(keepdim)).to(dtype=dtype or masked.dtype)

    reduce.__name__ = reduce.__qualname__ = op
    return reduce


amax, amin = _extreme("amax"), _extreme("amin")


def _arg_extreme(op: str) -> Any:
    def reduce(input: Any, dim: int | None = None, *, keepdim: bool = False, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
        masked = _combined(op, input, mask)
        # PyTorch casts the index to the input's dtype when no dtype is given
        return getattr(gg, op)(masked, dim, bool(keepdim)).to(dtype=dtype or masked.dtype)

    reduce.__name__ = reduce.__qualname__ = op
    return reduce


argmax, argmin = _arg_extreme("argmax"), _arg_extreme("argmin")


def _floating_dtype(op: str, input: Tensor, dtype: Any) -> Any:
    chosen = input.dtype if dtype is None else dtype
    if not (chosen.is_floating_point or chosen.is_complex):
        source = "Input" if dtype is None else "Optional"
        raise ValueError(
            f"{op}(): Could not infer output dtype. {source} dtype must be either a floating point or complex dtype. "
            f"Got: {chosen}"
        )
    return chosen


def _count(input: Tensor, mask: Tensor | None, dim: Dims, keepdim: bool) -> Tensor:
    """How many masked-in elements each result element reduces over."""
    present = gg.ones(input.shape, dtype=gg.int64) if mask is None else _input_mask(input, mask)
    return gg.sum(present, _canonical_dim(dim, input.ndim), keepdim)


def mean(input: Any, dim: Dims = None, *, keepdim: bool = False, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
    if isinstance(input, MaskedTensor):
        input, mask = input.get_data(), input.get_mask()
    dtype = _floating_dtype("mean", input, dtype)
    return sum(input, dim, keepdim=keepdim, dtype=dtype, mask=mask) / _count(input, mask, dim, bool(keepdim))


def norm(
    input: Any, ord: float = 2.0, dim: Dims = None, *, keepdim: bool = False, dtype: Any = None,
    mask: Tensor | None = None,
) -> Tensor:
    masked = _combined("norm", input, mask, ord)
    return gg.linalg.vector_norm(masked, ord, _canonical_dim(dim, masked.ndim), bool(keepdim), dtype=dtype or masked.dtype)


def _std_var(
    input: Any, dim: Dims, unbiased: bool | None, correction: float | None, keepdim: bool, dtype: Any,
    mask: Tensor | None, take_sqrt: bool,
) -> Tensor:
    if isinstance(input, MaskedTensor):
        input, mask = input.get_data(), input.get_mask()
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    dof = float(correction) if correction is not None else 0.0 if unbiased is False else 1.0
    if dtype is None:
        dtype = input.dtype if input.dtype.is_floating_point or input.dtype.is_complex else gg.float32
    count = _count(input, mask, dim, True)
    deviation = input - sum(input, dim, keepdim=True, dtype=dtype, mask=mask) / count
    total = sum(deviation * deviation.conj(), dim, keepdim=keepdim, dtype=dtype, mask=mask)
    if not keepdim:
        count = count.reshape(total.shape)
    if dof != 0:
        count = gg.maximum(count.to(total.real.dtype) - dof, gg.zeros((), dtype=total.real.dtype))
    output = (total / count).to(dtype=dtype)
    return output.sqrt() if take_sqrt else output


def var(
    input: Any, dim: Dims = None, unbiased: bool | None = None, *, correction: float | None = None,
    keepdim: bool = False, dtype: Any = None, mask: Tensor | None = None,
) -> Tensor:
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=False)


def std(
    input: Any, dim: Dims = None, unbiased: bool | None = None, *, correction: float | None = None,
    keepdim: bool = False, dtype: Any = None, mask: Tensor | None = None,
) -> Tensor:
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=True)


def logsumexp(input: Any, dim: Dims = None, *, keepdim: bool = False, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
    masked = _combined("logsumexp", input, mask)
    return gg.logsumexp(masked, _canonical_dim(dim, masked.ndim), keepdim=keepdim).to(dtype=dtype or masked.dtype)


def _normalization(name: str, identity_of: str) -> Any:
    """softmax, log_softmax, softmin, cumsum, cumprod along one dim, masked-out elements taking identity_of's
    identity (so a softmax gives them no weight)."""

    def normalize(input: Any, dim: int, *, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
        masked = _combined(identity_of, input, mask)
        dtype = dtype or masked.dtype
        along = _canonical_dim(dim, masked.ndim)[0]
        if name in ("cumsum", "cumprod"):
            return getattr(gg, name)(masked, along, dtype=dtype).to(dtype=dtype)
        return getattr(gg.nn.functional, name)(masked, along, dtype=dtype)

    normalize.__name__ = normalize.__qualname__ = name
    return normalize


softmax = _normalization("softmax", "amax")
log_softmax = _normalization("log_softmax", "amax")
softmin = _normalization("softmin", "amin")
cumsum = _normalization("cumsum", "sum")
cumprod = _normalization("cumprod", "prod")


def normalize(
    input: Any, ord: float, dim: int, *, eps: float = 1e-12, dtype: Any = None, mask: Tensor | None = None
) -> Tensor:
    """input divided by its masked norm along dim (at least eps); masked-out elements become 0."""
    if isinstance(input, MaskedTensor):
        input, mask = input.get_data(), input.get_mask()
    dtype = dtype or input.dtype
    magnitude = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return _combined("sum", input, mask) / gg.maximum(magnitude, magnitude.new_full([], eps))
