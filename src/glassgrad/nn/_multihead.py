"""F.multi_head_attention_forward and the mask helpers that attention and transformer modules share.

Follows torch/nn/functional.py step for step (shape checks, mask canonicalisation, in-projection,
bias_k/bias_v, add_zero_attn, mask merging), so that errors, outputs and gradients match. PyTorch
takes two routes to the attention itself and they differ where a query may attend to nothing: with
need_weights=True it is an explicit softmax (such rows are NaN); with need_weights=False it is
scaled_dot_product_attention, whose softmax gives such rows zero weight. Both are kept here.
"""

from __future__ import annotations

import math
import warnings

from .. import _dtype
from ..ops.activations import linear
from ..ops.convolution import dropout, pad
from ..ops.creation import full, zeros
from ..ops.shape import cat
from ..tensor import Tensor

_NEG_INF = float("-inf")


def _none_or_dtype(input: Tensor | None) -> _dtype.dtype | None:
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(
    mask: Tensor | None, mask_name: str, other_type: _dtype.dtype | None, other_name: str, target_type: _dtype.dtype,
    check_other: bool = True,
) -> Tensor | None:
    """A boolean mask (True = may not attend) as an additive mask of target_type (-inf where True); float masks pass."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != _dtype.bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both instead.",
            stacklevel=3,
        )
    if is_float:
        return mask
    return zeros(mask.shape, dtype=target_type).masked_fill(mask, _NEG_INF)


def _mha_shape_check(
    query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None, attn_mask: Tensor | None, num_heads: int
) -> bool:
    """Whether the call is batched (3-D query) or not (2-D); raises PyTorch's AssertionError for any other rank mix."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                f" but found {key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D"
                f" but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                f" but found {attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
                f" but found {key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D"
                f" but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                    f" but found {attn_mask.dim()}-D tensor instead"
                )
            expected_shape = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and attn_mask.shape != expected_shape:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected_shape} but got {attn_mask.shape}")
        return False
    raise AssertionError(
        f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor"
    )


def _safe_softmax(scores: Tensor) -> Tensor:
    """Softmax over the last dim that gives rows of only -inf zero weights (and zero gradients), not NaN."""
    dead = (scores == _NEG_INF).all(dim=-1, keepdim=True)
    if not dead.any():
        return scores.softmax(dim=-1)
    # Mask before the softmax too: a NaN row would reach the scores' gradient through softmax's backward.
    return scores.masked_fill(dead, 0.0).softmax(dim=-1).masked_fill(dead, 0.0)


def _check_static(static: Tensor, name: str, heads: int, head_dim: int) -> None:
    if static.size(0) != heads:
        raise AssertionError(f"expecting {name}.size(0) of {heads}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Tensor | None) -> tuple[Tensor, ...]:
    """q, k, v through the packed (3E, E) weight's row blocks: one product for self-attention, two for k is v.

    The grouping is PyTorch's, which also decides which shapes a size mismatch reports.
    """
    e = q.size(-1)

    def unpack(proj: Tensor, n: int) -> tuple[Tensor, ...]:
        # n contiguous (..., E) blocks: the heads' reshape that follows needs them contiguous.
        return tuple(proj.unflatten(-1, (n, e)).movedim(-2, 0).contiguous())

    if k is v:
        if q is k:
            return unpack(linear(q, w, b), 3)
        w_q, w_kv = w.split([e, 2 * e])
        b_q, b_kv = (None, None) if b is None else b.split([e, 2 * e])
        return (linear(q, w_q, b_q), *unpack(linear(k, w_kv, b_kv), 2))
    biases: tuple[Tensor | None, ...] = (None,) * 3 if b is None else b.chunk(3)
    return tuple(linear(x, w_x, b_x) for x, w_x, b_x in zip((q, k, v), w.chunk(3), biases, strict=True))


def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int, in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float,
    out_proj_weight: Tensor, out_proj_bias: Tensor | None, training: bool = True, key_padding_mask: Tensor | None = None,
    need_weights: bool = True, attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None, static_v: Tensor | None = None, average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Sequence-first (L, N, E) attention as torch.nn.functional.multi_head_attention_forward."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:  # a batch of one, squeezed again at the end
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask", query.dtype
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    # PyTorch trusts the hint over the mask when nothing needs the mask itself: attention is then causal,
    # whatever attn_mask holds.
    causal = is_causal and key_padding_mask is None and not need_weights
    attn_mask = None if causal else _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's {value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        separate = (q_proj_weight, k_proj_weight, v_proj_weight)
        for name, w in zip("qkv", separate, strict=True):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        biases: tuple[Tensor | None, ...] = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = (linear(x, w, b) for x, w, b in zip((query, key, value), separate, biases, strict=True))  # type: ignore[arg-type]

    src_len = key.shape[0]
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if attn_mask.shape != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if attn_mask.shape != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {(bsz * num_heads, tgt_len, src_len)}."
                )
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    def extend_masks() -> None:
        # One more key (bias_k or the zero key): every mask gains an attendable column.
        nonlocal attn_mask, key_padding_mask
        attn_mask = pad(attn_mask, (0, 1)) if attn_mask is not None else None
        key_padding_mask = pad(key_padding_mask, (0, 1)) if key_padding_mask is not None else None

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        extend_masks()
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    heads = bsz * num_heads
    q = q.view(tgt_len, heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], heads, head_dim).transpose(0, 1)
    else:
        _check_static(static_k, "static_k", heads, head_dim)
        k = static_k
    if static_v is None:
        v = v.view(v.shape[0], heads, head_dim).transpose(0, 1)
    else:
        _check_static(static_v, "static_v", heads, head_dim)
        v = static_v
    if add_zero_attn:
        k = cat([k, zeros((heads, 1, head_dim), dtype=k.dtype)], dim=1)
        v = cat([v, zeros((heads, 1, head_dim), dtype=v.dtype)], dim=1)
        extend_masks()
    src_len = k.size(1)

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got {key_padding_mask.shape[1]}")
        per_head = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(heads, 1, src_len)
        attn_mask = per_head if attn_mask is None else attn_mask + per_head
    if causal:
        attn_mask = full((tgt_len, src_len), _NEG_INF, dtype=q.dtype).triu(1)
    if not training:
        dropout_p = 0.0

    scores = (q * math.sqrt(1.0 / float(head_dim))).bmm(k.transpose(-2, -1))
    if attn_mask is not None:
        scores = attn_mask + scores
    weights = scores.softmax(dim=-1) if need_weights else _safe_softmax(scores)
    if dropout_p > 0.0:
        weights = dropout(weights, p=dropout_p)
    out = weights.bmm(v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
    if not is_batched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    weights = weights.view(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    return out, weights if is_batched else weights.squeeze(0)
