"""Activation modules (thin wrappers over nn.functional) and MultiheadAttention, at torch.nn.modules.activation.

Each activation names its functional in `_function`; its constructor arguments become the
functional's keyword arguments (read once from the constructor's signature), so a module is
its signature plus nothing else. `extra_repr` follows PyTorch's: every option but `inplace`
as name=value, then `inplace=True` only when set.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, ClassVar

from ...ops.creation import empty
from ...ops.elementwise import sigmoid, tanh
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


class Threshold(_Activation):
    _function = F.threshold

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace


class _Shrink(_Activation):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return str(self.lambd)  # PyTorch shows the bare number


class Hardshrink(_Shrink):
    _function = F.hardshrink


class Softshrink(_Shrink):
    _function = F.softshrink


class RReLU(_Activation):
    """Random slopes on [lower, upper] while training (from glassgrad's generator); their mean in evaluation."""

    _function = F.rrelu

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)


class PReLU(Module):
    """A learned slope for negative inputs: one, or one per channel (dim 1), starting at `init`."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


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


class Softmax2d(Module):
    """Softmax over the channels of a (N, C, H, W) or (C, H, W) input."""

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3)


class MultiheadAttention(Module):
    """Attention(Q, K, V) over num_heads heads of embed_dim // num_heads, as torch.nn.MultiheadAttention.

    The parameters and their layout are PyTorch's (one packed in_proj_weight when kdim == vdim ==
    embed_dim, else q/k/v_proj_weight); the computation is F.multi_head_attention_forward.
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

    def forward(
        self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
        need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        is_batched = query.dim() == 3
        key_padding_mask = F._canonical_mask(
            key_padding_mask, "key_padding_mask", F._none_or_dtype(attn_mask), "attn_mask", query.dtype
        )
        attn_mask = F._canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and is_batched:
            # Keep `query is key is value` (and `key is value`): the in-projection groups its products by it.
            if key is value:
                query, key = (query.transpose(1, 0), key.transpose(1, 0)) if query is not key else (query.transpose(1, 0),) * 2
                value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = {} if self._qkv_same_embed_dim else {
            "use_separate_proj_weight": True, "q_proj_weight": self.q_proj_weight, "k_proj_weight": self.k_proj_weight,
            "v_proj_weight": self.v_proj_weight,
        }
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            average_attn_weights=average_attn_weights, is_causal=is_causal, **separate,
        )
        return (out.transpose(1, 0) if self.batch_first and is_batched else out), weights
