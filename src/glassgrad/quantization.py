"""torch.quantization: PyTorch's deprecated alias of torch.ao.quantization, which glassgrad does not provide (see
glassgrad.ao)."""

from __future__ import annotations

from ._missing import unprovided_module as _unprovided_module
from .ao import _QUANTIZATION

__getattr__ = _unprovided_module(__name__, _QUANTIZATION)
