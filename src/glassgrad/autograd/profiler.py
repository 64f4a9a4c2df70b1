"""torch.autograd.profiler: the profiler's older face, on glassgrad's engine (glassgrad.profiler records).

`profile` records every op's call and every backward node's run while it is entered; `record_function` names
a range of the program, as a context manager or a decorator. glassgrad runs on the CPU alone: `use_cuda=True`
warns as PyTorch does and then, as PyTorch does without CUDA, profiles the CPU; `emit_nvtx` and `emit_itt`
are accepted and do nothing (there is no NVTX or ITT to emit to); `kineto_available()` is False, since the
events come from glassgrad's recorder and not from Kineto (the traces are the same trace-event format).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from .profiler_util import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "emit_itt", "emit_nvtx", "kineto_available", "profile",
           "record_function"]


def kineto_available() -> bool:
    return False


def _profiler_enabled() -> bool:
    """Whether a profiler records now (torch.autograd._profiler_enabled)."""
    from ..profiler import _recorder

    return _recorder.active() is not None


class profile:
    """Records the ops and backward nodes run while entered; the results by `function_events`, `key_averages()`,
    `table()` and `export_chrome_trace()`."""

    def __init__(
        self, enabled: bool = True, *, use_cuda: bool = False, use_device: str | None = None, record_shapes: bool = False,
        with_flops: bool = False, profile_memory: bool = False, with_stack: bool = False, with_modules: bool = False,
        use_kineto: bool = False, use_cpu: bool = True, experimental_config: Any = None, acc_events: bool = False,
        custom_trace_id_callback: Callable[[], str] | None = None,
    ) -> None:
        self.enabled = enabled
        self.use_cuda = use_cuda
        if enabled and use_cuda:
            warnings.warn(
                "The attribute `use_cuda` will be deprecated soon, please use ``use_device = 'cuda'`` instead.",
                FutureWarning, stacklevel=2,
            )
            use_device = "cuda"
        if enabled and use_device == "cuda":
            warnings.warn("CUDA is not available, disabling CUDA profiling", stacklevel=2)
            self.use_cuda, use_device = False, None
        self.use_device = use_device
        self.record_shapes = record_shapes or with_flops
        self.profile_memory, self.with_stack = profile_memory, with_stack
        self.entered = False
        self._function_events: EventList | None = None
        self._origin_ns = 0

    def __enter__(self) -> profile | None:
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self._stop()

    def _start(self) -> None:
        from ..profiler import _recorder

        recorder = _recorder.Recorder(self.record_shapes, self.profile_memory, self.with_stack)
        self._origin_ns = recorder.wall_origin_ns
        _recorder.start(recorder)

    def _stop(self) -> None:
        from ..profiler import _recorder

        self._function_events = _recorder.stop()

    @property
    def function_events(self) -> EventList:
        if self._function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self._function_events

    def events(self) -> EventList:
        return self.function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0, group_by_overload_name: bool = False) -> EventList:
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self) -> FunctionEventAvg:
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self.function_events.self_cpu_time_total

    def table(self, *args: Any, **kwargs: Any) -> str:
        return self.function_events.table(*args, **kwargs)

    def export_chrome_trace(self, path: str) -> None:
        self.function_events.export_chrome_trace(path, self._origin_ns)

    def __str__(self) -> str:
        return str(self.function_events)


class record_function:
    """A named range in the recording (a row of its own in the table, 'user_annotation' in the trace); nothing
    while no profiler records. A context manager, and a decorator."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name, self.args = name, args
        self._event: FunctionEvent | None = None
        self._recorder: Any = None

    def __enter__(self) -> record_function:
        from ..profiler import _recorder

        recorder = _recorder.active()
        if recorder is not None:
            self._recorder = recorder
            self._event = recorder.begin(self.name)
            self._event.is_user_annotation = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self._event is not None and self._recorder is not None:
            self._recorder.end(self._event)
        self._event = self._recorder = None

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def ranged(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return ranged


class _ProfilerOps:
    """torch.ops.profiler: record_function's range as two calls, the form PyTorch's older code and scripts use."""

    @staticmethod
    def _record_function_enter(name: str, args: str | None = None) -> record_function:
        handle = record_function(name, args)
        handle.__enter__()
        return handle

    _record_function_enter_new = _record_function_enter

    @staticmethod
    def _record_function_exit(handle: record_function) -> None:
        handle.__exit__(None, None, None)


ops = _ProfilerOps()


class emit_nvtx:
    """Inert on glassgrad: there is no CUDA, so no NVTX ranges to emit (the program runs unprofiled)."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled, self.record_shapes = enabled, record_shapes
        self.entered = False

    def __enter__(self) -> emit_nvtx | None:
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError(f"{'NVTX' if type(self) is emit_nvtx else 'ITT'} annotation context manager is not reentrant")
        self.entered = True
        return self

    def __exit__(self, *exc: object) -> None:
        self.entered = False


class emit_itt(emit_nvtx):
    """Inert on glassgrad, as emit_nvtx: no Intel ITT to emit to."""
