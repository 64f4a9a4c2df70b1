"""Transformer, its encoder and decoder stacks and their layers, at torch.nn.modules.transformer.

Each layer is attention and a feed-forward block with residuals, post-norm (PyTorch's default)
or pre-norm (norm_first=True). Submodule names, constructor arguments and initialisation are
PyTorch's, so state_dicts interchange. PyTorch's inference fast paths (fused kernels) are not
taken; where one changes results beyond rounding in a way programs can see, the change is made
here too (TransformerEncoder's nested-tensor path zeroes padded positions).
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ...autograd.grad_mode import is_grad_enabled
from ...ops.creation import full, tensor
from ...tensor import Tensor
from .. import functional as F
from ..init import xavier_uniform_
from .activation import GELU, MultiheadAttention, ReLU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

Activation = str | Callable[[Tensor], Tensor]


def _generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
    """(sz, sz) float mask: 0 on and below the diagonal, -inf above, so position i attends to positions <= i."""
    return full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(1)


def _get_seq_len(src: Tensor, batch_first: bool) -> int:
    return src.size(0) if src.dim() == 2 else src.size(1 if batch_first else 0)


def _detect_is_causal_mask(mask: Tensor | None, is_causal: bool | None = None, size: int | None = None) -> bool:
    """is_causal when given; otherwise whether mask is exactly the square subsequent mask for this sequence length."""
    if is_causal is not None or mask is None:
        return is_causal is True
    causal = _generate_square_subsequent_mask(size if size is not None else mask.size(-2), dtype=mask.dtype)
    return tuple(mask.shape) == tuple(causal.shape) and bool((mask == causal).all())


def _get_activation_fn(activation: str) -> Callable[[Tensor], Tensor]:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _get_clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


class _Layer(Module):
    """What both layers share: self-attention, the feed-forward block and norms, built in PyTorch's registration order.

    A decoder layer (_cross) also attends to the encoder's memory, which adds multihead_attn, norm3
    and dropout3; its feed-forward block then ends with dropout3 instead of dropout2.
    """

    _cross: ClassVar[bool]

    def __init__(
        self, d_model: int, nhead: int, dim_feedforward: int, dropout: float, activation: Activation,
        layer_norm_eps: float, batch_first: bool, norm_first: bool, bias: bool, factory: dict[str, Any],
    ) -> None:
        super().__init__()
        cross = self._cross
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **factory)
        if cross:
            self.multihead_attn = MultiheadAttention(
                d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **factory
            )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
        self.norm_first = norm_first
        norms = 3 if cross else 2
        for i in range(1, norms + 1):
            setattr(self, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory))
        for i in range(1, norms + 1):
            setattr(self, f"dropout{i}", Dropout(dropout))
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None, is_causal: bool) -> Tensor:
        x = self.self_attn(
            x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False, is_causal=is_causal
        )[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        last_dropout = self.dropout3 if self._cross else self.dropout2
        return last_dropout(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoderLayer(_Layer):
    """Self-attention then feed-forward, each with a residual connection and a LayerNorm."""

    _cross = False

    def __init__(
        self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
        activation: Activation = F.relu, layer_norm_eps: float = 1e-5, batch_first: bool = False,
        norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None,
    ) -> None:
        super().__init__(
            d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first, bias,
            {"device": device, "dtype": dtype},
        )
        # PyTorch's fast-path flag (1 relu, 2 gelu, 0 other); kept because code and TransformerEncoder read it.
        if self.activation is F.relu or isinstance(self.activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif self.activation is F.gelu or isinstance(self.activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0

    def forward(
        self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        src_key_padding_mask = F._canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", F._none_or_dtype(src_mask), "src_mask", src.dtype
        )
        src_mask = F._canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))


class TransformerDecoderLayer(_Layer):
    """Self-attention, attention over the encoder's memory, then feed-forward; each with a residual and a LayerNorm."""

    _cross = True

    def __init__(
        self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
        activation: Activation = F.relu, layer_norm_eps: float = 1e-5, batch_first: bool = False,
        norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None,
    ) -> None:
        super().__init__(
            d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first, bias,
            {"device": device, "dtype": dtype},
        )

    def forward(
        self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False, memory_is_causal: bool = False,
    ) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _mha_block(
        self, x: Tensor, mem: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None, is_causal: bool
    ) -> Tensor:
        x = self.multihead_attn(
            x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal, need_weights=False
        )[0]
        return self.dropout2(x)


def _why_no_nested_tensor(layer: Module) -> str:
    """PyTorch's reason, if any, why TransformerEncoder could not use nested tensors with this layer (it warns)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attn = layer.self_attn
    reasons = (
        (layer.norm_first, f"{name}.norm_first was True"),
        (not attn.batch_first, f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"),
        (not attn._qkv_same_embed_dim, f"{name}.self_attn._qkv_same_embed_dim was not True"),
        (attn.in_proj_bias is None, f"{name}.self_attn was passed bias=False"),
        (not layer.activation_relu_or_gelu, f"{name}.activation_relu_or_gelu was not True"),
        (layer.norm1.eps != layer.norm2.eps, f"{name}.norm1.eps was not equal to {name}.norm2.eps"),
        (attn.num_heads % 2 == 1, f"{name}.self_attn.num_heads is odd"),
    )
    return next((reason for failed, reason in reasons if failed), "")


class TransformerEncoder(Module):
    """num_layers deep copies of encoder_layer, then the optional final norm."""

    def __init__(
        self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
        enable_nested_tensor: bool = True, mask_check: bool = True,
    ) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why_not:
            # PyTorch's warning, kept so that programs filtering or expecting it behave the same.
            warnings.warn(
                f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}", stacklevel=2
            )
            self.use_nested_tensor = False

    def forward(
        self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        src_key_padding_mask = F._canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", F._none_or_dtype(mask), "mask", src.dtype
        )
        mask = F._canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        seq_len = _get_seq_len(src, self.layers[0].self_attn.batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        # PyTorch's inference path turns the batch into a nested tensor of each sequence's first n_i positions
        # (n_i unpadded ones) and pads it back with zeros: padded positions come out as 0 (before the final norm).
        nested_padding = self._nested_padding(src, mask, src_key_padding_mask)
        if nested_padding is not None:
            src_key_padding_mask = F._canonical_mask(nested_padding, "src_key_padding_mask", None, "", src.dtype)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if nested_padding is not None:
            output = output.masked_fill(nested_padding.unsqueeze(-1), 0.0)
        return output if self.norm is None else self.norm(output)

    def _nested_padding(self, src: Tensor, mask: Tensor | None, padding: Tensor | None) -> Tensor | None:
        """Where PyTorch takes its nested-tensor path (inference on a batch with a padding mask and no attention
        mask): the positions (True) outside each sequence's first n_i, n_i its count of unpadded positions."""
        first = self.layers[0]
        if not self.use_nested_tensor or first.training or src.dim() != 3 or padding is None or mask is not None:
            return None
        padded = (padding != 0).numpy()
        # With mask_check, padding anywhere but at the end rules the path out; without it PyTorch assumes that.
        if self.mask_check and (np.diff(padded.astype(np.int8), axis=1) < 0).any():
            return None
        attn = first.self_attn
        tensors = (
            src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias, first.norm1.weight,
            first.norm1.bias, first.norm2.weight, first.norm2.bias, first.linear1.weight, first.linear1.bias,
            first.linear2.weight, first.linear2.bias,
        )
        if is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors):
            return None
        lengths = (~padded).sum(axis=1)
        return tensor(np.arange(padded.shape[1])[None, :] >= lengths[:, None])


class TransformerDecoder(Module):
    """num_layers deep copies of decoder_layer, each attending to the same memory, then the optional final norm."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None, memory_is_causal: bool = False,
    ) -> Tensor:
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        output = tgt
        for layer in self.layers:
            output = layer(
                output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                memory_is_causal=memory_is_causal,
            )
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    """The encoder-decoder model of "Attention Is All You Need": TransformerEncoder and TransformerDecoder with final norms."""

    def __init__(
        self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
        dim_feedforward: int = 2048, dropout: float = 0.1, activation: Activation = F.relu,
        custom_encoder: Any | None = None, custom_decoder: Any | None = None, layer_norm_eps: float = 1e-5,
        batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None,
    ) -> None:
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        options = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(*options, **factory), num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory),
            )
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(*options, **factory), num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory),
            )
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(
        self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None, tgt_is_causal: bool | None = None, memory_is_causal: bool = False,
    ) -> Tensor:
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.size(batch_dim) != tgt.size(batch_dim):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(
            tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)
