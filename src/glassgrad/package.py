"""torch.package: archives of code and TorchScript models for deployment. glassgrad has no TorchScript: importing
works, and every name raises, saying glassgrad does not provide it (torch.save and safetensors save weights)."""

from __future__ import annotations

from ._missing import unprovided_module as _unprovided_module

__getattr__ = _unprovided_module(
    __name__, "glassgrad has no TorchScript models to package; save weights with torch.save or glassgrad.save_safetensors"
)
