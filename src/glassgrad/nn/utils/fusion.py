"""Folding an eval-mode batch norm into the convolution or linear layer before it: one layer that computes
the same as the two, for inference."""

from __future__ import annotations

import copy
from typing import Any, TypeVar

from ...tensor import Tensor
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]

_Layer = TypeVar("_Layer")


def _check_eval(layer: Any, bn: Any) -> None:
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")


def _check_statistics(bn: Any) -> None:
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv: _Layer, bn: Any, transpose: bool = False) -> _Layer:
    """A copy of `conv` whose weight and bias also apply `bn` (both in eval mode)."""
    _check_eval(conv, bn)
    _check_statistics(bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(  # type: ignore[attr-defined]
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias, transpose  # type: ignore[attr-defined]
    )
    return fused


def fuse_conv_bn_weights(
    conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor, bn_eps: float, bn_w: Tensor | None,
    bn_b: Tensor | None, transpose: bool = False,
) -> tuple[Parameter, Parameter]:
    """The weight and bias of a convolution followed by batch norm with these statistics and affine parameters;
    `transpose` for a transposed convolution, whose output channels are its weight's second dimension."""
    import glassgrad

    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    conv_b = glassgrad.zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = glassgrad.ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = glassgrad.zeros_like(bn_rm) if bn_b is None else bn_b
    inv_std = glassgrad.rsqrt(bn_rv + bn_eps)
    channels = [1, -1] if transpose else [-1, 1]
    fused_w = (conv_w * (bn_w * inv_std).reshape(channels + [1] * (conv_w.ndim - 2))).to(dtype=weight_dtype)
    fused_b = ((conv_b - bn_rm) * inv_std * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear: _Layer, bn: Any) -> _Layer:
    """A copy of `linear` whose weight and bias also apply `bn` (both in eval mode)."""
    _check_eval(linear, bn)
    fused = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:  # type: ignore[attr-defined]
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
            f"got linear.out_features={linear.out_features} and bn.num_features={bn.num_features}"  # type: ignore[attr-defined]
        )
    _check_statistics(bn)
    fused.weight, fused.bias = fuse_linear_bn_weights(  # type: ignore[attr-defined]
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias  # type: ignore[attr-defined]
    )
    return fused


def fuse_linear_bn_weights(
    linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor, bn_eps: float, bn_w: Tensor, bn_b: Tensor
) -> tuple[Parameter, Parameter]:
    """The weight and bias of a linear layer followed by batch norm with these statistics and affine parameters."""
    import glassgrad

    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    linear_b = glassgrad.zeros_like(bn_rm) if linear_b is None else linear_b
    scale = bn_w * glassgrad.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * scale.unsqueeze(-1).to(dtype=weight_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
