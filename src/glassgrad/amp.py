"""torch.amp: CPU autocast regions as PyTorch's; autocast on other devices and gradient scaling, disabled.

autocast("cpu") runs as PyTorch's CPU autocast does: its matrix products and convolutions (the lower-precision list)
compute in bfloat16 (or float16), the ops on its float32 list (losses, linalg, fft, ...) in float32, and cat/stack
in their widest input dtype; the casts are recorded, so gradients reach float32 leaves in float32. It is slower
here than float32 (NumPy's bfloat16 is ml_dtypes', not a faster kernel), but a program gets PyTorch's dtypes and
values. The casting wrappers are put at the ops' places (ops/call_sites.py) while a region is open on any thread,
and act only on the threads whose region is enabled: outside regions an op costs what it always costs.

Mixed precision on other devices needs a device glassgrad does not have: PyTorch's CPU-only build already disables
CUDA autocast and CUDA gradient scaling with a warning, and mixed-precision training loops are written to run
unchanged when they are disabled (scale() returns the loss, step() calls optimizer.step()). glassgrad disables them
for every other device, with PyTorch's warning for CUDA and its own for the others.
"""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

from . import _dtype
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


class _CpuState(threading.local):
    """This thread's CPU autocast state, as PyTorch keeps it per thread."""

    enabled = False
    dtype: _dtype.dtype | None = None  # None: bfloat16, PyTorch's default (ml_dtypes is loaded only when asked)


_cpu = _CpuState()
_LOWER = ("conv1d", "conv2d", "conv3d", "bmm", "mm", "linalg_vecdot", "vecdot", "baddbmm", "addmm", "addbmm", "linear",
          "matmul", "__matmul__", "__rmatmul__", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
          "prelu", "scaled_dot_product_attention")
_FLOAT32 = ("avg_pool3d", "binary_cross_entropy", "grid_sample", "polar", "prod", "quantile", "nanquantile", "stft",
            "cdist", "trace", "view_as_complex", "cholesky", "cholesky_inverse", "cholesky_solve", "inverse", "lu_solve",
            "orgqr", "ormqr", "pinverse", "max_pool3d", "max_unpool2d", "max_unpool3d", "adaptive_avg_pool3d",
            "mse_loss", "cosine_embedding_loss", "nll_loss", "hinge_embedding_loss", "poisson_nll_loss", "smooth_l1_loss",
            "cross_entropy", "l1_loss", "huber_loss", "margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss",
            "multi_margin_loss", "ctc_loss", "kl_div", "multilabel_margin_loss", "binary_cross_entropy_with_logits",
            "geqrf", "qr", "svd", "triangular_solve", "fractional_max_pool2d", "fractional_max_pool3d",
            "adaptive_max_pool3d")
_PROMOTE = ("cat", "concat", "concatenate", "stack", "index_copy")
_NAMESPACES_ON_FLOAT32 = ("glassgrad.linalg", "glassgrad.fft")  # every op of PyTorch's linalg and fft is on the list
_installed: list[Any] = []  # what the casting wrappers replaced, while a region is open
_open_regions = 0
_lock = threading.Lock()


@functools.cache
def _policies() -> dict[Callable[..., Any], str]:
    """Each op autocast casts for, by its function, to its policy: "lower", "float32" or "promote"."""
    from .ops import REGISTRY

    policies: dict[Callable[..., Any], str] = {}
    for key, fn in REGISTRY.items():
        space, name = key.rsplit(".", 1)
        if name in _LOWER:
            policies[fn] = "lower"
        elif name in _FLOAT32 or space in _NAMESPACES_ON_FLOAT32:
            policies[fn] = "float32"
        elif name in _PROMOTE:
            policies[fn] = "promote"
    return policies


def _eligible(value: Any) -> bool:
    """A tensor autocast casts: floating point but not float64 (PyTorch leaves double precision alone)."""
    from .tensor import Tensor

    return isinstance(value, Tensor) and value.dtype.is_floating_point and value.dtype != _dtype.float64


def _cast(value: Any, target: _dtype.dtype) -> Any:
    if _eligible(value):
        return value.to(target)
    if isinstance(value, list | tuple) and any(_eligible(v) for v in value):
        return type(value)(_cast(v, target) for v in value)
    return value


def _target(policy: str, args: tuple[Any, ...]) -> _dtype.dtype | None:
    if policy == "lower":
        return get_autocast_dtype("cpu")
    if policy == "float32":
        return _dtype.float32
    tensors = [t for a in args for t in (a if isinstance(a, list | tuple) else (a,)) if _eligible(t)]
    return functools.reduce(_dtype.promote_types, (t.dtype for t in tensors)) if tensors else None


def _casting(policy: str) -> Callable[[Callable[..., Any], Callable[..., Any]], Callable[..., Any]]:
    from .ops.call_sites import stand_for

    def make(current: Callable[..., Any], op: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            if not _cpu.enabled:
                return current(*args, **kwargs)
            target = _target(policy, args)
            if target is not None:
                args = tuple(_cast(a, target) for a in args)
                kwargs = {k: _cast(v, target) for k, v in kwargs.items()}
            _cpu.enabled = False  # the ops this one calls are not cast again, as under PyTorch's autocast
            try:
                return current(*args, **kwargs)
            finally:
                _cpu.enabled = True

        return stand_for(run, op)

    return make


def _open_region() -> None:
    global _open_regions
    from .ops import call_sites

    with _lock:
        if _open_regions == 0:
            policies = _policies()
            makers = {policy: _casting(policy) for policy in set(policies.values())}
            _installed[:] = call_sites.swap(lambda current, op: makers[policies[op]](current, op), only=policies)
        _open_regions += 1


def _close_region() -> None:
    global _open_regions
    from .ops import call_sites

    with _lock:
        _open_regions -= 1
        if _open_regions == 0:
            call_sites.restore(_installed)
            _installed.clear()


def cpu_state() -> tuple[bool, _dtype.dtype | None]:
    """This thread's CPU autocast (enabled, dtype), for a region that must run as another did (a checkpoint's
    recomputation)."""
    return _cpu.enabled, _cpu.dtype


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether ops on `device_type` (CUDA when left out, as in PyTorch) are autocast on this thread."""
    return device_type is not None and device(device_type).type == "cpu" and _cpu.enabled


def get_autocast_dtype(device_type: str) -> _dtype.dtype:
    if device(device_type).type != "cpu":
        return _dtype.float16
    return _cpu.dtype or _dtype.low_precision("bfloat16")


class autocast:
    """A region (context manager or decorator) in which ops run in the precision PyTorch's autocast gives them:
    on CPU as PyTorch's; on other devices it changes nothing (with a warning)."""

    def __init__(self, device_type: str, dtype: Any = None, enabled: bool = True, cache_enabled: bool | None = None) -> None:
        self.device = _check_device_type(device_type)
        if not is_autocast_available(self.device):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{self.device}'")
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        if self.device == "cpu" and enabled and self.fast_dtype not in (_dtype.low_precision("bfloat16"), _dtype.float16):
            warnings.warn(
                "In CPU autocast, but the target dtype is not supported. Disabling autocast.\nCPU Autocast only "
                "supports dtype of torch.bfloat16, torch.float16 currently.", UserWarning, stacklevel=2,
            )
            enabled = False
        elif self.device != "cpu" and enabled:
            message = (
                "CUDA is not available or torch_xla is imported. Disabling autocast." if self.device == "cuda"
                else _disabled("autocast", self.device)
            )
            warnings.warn(message, UserWarning, stacklevel=2)
            enabled = False
        self._enabled = enabled
        self._previous: list[tuple[bool, _dtype.dtype | None]] = []

    def __enter__(self) -> None:
        if self.device != "cpu":
            return
        self._previous.append((_cpu.enabled, _cpu.dtype))
        _cpu.enabled, _cpu.dtype = self._enabled, self.fast_dtype
        _open_region()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> bool:
        if self.device == "cpu":
            _close_region()
            _cpu.enabled, _cpu.dtype = self._previous.pop()
        return False

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def run_in_region(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return run_in_region  # type: ignore[return-value]


def custom_fwd(fwd: F | None = None, *, device_type: str, cast_inputs: Any = None) -> Any:
    """Decorates an autograd.Function's forward; glassgrad does not cast its inputs (cast_inputs is not applied)."""
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
