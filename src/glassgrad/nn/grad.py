"""torch.nn.grad: the gradient of a convolution with respect to its input or its weight, given the gradient of
its output. Each is the backward of the convolution itself, run by glassgrad's engine."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..tensor import Tensor
from . import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _convolution_grad(
    conv: Callable[..., Tensor], input: Tensor, weight: Tensor, grad_output: Tensor, of: Tensor, settings: dict[str, Any]
) -> Tensor:
    """d<conv(input, weight), grad_output>/d`of`, `of` being input or weight (a fresh leaf standing in for it)."""
    from ..autograd import grad, grad_mode

    with grad_mode.enable_grad():
        output = conv(input, weight, None, **settings)
        return grad(output, of, grad_output)[0]


def _input_grad(conv: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def input_grad(
        input_size: Sequence[int], weight: Tensor, grad_output: Tensor, stride: Any = 1, padding: Any = 0,
        dilation: Any = 1, groups: int = 1,
    ) -> Tensor:
        import glassgrad

        stand_in = glassgrad.zeros(tuple(input_size), dtype=grad_output.dtype, requires_grad=True)
        settings = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
        return _convolution_grad(conv, stand_in, weight.detach(), grad_output, stand_in, settings)

    input_grad.__name__ = input_grad.__qualname__ = f"{conv.__name__}_input"
    input_grad.__doc__ = f"The gradient of {conv.__name__} with respect to an input of `input_size`."
    return input_grad


def _weight_grad(conv: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def weight_grad(
        input: Tensor, weight_size: Sequence[int], grad_output: Tensor, stride: Any = 1, padding: Any = 0,
        dilation: Any = 1, groups: int = 1,
    ) -> Tensor:
        import glassgrad

        stand_in = glassgrad.zeros(tuple(weight_size), dtype=grad_output.dtype, requires_grad=True)
        settings = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
        return _convolution_grad(conv, input.detach(), stand_in, grad_output, stand_in, settings)

    weight_grad.__name__ = weight_grad.__qualname__ = f"{conv.__name__}_weight"
    weight_grad.__doc__ = f"The gradient of {conv.__name__} with respect to a weight of `weight_size`."
    return weight_grad


conv1d_input, conv1d_weight = _input_grad(F.conv1d), _weight_grad(F.conv1d)
conv2d_input, conv2d_weight = _input_grad(F.conv2d), _weight_grad(F.conv2d)
conv3d_input, conv3d_weight = _input_grad(F.conv3d), _weight_grad(F.conv3d)
