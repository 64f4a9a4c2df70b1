"""torch.profiler on glassgrad's engine.

`profile` records while its schedule says so (everything, without one): each op's call (its time, input
shapes, the bytes it made, the saved bytes and user's line of the node it recorded) and each backward node's
run, and hands the results to `on_trace_ready`. The results print as PyTorch's table (`key_averages().table()`)
and export as a Chrome trace that Perfetto and chrome://tracing open. Only ProfilerActivity.CPU has events:
glassgrad runs on the CPU alone. How the ops are seen: glassgrad/profiler/_recorder.py.
"""

from __future__ import annotations

import enum
import os
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any

from ..autograd import profiler as _legacy
from ..autograd.profiler import kineto_available, record_function
from ..autograd.profiler_util import EventList
from . import itt  # a submodule PyTorch's torch.profiler imports, so `torch.profiler.itt` needs no import of its own

__all__ = ["ProfilerAction", "ProfilerActivity", "kineto_available", "profile", "record_function", "schedule",
           "supported_activities", "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):  # PyTorch 2.13's values
    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities() -> set[ProfilerActivity]:
    return {ProfilerActivity.CPU}


def schedule(
    *, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0, skip_first_wait: int = 0
) -> Callable[[int], ProfilerAction]:
    """The action for each step: skip `skip_first` steps, then cycles of `wait` idle, `warmup`, `active` recorded
    steps (the last saves), `repeat` times (0: without end). `skip_first_wait` drops the first cycle's wait."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(  # PyTorch's type and words
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        import warnings

        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)

    def action(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        phase = step % cycle
        if phase < wait:
            return ProfilerAction.NONE
        if phase < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if phase < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile:
    """torch.profiler.profile: a context manager (or start()/stop()) whose `step()` marks each training step."""

    def __init__(
        self, *, activities: Iterable[ProfilerActivity] | None = None, schedule: Callable[[int], ProfilerAction] | None = None,
        on_trace_ready: Callable[[profile], Any] | None = None, record_shapes: bool = False, profile_memory: bool = False,
        with_stack: bool = False, with_flops: bool = False, with_modules: bool = False, experimental_config: Any = None,
        execution_trace_observer: Any = None, acc_events: bool = False, use_cuda: bool | None = None,
        custom_trace_id_callback: Callable[[], str] | None = None,
    ) -> None:
        self.activities = set(activities) if activities is not None else supported_activities()
        self.record_steps = schedule is not None  # as PyTorch: ProfilerStep#N ranges only under a schedule
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.step_num = 0
        self.current_action = self.schedule(0)
        self.profiler: _legacy.profile | None = None  # the recording in progress, or the last one saved
        self._recording: _legacy.profile | None = None
        self._step_range: record_function | None = None

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self._transit(ProfilerAction.NONE, self.current_action)
        self._begin_step_range()

    def stop(self) -> None:
        self._end_step_range()
        self._transit(self.current_action, None)

    def step(self) -> None:
        """The next step begins: record, save or idle as the schedule says."""
        self._end_step_range()
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(previous, self.current_action)
        self._begin_step_range()

    def _begin_step_range(self) -> None:
        if self.record_steps:
            self._step_range = record_function(f"ProfilerStep#{self.step_num}")
            self._step_range.__enter__()

    def _end_step_range(self) -> None:
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None

    def _transit(self, previous: ProfilerAction, current: ProfilerAction | None) -> None:
        was = previous in _RECORDING
        if was and (previous == ProfilerAction.RECORD_AND_SAVE or current not in _RECORDING):
            self._save()
            was = False
        if not was and current in _RECORDING:
            self._recording = _legacy.profile(
                record_shapes=self.record_shapes, profile_memory=self.profile_memory, with_stack=self.with_stack
            )
            self._recording.__enter__()

    def _save(self) -> None:
        recording, self._recording = self._recording, None
        assert recording is not None
        recording.__exit__(None, None, None)
        self.profiler = recording
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _results(self) -> _legacy.profile:
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before calling this method")  # nothing saved yet
        return self.profiler

    def events(self) -> EventList:
        return self._results().function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0, group_by_overload_name: bool = False) -> EventList:
        return self._results().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str) -> None:
        """The trace-event JSON file ('.gz' ending: gzipped)."""
        self._results().export_chrome_trace(path)


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None, use_gzip: bool = False) -> Callable[[profile], None]:
    """An on_trace_ready that writes each saved recording as `<worker>.<ms>.pt.trace.json[.gz]` into dir_name."""

    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, name))

    return handler
