"""torch.ops.aten: PyTorch's ATen operators by name, mapped onto glassgrad's functions. Partial by design.

`torch.ops.aten.NAME` is the function `_ATEN` names for NAME (an op whose aten signature is not a public
function's), else glassgrad's public op NAME (ops.FUNCTIONS), else the Tensor method NAME; anything else is an
AttributeError, as an unknown name is in PyTorch. `.default` is the op itself: glassgrad has no overloads to
choose between, so code that picks `aten.X.default` (or compares `func.overloadpacket`) sees one op per name.
Extend `_ATEN` where an aten op's arguments differ from the public function of its name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .tensor import Tensor


class OpOverloadPacket:
    """torch.ops.aten.NAME: calls the glassgrad function it stands for."""

    def __init__(self, name: str, fn: Callable[..., Any]) -> None:
        self._name, self._fn = name, fn
        self.__name__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    @property
    def default(self) -> OpOverloadPacket:
        return self

    @property
    def overloadpacket(self) -> OpOverloadPacket:
        return self

    def name(self) -> str:
        return f"aten::{self._name}"

    def __repr__(self) -> str:
        return f"aten.{self._name}"


def convolution_backward(
    grad_output: Tensor, input: Tensor, weight: Tensor, bias_sizes: Sequence[int] | None, stride: Sequence[int],
    padding: Sequence[int], dilation: Sequence[int], transposed: bool, output_padding: Sequence[int], groups: int,
    output_mask: Sequence[bool],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    """(grad_input, grad_weight, grad_bias) of a convolution, None where output_mask leaves one out; computed by
    differentiating the convolution itself, so tangents of the arguments reach the gradients."""
    from .autograd.engine import grad
    from .autograd.forward_ad import keeping_tangent
    from .autograd.grad_mode import enable_grad
    from .ops.convolution import _conv, _conv_transpose

    n = weight.ndim - 2
    wanted = [i for i in (0, 1) if output_mask[i]]
    grads: Sequence[Tensor] = ()
    if wanted:
        with enable_grad():
            x = keeping_tangent(input, input.detach().requires_grad_())
            w = keeping_tangent(weight, weight.detach().requires_grad_())
            if transposed:
                out = _conv_transpose(n, f"conv_transpose{n}d", x, w, None, stride, padding, output_padding, groups, dilation)
            else:
                out = _conv(n, f"conv{n}d", x, w, None, stride, padding, dilation, groups)
            grads = grad(out, [(x, w)[i] for i in wanted], grad_output)
    result: list[Tensor | None] = [None, None, None]
    for i, g in zip(wanted, grads, strict=True):
        result[i] = g
    if output_mask[2]:  # the bias adds to every position of its channel
        result[2] = grad_output.sum([d for d in range(grad_output.ndim) if d != 1])
    return result[0], result[1], result[2]


def _new_zeros_with_same_feature_meta(self: Tensor, other: Tensor, *, self_num_batch_dims: int = 0) -> Tensor:
    from .autograd.forward_ad import zeros_with_same_feature_meta

    return zeros_with_same_feature_meta(other, tuple(self.shape[:self_num_batch_dims]))


_ATEN: dict[str, Callable[..., Any]] = {
    "convolution_backward": convolution_backward,
    "_new_zeros_with_same_feature_meta": _new_zeros_with_same_feature_meta,
}
_PACKETS: dict[str, OpOverloadPacket] = {}


class AtenNamespace:
    """torch.ops.aten."""

    def __getattr__(self, name: str) -> OpOverloadPacket:
        packet = _PACKETS.get(name)
        if packet is None:
            packet = _PACKETS[name] = OpOverloadPacket(name, _resolve(name))
        return packet


def _resolve(name: str) -> Callable[..., Any]:
    from .ops import FUNCTIONS

    fn = _ATEN.get(name) or FUNCTIONS.get(name)
    if fn is None and not name.startswith("__"):
        fn = getattr(Tensor, name, None)
    if not callable(fn):
        raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{name}'")
    return fn


aten = AtenNamespace()
