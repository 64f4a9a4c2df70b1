"""Process-wide settings PyTorch programs set for reproducibility and speed, and the build flags they read.

glassgrad's kernels are NumPy's, which are deterministic and compute float32 matmuls in float32: the switches are
kept so that they read back what was set, with PyTorch's checks on what may be set.
"""

from __future__ import annotations

import warnings

# What glassgrad is built on: NumPy links LAPACK and has an FFT; glassgrad links neither MKL nor an OpenMP runtime
# of its own (as glassgrad.backends.openmp.is_available() says), where PyTorch's CPU wheel has both.
has_lapack = True
has_spectral = True
has_mkl = False
has_openmp = False


def _require_bool(value: object, message: str) -> None:
    if not isinstance(value, bool):
        raise RuntimeError(f"{message}, but got {type(value).__name__}")


# -- determinism ---------------------------------------------------------------------------------
_deterministic = {"mode": False, "warn_only": False}
_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms; glassgrad's NumPy kernels are all deterministic, so nothing ever warns."""
    for name, position, value in (("mode", " (position 1)", mode), ("warn_only", "", warn_only)):
        if not isinstance(value, bool):
            raise TypeError(
                f"_set_deterministic_algorithms(): argument '{name}'{position} must be bool, not {type(value).__name__}"
            )
    _deterministic.update(mode=mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _deterministic["warn_only"]


def set_deterministic_debug_mode(debug_mode: int | str) -> None:
    """0 or "default": off; 1 or "warn": warn only; 2 or "error": on (use_deterministic_algorithms in one number)."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    if not _deterministic["mode"]:
        return 0
    return 1 if _deterministic["warn_only"] else 2


# -- precision, denormals, warnings -----------------------------------------------------------
_float32_matmul_precision = ["highest"]


def set_float32_matmul_precision(precision: str) -> None:
    """"highest" (float32 throughout, what NumPy does), "high" or "medium" (TF32/bfloat16 on GPUs glassgrad lacks)."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect.",
            UserWarning, stacklevel=2,
        )
        return
    from .backends import cuda

    _float32_matmul_precision[0] = precision
    cuda.matmul.allow_tf32 = precision != "highest"  # PyTorch's legacy switch for the same choice


def get_float32_matmul_precision() -> str:
    return _float32_matmul_precision[0]


def set_flush_denormal(mode: bool) -> bool:
    """Whether flushing denormals could be set: False, as NumPy's kernels keep them (PyTorch says True on x86)."""
    _require_bool(mode, "flush_denormal expects a bool")
    return False


_warn_always = [False]


def set_warn_always(b: bool, /) -> None:
    """Warnings PyTorch gives once per process are given every time (glassgrad's warnings follow Python's filters)."""
    _require_bool(b, "setWarnOnlyOnce expects a bool")
    _warn_always[0] = b


def is_warn_always_enabled() -> bool:
    return _warn_always[0]
