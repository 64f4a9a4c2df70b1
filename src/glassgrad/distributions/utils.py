"""Helpers shared by the distributions: broadcasting parameters, logits <-> probabilities, lazy properties."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from functools import update_wrapper
from typing import Any

import glassgrad as gg
from glassgrad.tensor import Tensor

euler_constant = 0.57721566490153286060  # Euler-Mascheroni


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """Every value as a tensor of one broadcast shape; numbers take the dtype of the first tensor (or the default)."""
    if not all(isinstance(v, (Tensor, numbers.Number)) or hasattr(v, "__torch_function__") for v in values):
        raise ValueError(
            "Input arguments must all be instances of numbers.Number, torch.Tensor or objects implementing "
            "__torch_function__."
        )
    if not all(isinstance(v, Tensor) for v in values):
        like = next((v for v in values if isinstance(v, Tensor)), None)
        options: dict[str, Any] = {"dtype": gg.get_default_dtype()}
        if like is not None:
            options = {"dtype": like.dtype, "device": like.device}
        values = tuple(v if isinstance(v, Tensor) else gg.tensor(v, **options) for v in values)
    return tuple(gg.broadcast_tensors(*values))


def _standard_normal(shape: Any, dtype: Any, device: Any) -> Tensor:
    return gg.normal(0.0, 1.0, size=tuple(shape), dtype=dtype, device=device)


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """Sums the rightmost `dim` dimensions (the event dimensions) away."""
    if dim == 0:
        return value
    return value.reshape(value.shape[: value.dim() - dim] + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Sigmoid of binary logits; otherwise a softmax over the last dimension."""
    if is_binary:
        return gg.sigmoid(logits)
    return gg.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities kept one machine epsilon away from 0 and 1, so their logs stay finite."""
    eps = gg.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Log-odds of binary probabilities; otherwise log-probabilities (logits up to a constant)."""
    clamped = clamp_probs(probs)
    if is_binary:
        return gg.log(clamped) - gg.log1p(-clamped)
    return gg.log(clamped)


class lazy_property:
    """A property computed on first access (with grad enabled) and then stored on the instance."""

    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        self.wrapped = wrapped
        update_wrapper(self, wrapped)  # type: ignore[arg-type]

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with gg.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy_property looks like on the class: a property too, so documentation tools list it."""

    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle (below diagonal `diag`) of the last two dimensions, row by row, as a vector."""
    n = mat.shape[-1]
    if not gg.jit.is_scripting() and isinstance(diag, int) and not -n <= diag < n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows = gg.arange(n, device=mat.device)
    mask = rows < (rows.view(-1, 1) + diag + 1)
    return mat[..., mask]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The inverse of tril_matrix_to_vec: a square matrix whose lower triangle holds `vec`, zeros elsewhere."""
    # size = n(n+1)/2 + diag*n (for diag <= 0) solved for n
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = gg.finfo(vec.dtype).eps
    if not gg.jit.is_scripting() and round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as the lower "
                         "triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + (n, n))
    rows = gg.arange(n, device=vec.device)
    mask = rows < (rows.view(-1, 1) + diag + 1)
    mat[..., mask] = vec
    return mat


def _probs_or_logits(probs: Any, logits: Any) -> None:
    """Distributions parameterized by probabilities or logits take exactly one of the two."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def _enumerated(count: int, dtype: Any, batch_shape: Any, expand: bool, device: Any = None) -> Tensor:
    """0, 1, ..., count-1 along a new leading dimension, broadcastable against (or expanded to) batch_shape."""
    values = gg.arange(count, dtype=dtype, device=device).view((-1,) + (1,) * len(batch_shape))
    return values.expand((-1, *batch_shape)) if expand else values
