"""torch.amp: autocast regions and gradient scaling, always disabled.

Mixed precision needs a device whose half-precision kernels are faster; glassgrad has one CPU
backend, whose bfloat16 (ml_dtypes on NumPy) is slower than its float32. PyTorch's CPU-only build already disables CUDA autocast and CUDA
gradient scaling with a warning, and mixed-precision training loops are written to run unchanged
when they are disabled (scale() returns the loss, step() calls optimizer.step()). glassgrad
disables them for every device, with PyTorch's warning for CUDA and its own for the others, where
PyTorch would have enabled them.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

from ._device import device

F = TypeVar("F", bound=Callable[..., Any])

# The device types PyTorch accepts for autocast (torch.amp.is_autocast_available).
_AUTOCAST_TYPES = ("cpu", "cuda", "ipu", "xpu", "hip", "ve", "fpga", "maia", "xla", "vulkan", "mps", "hpu", "mtia", "lazy")


def _check_device_type(device_type: object) -> str:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    return device(device_type).type  # an unknown name fails with PyTorch's device-string error


def is_autocast_available(device_type: str) -> bool:
    return device(device_type).type in _AUTOCAST_TYPES


def _disabled(what: str, device_type: str) -> str:
    return (
        f"glassgrad has no mixed precision: {what} on '{device_type}' is disabled and ops run in their inputs' dtypes. "
        "Pass enabled=False to silence this."
    )


class autocast:
    """A region (context manager or decorator) that PyTorch would autocast; here it changes nothing."""

    def __init__(self, device_type: str, dtype: Any = None, enabled: bool = True, cache_enabled: bool | None = None) -> None:
        self.device = _check_device_type(device_type)
        if not is_autocast_available(self.device):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{self.device}'")
        if enabled:
            message = (
                "CUDA is not available or torch_xla is imported. Disabling autocast." if self.device == "cuda"
                else _disabled("autocast", self.device)
            )
            warnings.warn(message, UserWarning, stacklevel=2)
        self.fast_dtype = dtype
        self._enabled = False

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> bool:
        return False

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def run_in_region(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return run_in_region  # type: ignore[return-value]


def custom_fwd(fwd: F | None = None, *, device_type: str, cast_inputs: Any = None) -> Any:
    """Decorates an autograd.Function's forward; outside an autocast region (always, here) it changes nothing."""
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd: F | None = None, *, device_type: str) -> Any:
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd


class GradScaler:
    """Loss scaling, disabled: the loop's calls pass through, so a mixed-precision training loop trains in full precision."""

    def __init__(
        self, device: str = "cuda", init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
        growth_interval: int = 2000, enabled: bool = True,
    ) -> None:
        self._device = device
        if enabled:
            message = (
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling." if device == "cuda"
                else _disabled("GradScaler", device)
            )
            warnings.warn(message, UserWarning, stacklevel=2)
        self._enabled = False

    def scale(self, outputs: Any) -> Any:
        return outputs

    def unscale_(self, optimizer: Any) -> None:
        return None

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale: Any = None) -> None:
        return None

    def get_scale(self) -> float:
        return 1.0

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        return None
