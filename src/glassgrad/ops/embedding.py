"""Embedding lookups of glassgrad.nn.functional: embedding, and embedding_bag's sums, means and maxes of bags."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .. import _dtype
from ..autograd.inplace import bump_version
from ..tensor import Tensor
from .shape import reshape, unsqueeze
from .table import NoForwardAD, derivative

NAMESPACE = "glassgrad.nn.functional"


def _check_integral(indices: Tensor, op: str, name: str = "indices", type_name: str | None = None) -> None:
    if indices.dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError(
            f"Expected tensor for argument #1 '{name}' to have one of the following scalar types: Long, Int; but got "
            f"{type_name or indices.type()} instead (while checking arguments for {op})"
        )


# -- embedding -----------------------------------------------------------------------------------------------------
EmbeddingBackward0 = derivative(
    "EmbeddingBackward0", ("weight",),
    weight=lambda grad, indices, num_weights, padding_idx, by_freq: _embedding_dense_backward(
        grad, indices, num_weights, padding_idx, by_freq),
    # PyTorch's: the padding row's tangent is read like any other (the VJP alone leaves it out)
    jvp=lambda weight_t, indices: weight_t[indices],
)
# As PyTorch's embedding_dense_double_backward: the padding row stays masked, the frequency scaling is dropped.
EmbeddingDenseBackward0 = derivative(
    "EmbeddingDenseBackward0", ("grad_output",),
    grad_output=lambda grad, indices, padding_idx: _rows(grad, indices) * unsqueeze(
        Tensor._wrap((indices._data != padding_idx).astype(grad._data.dtype)), -1),
)


def _rows(weight: Tensor, indices: Tensor, padding_idx: int = -1, by_freq: bool = False) -> Tensor:
    attrs = {"indices": indices, "num_weights": weight.shape[0], "padding_idx": padding_idx, "by_freq": by_freq}
    return EmbeddingBackward0.record(weight._data[indices._data], (weight,), **attrs)


def _embedding_dense_backward(grad: Tensor, indices: Tensor, num_weights: int, padding_idx: int, by_freq: bool) -> Tensor:
    """Each looked-up row's gradient summed into its row; none for padding_idx (-1: none)."""
    idx = indices._data.reshape(-1)
    scale = (idx != padding_idx) / (np.bincount(idx, minlength=num_weights)[idx] if by_freq else 1)
    out = np.zeros((num_weights, grad.shape[-1]), dtype=grad._data.dtype)
    np.add.at(out, idx, grad._data.reshape(-1, grad.shape[-1]) * scale[:, None])
    return EmbeddingDenseBackward0.record(out, (grad,), indices=indices, padding_idx=padding_idx)


def _renorm_rows(weight: Tensor, indices: np.ndarray, max_norm: float, norm_type: float) -> None:
    """embedding_renorm_: rows that are looked up and longer than max_norm are scaled down in place."""
    rows = np.unique(indices)
    norms = np.linalg.norm(weight._data[rows], ord=norm_type, axis=1)
    long = norms > max_norm
    weight._data[rows[long]] *= (max_norm / (norms[long] + 1e-7))[:, None]
    bump_version(weight)


def _check_lookup(indices: Tensor, weight: Tensor) -> None:
    _check_integral(indices, "embedding")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    idx = indices._data
    if idx.size and (idx.min() < 0 or idx.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    num = weight.shape[0]
    if padding_idx is not None and not -num <= padding_idx < num:
        raise AssertionError("Padding_idx must be within num_embeddings")
    _check_lookup(input, weight)
    if max_norm is not None:
        _renorm_rows(weight, input._data, max_norm, norm_type)
    return _lookup(weight, input, -1 if padding_idx is None else padding_idx % num, scale_grad_by_freq, sparse)


# The lookup whose weight gradient is a sparse tensor (sparse=True): glassgrad.sparse, a floor above the ops,
# installs it when it is imported (glassgrad imports it at start-up).
sparse_rows: Callable[[Tensor, Tensor, int, bool], Tensor] | None = None


def _lookup(weight: Tensor, indices: Tensor, padding_idx: int, by_freq: bool, sparse: bool) -> Tensor:
    if sparse and sparse_rows is not None:
        return sparse_rows(weight, indices, padding_idx, by_freq)
    return _rows(weight, indices, padding_idx, by_freq)


def aten_embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
                   sparse: bool = False) -> Tensor:
    """torch.embedding: ATen's op under F.embedding, weight first; a padding_idx that is negative or past the last
    row names no row (F.embedding has already turned -1 into num - 1 and refused out-of-range ones)."""
    _check_lookup(indices, weight)
    return _lookup(weight, indices, padding_idx, scale_grad_by_freq, sparse)


# -- embedding_bag ---------------------------------------------------------------------------------------------
class _Bags(NamedTuple):
    """Where embedding_bag put each index: its bag, each bag's size without padding, and in max mode the row each
    output element came from (-1 in an empty bag)."""

    bag: np.ndarray
    size: np.ndarray
    max_rows: np.ndarray | None
    mode: str
    padding_idx: int
    by_freq: bool
    num_weights: int


def _not_implemented(kind: type[Exception], message: str) -> Callable[[Tensor], Tensor]:
    """PyTorch records a node for a backward without a derivative and raises only when a second backward reaches it."""

    def formula(grad: Tensor) -> Tensor:
        raise kind(message)

    return formula


def _index_scale(idx: np.ndarray, bags: _Bags, per_sample_weights: Tensor | None, dtype: np.dtype) -> np.ndarray:
    """Each index's factor in its bag's sum: 0 for padding, its per-sample weight, 1/size in mean mode."""
    scale = (idx != bags.padding_idx).astype(dtype)
    if per_sample_weights is not None:
        scale *= per_sample_weights._data
    if bags.mode == "mean":
        scale /= np.maximum(bags.size, 1)[bags.bag]
    return scale


def _frequency_divisor(idx: np.ndarray, num_weights: int) -> np.ndarray:
    """What PyTorch's CPU kernel divides each index's gradient by under scale_grad_by_freq: for the i-th distinct
    index (in sorted order) the count of the i-th *sorted* index, counts[indices_data[i]], not its own count.
    The oracle is PyTorch, so glassgrad divides the same way."""
    distinct, which = np.unique(idx, return_inverse=True)
    return np.bincount(idx, minlength=num_weights)[np.sort(idx)[: distinct.size]][which]


def _bag_weight_grad(grad: Tensor, indices: Tensor, per_sample_weights: Tensor | None, bags: _Bags) -> Tensor:
    g, idx = grad._data, indices._data
    out = np.zeros((bags.num_weights, g.shape[1]), dtype=g.dtype)
    if bags.max_rows is not None:
        bag, dim = np.nonzero(bags.max_rows >= 0)
        np.add.at(out, (bags.max_rows[bag, dim], dim), g[bag, dim])
    else:
        scale = _index_scale(idx, bags, per_sample_weights, g.dtype)
        if bags.by_freq:
            scale /= _frequency_divisor(idx, bags.num_weights)
        np.add.at(out, idx, g[bags.bag] * scale[:, None])
    if per_sample_weights is None:
        return _BAG_DOUBLE[("grad",)].record(out, (grad,))
    return _BAG_DOUBLE[("grad", "per_sample_weights")].record(out, (grad, per_sample_weights))


def _sample_weights_grad(grad: Tensor, weight: Tensor, indices: Tensor, bags: _Bags) -> Tensor:
    idx = indices._data
    out = np.einsum("nd,nd->n", grad._data[bags.bag], weight._data[idx]) * (idx != bags.padding_idx)
    return PerSampleWeightsBackward.record(out, (grad, weight))


_NO_BAG_DOUBLE = _not_implemented(NotImplementedError, "the derivative for '_embedding_bag_backward' is not implemented.")
_NO_SAMPLE_DOUBLE = _not_implemented(RuntimeError, "derivative for aten::_embedding_bag_per_sample_weights_backward is not implemented")
# Without per_sample_weights the nodes have one input fewer; PyTorch shows the same names.
_BAG_DOUBLE = {
    inputs: derivative("EmbeddingBagBackwardBackward0", inputs, **dict.fromkeys(inputs, _NO_BAG_DOUBLE))
    for inputs in (("grad",), ("grad", "per_sample_weights"))
}
PerSampleWeightsBackward = derivative("NotImplemented", ("grad", "weight"), grad=_NO_SAMPLE_DOUBLE, weight=_NO_SAMPLE_DOUBLE)
_BAG = {
    False: derivative("EmbeddingBagBackward0", ("weight",), weight=_bag_weight_grad, jvp=NoForwardAD("_embedding_bag")),
    True: derivative("EmbeddingBagBackward0", ("weight", "per_sample_weights"), weight=_bag_weight_grad,
                     jvp=NoForwardAD("_embedding_bag"),
                     per_sample_weights=_sample_weights_grad),
}


def _bag_starts(offsets: Tensor, count: int, include_last_offset: bool, index_type: str) -> np.ndarray:
    """Where each bag starts. With include_last_offset the last offset only closes the last bag, which PyTorch
    runs to the end of the input whatever that offset says."""
    starts = offsets._data.astype(np.int64)
    if include_last_offset:
        if not starts.size:
            raise RuntimeError("include_last_offset: number of offset should be at least 1")
        starts = starts[:-1]
    if starts.size:
        if starts[0] != 0:
            raise RuntimeError(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
                f"However, got {starts[0]}\n[ {index_type}{{}} ]"  # PyTorch prints offsets[0] as a 0-d tensor
            )
        if offsets._data[-1] > count:
            raise RuntimeError(
                f"offsets[-1] can not be greater than input's length {count} but got offsets[-1] of {offsets._data[-1]}"
            )
    if np.any(np.diff(starts) < 0):
        raise RuntimeError(
            f"embedding_bag: offsets must not decrease, as each bag runs from its offset to the next one, but got "
            f"offsets {offsets._data.tolist()}. Sort the bags, or give each one's start in input order."
        )
    if count and not starts.size:
        raise RuntimeError(
            f"embedding_bag: offsets gives no bag for the {count} indices of input. Start offsets with 0 (and with "
            "include_last_offset=True end them with the input's length)."
        )
    return starts


def _bags(idx: np.ndarray, starts: np.ndarray, weight: np.ndarray, mode: str, padding_idx: int, by_freq: bool) -> _Bags:
    bag = np.repeat(np.arange(starts.size), np.diff(np.append(starts, idx.size)))
    valid = idx != padding_idx
    size = np.bincount(bag[valid], minlength=starts.size)
    max_rows = None
    if mode == "max":
        # The first index reaching a bag's maximum wins ties, as PyTorch's strict `>` scan does.
        rows = np.where(valid[:, None], weight[idx], -np.inf)
        best = np.full((starts.size, weight.shape[1]), -np.inf, dtype=weight.dtype)
        np.maximum.at(best, bag, rows)
        first = np.full(best.shape, idx.size)
        hit = valid[:, None] & (rows == best[bag])
        np.minimum.at(first, bag, np.where(hit, np.arange(idx.size)[:, None], idx.size))
        max_rows = np.where(first < idx.size, np.append(idx, -1)[first], -1)
    return _Bags(bag, size, max_rows, mode, padding_idx, by_freq, weight.shape[0])


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sums, means or maxes of bags of embeddings: bag i holds input[offsets[i]:offsets[i + 1]], or row i of a 2-D input.
    `sparse` is accepted, but the weight's gradient is dense (glassgrad's sparse gradients cover F.embedding only)."""
    if weight.dtype in (_dtype.int64, _dtype.int32) and input.dtype.is_floating_point:
        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, input, ...)` is "
            "deprecated, and should now be `embedding_bag(input, weight, ...)`.", stacklevel=2,
        )
        weight, input = input, weight
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must have the same "
            f"shape as the input ({input.shape})"
        )
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
                f"sequences. However, found offsets of type {type(offsets)}"
            )
        if input.shape[1] == 0:
            raise RuntimeError(
                f"step must be nonzero: a 2D input of shape {list(input.shape)} makes bags of length 0, which PyTorch "
                "rejects. Give each bag at least one index, or pass a 1D input with offsets."
            )
        offsets = Tensor._wrap(np.arange(0, input.numel(), input.shape[1]))
        include_last_offset = False
        input = reshape(input, (-1,))
        if per_sample_weights is not None:
            per_sample_weights = reshape(per_sample_weights, (-1,))
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            f"embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub."
        )
    num = weight.shape[0]
    if padding_idx is not None and not -num <= padding_idx < num:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} through {num - 1}, but got {padding_idx}")
    _check_integral(input, "embedding_bag")
    _check_integral(offsets, "embedding_bag", type_name=offsets.type())  # PyTorch names the promoted pair 'indices'
    if not weight.dtype.is_floating_point:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, BFloat16, Float, "
            f"Double; but got {weight.type()} instead (while checking arguments for embedding_bag)"
        )
    index_type = (input if input.dtype is _dtype.int64 else offsets).type()  # indices and offsets promoted together
    starts = _bag_starts(offsets, input.numel(), include_last_offset, index_type)
    if per_sample_weights is not None and per_sample_weights.dtype is not weight.dtype:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
            f"'per_sample_weights'; but type {weight.type()} does not equal {per_sample_weights.type()} (while checking "
            "arguments for embedding_bag)"
        )
    idx = input._data
    out_of_range = (idx < 0) | (idx >= num)
    if out_of_range.any():
        raise RuntimeError(f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {idx[out_of_range][0]}")
    if max_norm is not None:
        _renorm_rows(weight, idx, max_norm, norm_type)
    bags = _bags(idx, starts, weight._data, mode, -1 if padding_idx is None else padding_idx % num, scale_grad_by_freq)
    out = np.zeros((starts.size, weight.shape[1]), dtype=weight._data.dtype)
    if bags.max_rows is not None:
        bag, dim = np.nonzero(bags.max_rows >= 0)
        out[bag, dim] = weight._data[bags.max_rows[bag, dim], dim]
    else:
        np.add.at(out, bags.bag, weight._data[idx] * _index_scale(idx, bags, per_sample_weights, out.dtype)[:, None])
    inputs = (weight,) if per_sample_weights is None else (weight, per_sample_weights)
    return _BAG[per_sample_weights is not None].record(out, inputs, indices=input, per_sample_weights=per_sample_weights, bags=bags)


FUNCTIONS: dict[str, Callable[..., Any]] = {"embedding": embedding, "embedding_bag": embedding_bag}
ALSO: dict[str, dict[str, Callable[..., Any]]] = {"glassgrad": {"embedding": aten_embedding}}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
