"""torch.cuda.amp: PyTorch's deprecated spellings of glassgrad.amp with device_type 'cuda', with its FutureWarnings."""

from __future__ import annotations

import warnings
from typing import Any

from .. import amp as _amp


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"`torch.cuda.amp.{old}` is deprecated. Please use `{new}` instead.", FutureWarning, stacklevel=3)


class autocast(_amp.autocast):
    def __init__(self, enabled: bool = True, dtype: Any = None, cache_enabled: bool = True) -> None:
        _deprecated("autocast(args...)", "torch.amp.autocast('cuda', args...)")
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    def __init__(
        self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
        growth_interval: int = 2000, enabled: bool = True,
    ) -> None:
        _deprecated("GradScaler(args...)", "torch.amp.GradScaler('cuda', args...)")
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def custom_fwd(fwd: Any = None, *, cast_inputs: Any = None) -> Any:
    _deprecated("custom_fwd(args...)", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd: Any) -> Any:
    _deprecated("custom_bwd(args...)", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return _amp.custom_bwd(bwd, device_type="cuda")
