"""torch.ao: quantization (and sparsity for it). glassgrad has no quantized tensors or kernels: importing works,
and every name raises, saying glassgrad does not provide it."""

from __future__ import annotations

from .._missing import unprovided_module as _unprovided_module

_QUANTIZATION = "glassgrad has no quantized tensors or kernels (its tensors are float and integer NumPy arrays)"
__getattr__ = _unprovided_module(__name__, _QUANTIZATION)
