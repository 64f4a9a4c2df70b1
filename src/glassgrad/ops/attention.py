"""scaled_dot_product_attention of glassgrad.nn.functional.

softmax(query key^T * scale + mask) value over the last two dims, leading dims broadcast. PyTorch's
CPU build picks a fused kernel for 4-d inputs without dropout (and a few more conditions, _fused);
glassgrad then records one node of that kernel's name whose formulas recompute the attention weights
from the saved query and key, so that, unlike PyTorch's, it has second derivatives. Elsewhere (PyTorch's
math path: dropout, a mask that requires grad, other ranks) the attention is composed of glassgrad ops.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import CPP_NAMES, bool_, float32
from ..autograd import grad_mode
from ..tensor import Tensor
from .activations import tensor_softmax
from .convolution import dropout
from .elementwise import broadcast_shape, masked_fill, where
from .linalg import matmul
from .rearrange import repeat_interleave
from .reduction import sum as reduce_sum
from .shape import reshape, transpose
from .table import NoForwardAD, derivative

NAMESPACE = "glassgrad.nn.functional"


def _scale(query: Tensor, scale: float | None) -> float:
    return 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale


def _additive(attn_mask: Tensor | None, like: Tensor) -> Tensor | None:
    """A bool mask (True: take part) as 0 and -inf of `like`'s dtype; a float mask is added as it is."""
    if attn_mask is None or attn_mask.dtype is not bool_:
        return attn_mask
    return Tensor._wrap(np.where(attn_mask._data, 0.0, -np.inf).astype(like._data.dtype))


def _weights(query: Tensor, key: Tensor, attn_mask: Tensor | None, is_causal: bool, scale: float) -> Tensor:
    """The attention weights; a query that every key is masked from gets zeros (PyTorch's _safe_softmax)."""
    scores = matmul(query, transpose(key, -2, -1)) * scale
    if attn_mask is not None:
        if broadcast_shape(scores.shape, attn_mask.shape) != tuple(scores.shape):  # PyTorch adds it in place
            raise RuntimeError(
                f"output with shape {list(scores.shape)} doesn't match the broadcast shape "
                f"{list(broadcast_shape(scores.shape, attn_mask.shape))}"
            )
        scores = scores + attn_mask
    if is_causal:  # query i sees keys 0..i, counted from the top-left corner
        above = np.triu(np.ones(scores.shape[-2:], dtype=bool), 1)
        scores = masked_fill(scores, Tensor._wrap(above), -math.inf)
    # Rows with no key left are softmaxed as zeros and then zeroed, so neither value nor gradient turns nan.
    empty = Tensor._wrap(np.all(np.isneginf(scores._data), axis=-1, keepdims=True))
    return where(empty, 0.0, tensor_softmax(masked_fill(scores, empty, 0.0), -1))


def _per_query_head(t: Tensor, heads: int) -> Tensor:
    """Grouped-query attention: key/value head h serves query heads h * g .. h * g + g - 1."""
    groups = heads // t.shape[-3]
    return t if groups == 1 else repeat_interleave(t, groups, dim=-3)


def _per_own_head(grad: Tensor, heads: int) -> Tensor:
    """The adjoint of _per_query_head: the gradients of the query heads a key/value head served, summed."""
    groups = grad.shape[-3] // heads
    if groups == 1:
        return grad
    return reduce_sum(reshape(grad, (*grad.shape[:-3], heads, groups, *grad.shape[-2:])), -3)


# -- PyTorch's fused CPU kernel: one node ----------------------------------------------------------------
def _score_grad(grad: Tensor, query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, is_causal: bool,
                scale: float) -> tuple[Tensor, Tensor]:
    """The weights and the gradient of the scaled scores (softmax's backward, through dP = dO V^T)."""
    heads = query.shape[-3]
    p = _weights(query, _per_query_head(key, heads), attn_mask, is_causal, scale)
    dp = matmul(grad, transpose(_per_query_head(value, heads), -2, -1))
    return p, p * (dp - reduce_sum(p * dp, -1, keepdim=True)) * scale


def _query_grad(grad: Tensor, query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, is_causal: bool,
                scale: float) -> Tensor:
    _, ds = _score_grad(grad, query, key, value, attn_mask, is_causal, scale)
    return matmul(ds, _per_query_head(key, query.shape[-3]))


def _key_grad(grad: Tensor, query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, is_causal: bool,
              scale: float) -> Tensor:
    _, ds = _score_grad(grad, query, key, value, attn_mask, is_causal, scale)
    return _per_own_head(matmul(transpose(ds, -2, -1), query), key.shape[-3])


def _value_grad(grad: Tensor, query: Tensor, key: Tensor, attn_mask: Tensor | None, is_causal: bool, scale: float,
                value_heads: int) -> Tensor:
    p = _weights(query, _per_query_head(key, query.shape[-3]), attn_mask, is_causal, scale)
    return _per_own_head(matmul(transpose(p, -2, -1), grad), value_heads)


ScaledDotProductFlashAttentionForCpuBackward0 = derivative(
    "ScaledDotProductFlashAttentionForCpuBackward0", ("query", "key", "value"),
    jvp=NoForwardAD("_scaled_dot_product_flash_attention_for_cpu"),
    query=_query_grad, key=_key_grad, value=_value_grad,
)


def _fused(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, dropout_p: float,
           enable_gqa: bool) -> bool:
    """Whether PyTorch's CPU dispatch takes the fused kernel for these inputs."""
    if not (query.ndim == key.ndim == value.ndim == 4) or dropout_p > 0.0 or 0 in query.shape or 0 in key.shape:
        return False
    if attn_mask is not None and (attn_mask.ndim not in (2, 4) or attn_mask.requires_grad):
        return False
    (b, h, _, e), (kb, kh, _, ke), (vb, vh, _, ve) = query.shape, key.shape, value.shape
    heads = kh == vh and (kh == h or (enable_gqa and h % kh == 0))
    return b == kb == vb and e == ke == ve and heads


def _check(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, enable_gqa: bool) -> None:
    for position, (name, t) in enumerate((("query", query), ("key", key), ("value", value)), 1):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"scaled_dot_product_attention(): argument '{name}' (position {position}) must be Tensor, not "
                f"{type(t).__name__}"
            )
    if attn_mask is not None and not isinstance(attn_mask, Tensor):
        raise TypeError(f"scaled_dot_product_attention(): argument 'attn_mask' must be Tensor, not {type(attn_mask).__name__}")
    names = [CPP_NAMES[t.dtype] for t in (query, key, value)]
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: {names[0]} key.dtype: "
            f"{names[1]} and value.dtype: {names[2]} instead."
        )
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(
            f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: {query.ndim} key.dim: "
            f"{key.ndim} and value.dim: {value.ndim} instead."
        )
    if attn_mask is not None and attn_mask.dtype not in (bool_, float32, query.dtype):
        raise RuntimeError(
            f"Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
            f"{CPP_NAMES[attn_mask.dtype]} and  query.dtype: {names[0]} instead."
        )
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found {query.dtype.scalar_name}")
    if enable_gqa and min(query.ndim, key.ndim, value.ndim) < 3:  # there is no heads dim to group
        rank = min(query.ndim, key.ndim, value.ndim)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got -3)")
    if enable_gqa and any(query.shape[-3] % t.shape[-3] for t in (key, value)):
        raise RuntimeError(
            "Number of heads in key and value must divide the number of heads in query, but got query heads "
            f"{query.shape[-3]}, key heads {key.shape[-3]} and value heads {value.shape[-3]}"
        )


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    _check(query, key, value, attn_mask, enable_gqa)
    if dropout_p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    mask, s = _additive(attn_mask, query), _scale(query, scale)
    if _fused(query, key, value, attn_mask, dropout_p, enable_gqa):
        if dropout_p < 0.0:  # PyTorch sends it to the fused kernel (it is not > 0), which refuses any dropout
            raise RuntimeError("scaled_dot_product_attention_flash_attention: Currently do not support dropout > 0")
        with grad_mode.no_grad():
            heads = query.shape[-3]
            p = _weights(query, _per_query_head(key, heads), mask, is_causal, s)
            out = matmul(p, _per_query_head(value, heads))._data
        return ScaledDotProductFlashAttentionForCpuBackward0.record(
            out, (query, key, value), attn_mask=mask, is_causal=is_causal, scale=s, value_heads=value.shape[-3]
        )
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if enable_gqa:
        key, value = _per_query_head(key, query.shape[-3]), _per_query_head(value, query.shape[-3])
    weights = _weights(query, key, mask, is_causal, s)
    if dropout_p > 0.0:  # drawn from glassgrad's generator, as F.dropout; PyTorch's math path ignores a negative p
        weights = dropout(weights, dropout_p)
    return matmul(weights, value)


FUNCTIONS: dict[str, Callable[..., Any]] = {"scaled_dot_product_attention": scaled_dot_product_attention}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
