"""torch.backends.cuda: PyTorch's switches for CUDA kernels, readable and settable, in a build with no CUDA."""

from __future__ import annotations

from typing import Any

from ._flags import Flag


def is_built() -> bool:
    return False


class cuBLASModule:
    """torch.backends.cuda.matmul: only the attributes PyTorch knows can be read or set."""

    allow_tf32 = Flag(False, "set_allow_tf32_cublas")
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("allow_") and name.endswith("_reduced_precision_reduction"):
            value = _reduction_setting(name, value)
        elif not hasattr(type(self), name):
            raise AttributeError(f"Unknown attribute {name}")
        super().__setattr__(name, value)


def _reduction_setting(name: str, value: Any) -> bool:
    """A bool, or (allow_reduced_precision[, allow_splitk]) as PyTorch accepts them; the first is what is read back."""
    if isinstance(value, (list, tuple)) and 1 <= len(value) <= 2 and all(isinstance(v, bool) for v in value):
        return value[0]
    if not isinstance(value, bool):
        raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)!r}")
    return value


matmul = cuBLASModule()

# Which fused attention kernels PyTorch may pick on CUDA; kept to be read back, as glassgrad has none of them.
_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def enable_flash_sdp(enabled: bool) -> None:
    _sdp["flash"] = enabled


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _sdp["mem_efficient"] = enabled


def enable_math_sdp(enabled: bool) -> None:
    _sdp["math"] = enabled


def enable_cudnn_sdp(enabled: bool) -> None:
    _sdp["cudnn"] = enabled


def flash_sdp_enabled() -> bool:
    return _sdp["flash"]


def mem_efficient_sdp_enabled() -> bool:
    return _sdp["mem_efficient"]


def math_sdp_enabled() -> bool:
    return _sdp["math"]


def cudnn_sdp_enabled() -> bool:
    return _sdp["cudnn"]
