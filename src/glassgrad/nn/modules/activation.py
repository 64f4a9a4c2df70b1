"""Activation modules (thin wrappers over nn.functional) and MultiheadAttention, at torch.nn.modules.activation.

Each activation names its functional in `_function`; its constructor arguments become the
functional's keyword arguments (read once from the constructor's signature), so a module is
its signature plus nothing else. `extra_repr` follows PyTorch's: every option but `inplace`
as name=value, then `inplace=True` only when set.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

from ... import _dtype
from ...ops.creation import empty, zeros
from ...ops.elementwise import sigmoid, tanh
from ...ops.shape import cat
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module


def constructor_options(cls: type, skip: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The named parameters of cls.__init__ (not self, *args, **kwargs or `skip`), in order."""
    return tuple(
        p.name for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in skip
    )


class _Activation(Module):
    _function: ClassVar[Callable[..., Tensor]]
    _options: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._options = constructor_options(cls)

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, **{name: getattr(self, name) for name in self._options})

    def extra_repr(self) -> str:
        shown = [f"{name}={getattr(self, name)!r}" for name in self._options if name != "inplace"]
        if getattr(self, "inplace", False):
            shown.append("inplace=True")
        return ", ".join(shown)


class _InplaceActivation(_Activation):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class ReLU(_InplaceActivation):
    _function = F.relu


class ReLU6(_InplaceActivation):
    _function = F.relu6


class SELU(_InplaceActivation):
    _function = F.selu


class SiLU(_InplaceActivation):
    _function = F.silu


class Mish(_InplaceActivation):
    _function = F.mish


class Hardsigmoid(_InplaceActivation):
    _function = F.hardsigmoid


class Hardswish(_InplaceActivation):
    _function = F.hardswish


class Sigmoid(_Activation):
    _function = sigmoid


class Tanh(_Activation):
    _function = tanh


class Softsign(_Activation):
    _function = F.softsign


class Tanhshrink(_Activation):
    _function = F.tanhshrink


class LogSigmoid(_Activation):
    _function = F.logsigmoid


class LeakyReLU(_Activation):
    _function = F.leaky_relu

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace


class _AlphaActivation(_Activation):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace


class ELU(_AlphaActivation):
    _function = F.elu


class CELU(_AlphaActivation):
    _function = F.celu


class GELU(_Activation):
    _function = F.gelu

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate


class Softplus(_Activation):
    _function = F.softplus

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold


class Hardtanh(_Activation):
    _function = F.hardtanh

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        if max_val <= min_val:
            raise ValueError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace


class GLU(_Activation):
    _function = F.glu

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim


class _SoftmaxFamily(_Activation):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        # _stacklevel points the implicit-dim warning at the caller of the module, as PyTorch's does.
        return type(self)._function(input, self.dim, _stacklevel=5)


class Softmax(_SoftmaxFamily):
    _function = F.softmax


class LogSoftmax(_SoftmaxFamily):
    _function = F.log_softmax


class Softmin(_SoftmaxFamily):
    _function = F.softmin


def canonical_mask(mask: Tensor | None, name: str, other: Tensor | None, other_name: str, like: Tensor) -> Tensor | None:
    """A boolean mask (True = masked) as an additive float mask of `like`'s dtype; float masks pass through."""
    if mask is None:
        return None
    if mask.dtype != _dtype.bool_ and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and other.dtype != mask.dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same type for both instead.", stacklevel=3)
    if mask.is_floating_point():
        return mask
    return zeros(mask.shape, dtype=like.dtype).masked_fill(mask, float("-inf"))


class MultiheadAttention(Module):
    """Attention(Q, K, V) over num_heads heads of embed_dim // num_heads, as torch.nn.MultiheadAttention.

    Always computes the attention weights explicitly (PyTorch's need_weights path); with
    need_weights=False the result is the same up to rounding, PyTorch merely takes a fused kernel.
    """

    def __init__(
        self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True, add_bias_kv: bool = False,
        add_zero_attn: bool = False, kdim: int | None = None, vdim: int | None = None, batch_first: bool = False,
        device: Any = None, dtype: Any = None,
    ) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and num_heads={num_heads} instead"
            )
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **factory))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **factory))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **factory))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **factory))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **factory))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **factory)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **factory))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **factory))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def _project(self, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        e = self.embed_dim
        biases = [None] * 3 if self.in_proj_bias is None else [self.in_proj_bias[i * e:(i + 1) * e] for i in range(3)]
        if self._qkv_same_embed_dim:
            weights = [self.in_proj_weight[i * e:(i + 1) * e] for i in range(3)]
        else:
            weights = [self.q_proj_weight, self.k_proj_weight, self.v_proj_weight]
        q, k, v = (F.linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases, strict=True))
        return q, k, v

    def forward(
        self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
        need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module method `generate_square_subsequent_mask` to create this mask.")
        batched = query.dim() == 3
        if self.batch_first and batched:
            query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        if not batched:  # (L, E): a batch of one, squeezed again at the end
            query, key, value = (x.unsqueeze(1) for x in (query, key, value))
            key_padding_mask = key_padding_mask.unsqueeze(0) if key_padding_mask is not None else None
        tgt_len, bsz, _ = query.shape
        key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", attn_mask, "attn_mask", query)
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query)
        q, k, v = self._project(query, key, value)
        if self.bias_k is not None:
            k = cat([k, self.bias_k.repeat(1, bsz, 1)])
            v = cat([v, self.bias_v.repeat(1, bsz, 1)])
            attn_mask = F.pad(attn_mask, (0, 1)) if attn_mask is not None else None
            key_padding_mask = F.pad(key_padding_mask, (0, 1)) if key_padding_mask is not None else None
        heads = bsz * self.num_heads
        q = q.reshape(tgt_len, heads, self.head_dim).transpose(0, 1)
        k = k.reshape(k.shape[0], heads, self.head_dim).transpose(0, 1)
        v = v.reshape(v.shape[0], heads, self.head_dim).transpose(0, 1)
        if self.add_zero_attn:
            k = cat([k, zeros((heads, 1, self.head_dim), dtype=k.dtype)], dim=1)
            v = cat([v, zeros((heads, 1, self.head_dim), dtype=v.dtype)], dim=1)
            attn_mask = F.pad(attn_mask, (0, 1)) if attn_mask is not None else None
            key_padding_mask = F.pad(key_padding_mask, (0, 1)) if key_padding_mask is not None else None
        src_len = k.shape[1]
        scores = (q * math.sqrt(1.0 / self.head_dim)).bmm(k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + (attn_mask.unsqueeze(0) if attn_mask.dim() == 2 else attn_mask)
        if key_padding_mask is not None:
            padding = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, self.num_heads, -1, -1)
            scores = scores + padding.reshape(heads, 1, src_len)
        weights = scores.softmax(dim=-1)
        if self.training and self.dropout > 0.0:
            weights = F.dropout(weights, p=self.dropout)
        out = weights.bmm(v).transpose(0, 1).reshape(tgt_len * bsz, self.embed_dim)
        out = self.out_proj(out).view(tgt_len, bsz, self.embed_dim)
        if not batched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(1, 0)
        if not need_weights:
            return out, None
        weights = weights.view(bsz, self.num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        return out, weights if batched else weights.squeeze(0)
