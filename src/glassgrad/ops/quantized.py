"""torch.dequantize for the tensors glassgrad has: none is quantized (quantized dtypes are excluded from its
surface), and PyTorch's answer for a plain tensor is the tensor as float32, with no derivative."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..autograd import grad_mode
from ..tensor import Tensor
from .table import derivative


def _no_derivative(grad: Tensor) -> Tensor:
    raise RuntimeError("derivative for dequantize is not implemented")


DequantizeBackward = derivative("NotImplemented", ("self",), self=_no_derivative)


def dequantize(tensor: Any) -> Tensor:
    if isinstance(tensor, (list, tuple)):
        raise NotImplementedError(
            "Could not run 'aten::dequantize.tensors' with arguments from the 'CPU' backend. glassgrad has no quantized "
            "tensors, so there is nothing to dequantize."
        )
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"dequantize() received an invalid combination of arguments - got ({type(tensor).__name__}), but expected "
            "one of:\n * (Tensor input)\n * (tuple of Tensors tensors)"
        )
    data = tensor._data
    records = grad_mode.state.grad_enabled and tensor._requires_grad
    if data.dtype == np.float32 and not records:
        return tensor
    if data.dtype.kind == "c":
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=2)
        data = data.real
    return DequantizeBackward.record(data.astype(np.float32), (tensor,))


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS = {"dequantize": dequantize}
METHODS = {"dequantize": dequantize}
INPLACE = ()
