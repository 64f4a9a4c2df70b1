"""torch.cuda as PyTorch's CPU-only build has it: no device, and the same answers and errors.

Training scripts probe CUDA before choosing a device (`torch.cuda.is_available()`), seed it
unconditionally (`torch.cuda.manual_seed_all(0)`) and read memory counters for their logs. The
CPU-only build answers those without failing, and raises where a call needs a GPU; glassgrad
matches each call's behaviour there (checked against the installed wheel by
tests/test_cuda_compat.py), so a program guarded for CPU-only PyTorch runs unchanged.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from types import TracebackType
from typing import Any, NoReturn

from .._device import ONLY_CPU, AcceleratorError, OutOfMemoryError, refuse
from .._device import device as _torch_device
from . import amp

has_half = True
has_magma = False


def _not_compiled(*args: Any, **kwargs: Any) -> NoReturn:
    refuse(_torch_device("cuda"), creating=False)


def _dummy_base_class(name: str) -> NoReturn:
    # The CPU-only wheel's torch._C has placeholder classes for CUDA's, which refuse to be instantiated.
    raise RuntimeError(f"Tried to instantiate dummy base class {name}" + ONLY_CPU.format(name="CUDA"))


def _missing_binding(name: str) -> NoReturn:
    # The CPU-only wheel reaches for a CUDA binding its torch._C lacks; the AttributeError is PyTorch's own.
    raise AttributeError(f"module 'torch._C' has no attribute '{name}'" + ONLY_CPU.format(name="CUDA"))


# -- availability -------------------------------------------------------------------------------------
def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def get_arch_list() -> list[str]:
    return []


def get_gencode_flags() -> str:
    return ""


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def is_tf32_supported() -> bool:
    return False


init = _not_compiled
current_device = _not_compiled
get_device_name = _not_compiled
get_device_properties = _not_compiled
get_device_capability = _not_compiled
synchronize = _not_compiled
ipc_collect = _not_compiled
mem_get_info = _not_compiled
current_stream = _not_compiled
default_stream = _not_compiled
set_per_process_memory_fraction = _not_compiled
get_per_process_memory_fraction = _not_compiled
can_device_access_peer = _not_compiled
get_sync_debug_mode = _not_compiled
set_sync_debug_mode = _not_compiled


# -- seeding: queued for a device that never initialises, so a no-op ------------------------------------
def manual_seed(seed: int) -> None:
    int(seed)  # PyTorch converts first, so a seed that is no number fails here as there


def manual_seed_all(seed: int) -> None:
    int(seed)


def seed() -> None:
    return None


def seed_all() -> None:
    return None


initial_seed = _not_compiled
get_rng_state = _not_compiled


def get_rng_state_all() -> list[Any]:
    return []


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    return None


def set_rng_state_all(new_states: Any) -> None:
    return None


default_generators: tuple[Any, ...] = ()


# -- memory: nothing is ever allocated ----------------------------------------------------------------
def memory_stats(device: Any = None) -> OrderedDict[str, Any]:
    return OrderedDict()


def memory_allocated(device: Any = None) -> int:
    return 0


def max_memory_allocated(device: Any = None) -> int:
    return 0


def memory_stats_as_nested_dict(device: Any = None) -> dict[str, Any]:
    return {}


def host_memory_stats() -> OrderedDict[str, Any]:
    return OrderedDict()


def host_memory_stats_as_nested_dict() -> dict[str, Any]:
    return {}


def memory_snapshot(mempool_id: Any = None, include_traces: bool = True) -> NoReturn:
    _missing_binding("_cuda_memorySnapshot")


def memory_reserved(device: Any = None) -> int:
    return 0


def max_memory_reserved(device: Any = None) -> int:
    return 0


def memory_cached(device: Any = None) -> int:
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`", FutureWarning, stacklevel=2)
    return 0


def max_memory_cached(device: Any = None) -> int:
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`", FutureWarning, stacklevel=2)
    return 0


def empty_cache() -> None:
    return None


def memory_summary(device: Any = None, abbreviated: bool = False) -> NoReturn:
    raise KeyError("allocated_bytes.all.current")  # PyTorch formats an empty statistics dict


def reset_peak_memory_stats(device: Any = None) -> NoReturn:
    _missing_binding("_cuda_resetPeakMemoryStats")


def reset_max_memory_allocated(device: Any = None) -> NoReturn:
    warnings.warn(
        "torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which resets /all/ "
        "peak memory stats.", FutureWarning, stacklevel=2,
    )
    _missing_binding("_cuda_resetPeakMemoryStats")


def reset_max_memory_cached(device: Any = None) -> NoReturn:
    warnings.warn(
        "torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, which resets /all/ "
        "peak memory stats.", FutureWarning, stacklevel=2,
    )
    _missing_binding("_cuda_resetPeakMemoryStats")


def reset_accumulated_memory_stats(device: Any = None) -> NoReturn:
    _missing_binding("_cuda_resetAccumulatedMemoryStats")


def reset_accumulated_host_memory_stats() -> NoReturn:
    _missing_binding("_cuda_resetAccumulatedHostMemoryStats")


def reset_peak_host_memory_stats() -> NoReturn:
    _missing_binding("_cuda_resetPeakHostMemoryStats")


# -- selecting a device ---------------------------------------------------------------------------------
def _device_index(spec: Any, optional: bool = False) -> int | None:
    """torch.cuda._utils._get_device_index: an int as is, a CUDA device's index, None for 'the current one'."""
    if isinstance(spec, int):
        return spec
    if isinstance(spec, str):
        spec = _torch_device(spec)
    if isinstance(spec, _torch_device):
        if spec.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {spec}")
        index = spec.index
    elif isinstance(spec, device):
        return spec.idx
    else:
        index = None
    if index is None and not optional:
        raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{spec}")
    return index  # with no device there is no current index: None


def set_device(device: Any) -> None:
    index = _device_index(device)
    if index is not None and index >= 0:
        _missing_binding("_cuda_setDevice")


class device:
    """Context manager selecting a CUDA device: a negative index selects nothing and works; any other fails on entry."""

    def __init__(self, device: Any) -> None:
        self.idx = _device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx < 0:  # type: ignore[operator]  # None fails here with PyTorch's TypeError
            return
        raise RuntimeError("PyTorch was compiled without CUDA support" + ONLY_CPU.format(name="CUDA"))

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> bool:
        return False


class device_of(device):
    """The device of a tensor: never a CUDA one here, so entering selects nothing."""

    def __init__(self, obj: Any) -> None:
        super().__init__(-1)


# -- streams, events, graphs ----------------------------------------------------------------------------
class Stream:
    def __new__(cls, device: Any = None, priority: int = 0, **kwargs: Any) -> Stream:
        raise RuntimeError("torch.cuda.Stream requires CUDA support" + ONLY_CPU.format(name="CUDA"))


class Event:
    def __new__(cls, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> Event:
        _dummy_base_class("Event")


class CUDAGraph:
    def __new__(cls, *args: Any, **kwargs: Any) -> CUDAGraph:
        _dummy_base_class("CUDAGraph")


class StreamContext:
    """`with torch.cuda.stream(s):` with no CUDA device selects nothing, whatever `s` is."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        return None


def stream(stream: Any) -> StreamContext:
    return StreamContext(stream)


def set_stream(stream: Any) -> None:
    if stream is None:
        return
    stream.stream_id  # noqa: B018  # PyTorch reads it first, so a non-stream fails here with its AttributeError
    _missing_binding("_cuda_setStream")


def is_current_stream_capturing() -> NoReturn:
    _dummy_base_class("_cuda_isCurrentStreamCapturing")


class graph:
    """`with torch.cuda.graph(g):` captures CUDA work; without a given stream it makes one, which fails here."""

    def __init__(self, cuda_graph: Any, pool: Any = None, stream: Any = None, capture_error_mode: str = "global",
                 enable_annotations: bool = False, check_input_liveness: bool = False) -> None:
        self.capture_stream = Stream() if stream is None else stream
        self.cuda_graph = cuda_graph
        self.pool = () if pool is None else (pool,)
        self.capture_error_mode = capture_error_mode

    def __enter__(self) -> None:
        synchronize()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        return None


def make_graphed_callables(callables: Any, sample_args: Any, num_warmup_iters: int = 3,
                           allow_unused_input: bool = False, pool: Any = None) -> NoReturn:
    _dummy_base_class("CUDAGraph")  # the first thing PyTorch builds for the capture


__all__ = [
    "AcceleratorError", "CUDAGraph", "Event", "OutOfMemoryError", "Stream", "StreamContext", "amp", "current_device", "current_stream",
    "default_generators", "default_stream", "device", "device_count", "device_of", "empty_cache", "get_arch_list",
    "get_device_capability", "get_device_name", "get_device_properties", "get_gencode_flags", "get_rng_state",
    "get_rng_state_all", "init", "initial_seed", "ipc_collect", "is_available", "is_bf16_supported", "is_initialized",
    "is_tf32_supported", "manual_seed", "manual_seed_all", "max_memory_allocated", "max_memory_cached",
    "max_memory_reserved", "mem_get_info", "memory_allocated", "memory_cached", "memory_reserved", "memory_stats",
    "memory_summary", "reset_accumulated_memory_stats", "reset_max_memory_allocated", "reset_peak_memory_stats", "seed",
    "seed_all", "set_device", "set_per_process_memory_fraction", "set_rng_state", "set_rng_state_all", "stream",
    "synchronize", "can_device_access_peer", "get_per_process_memory_fraction", "get_sync_debug_mode", "graph",
    "has_half", "has_magma", "host_memory_stats", "host_memory_stats_as_nested_dict", "is_current_stream_capturing",
    "make_graphed_callables", "memory_snapshot", "memory_stats_as_nested_dict", "reset_accumulated_host_memory_stats",
    "reset_max_memory_cached", "reset_peak_host_memory_stats", "set_stream", "set_sync_debug_mode",
]
