"""Timer: a statement timed with the standard library's timeit, in blocks sized so the timer's overhead is noise."""

from __future__ import annotations

import enum
import math
import textwrap
import timeit
from collections.abc import Callable
from typing import Any, NoReturn

from .common import Measurement, TaskSpec, set_torch_threads

__all__ = ["Language", "Timer", "timer"]

timer = timeit.default_timer
_FLOOR = 1e-9  # no statement takes less than a nanosecond; a zero reading would divide by zero later


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


def _dedent(code: str) -> str:
    """Code written as an indented block string, as it is meant: dedented, without the first newline or a tail."""
    code = textwrap.dedent(code)
    return code.removeprefix("\n").rstrip()


class Timer:
    """Times `stmt` after `setup`, both Python source run in `globals` (with `torch` added), at `num_threads`."""

    def __init__(
        self, stmt: str = "pass", setup: str = "pass", global_setup: str = "", timer: Callable[[], float] = timer,
        globals: dict[str, Any] | None = None, label: str | None = None, sub_label: str | None = None,
        description: str | None = None, env: str | None = None, num_threads: int = 1,
        language: Language | str = Language.PYTHON,
    ) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError("glassgrad's torch.utils.benchmark.Timer times Python statements only")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(
                f"global_setup is C++ only, got `{global_setup}`. Most likely this code can simply be moved to `setup`."
            )
        import glassgrad

        namespace = {"torch": glassgrad, **(globals or {})}  # a copy: what the statement defines stays here
        stmt, setup = _dedent(stmt), _dedent(setup)
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=namespace)
        self._task_spec = TaskSpec(stmt, setup, global_setup, label, sub_label, description, env, num_threads)

    def _timeit(self, number: int) -> float:
        return max(self._timer.timeit(number), _FLOOR)

    def timeit(self, number: int = 1000000) -> Measurement:
        """One measurement of `number` runs, after a warm-up of a hundredth as many."""
        with set_torch_threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))
            return Measurement(number, [self._timeit(number)], self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Callable[[int, float], NoReturn] | None = None) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self, min_run_time: float) -> int:
        """Runs per block: ten-fold until the timer's own overhead is under 1e-4 of a block and a block takes at
        least a thousandth of `min_run_time` (or more than all of it). This is the warm-up too."""
        overhead = sorted(self._timeit(0) for _ in range(5))[2]
        number = 1
        while True:
            taken = self._timeit(number)
            if (overhead / taken <= 1e-4 and taken >= min_run_time / 1000) or taken > min_run_time:
                return number
            if number * 10 > 2**31 - 1:
                return number
            number *= 10

    def _measure(
        self, block_time: float, min_run_time: float, max_run_time: float | None,
        enough: Callable[[Measurement], bool], callback: Callable[[int, float], NoReturn] | None,
    ) -> Measurement:
        """Blocks of runs (sized for `block_time`) until `min_run_time` has passed and `enough` holds, or
        `max_run_time` has passed."""
        with set_torch_threads(self._task_spec.num_threads):
            number = self._block_size(block_time)
            measurement = Measurement(number, [], self._task_spec)
            while True:
                spent = self._timeit(number)
                measurement.raw_times.append(spent)
                if callback:
                    callback(number, spent)
                total = math.fsum(measurement.raw_times)
                if (total >= min_run_time and enough(measurement)) or (max_run_time and total > max_run_time):
                    return measurement

    def blocked_autorange(
        self, callback: Callable[[int, float], NoReturn] | None = None, min_run_time: float = 0.2
    ) -> Measurement:
        """Blocks of runs for at least `min_run_time` seconds."""
        return self._measure(min_run_time, min_run_time, None, lambda m: True, callback)

    def adaptive_autorange(
        self, threshold: float = 0.1, *, min_run_time: float = 0.01, max_run_time: float = 10.0,
        callback: Callable[[int, float], NoReturn] | None = None,
    ) -> Measurement:
        """Blocks of runs until more than three agree (IQR / median under `threshold`), or `max_run_time` passed."""
        enough = lambda m: len(m.raw_times) > 3 and m.meets_confidence(threshold)  # noqa: E731
        return self._measure(0.05, min_run_time, max_run_time, enough, callback)

    def collect_callgrind(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise NotImplementedError("glassgrad's torch.utils.benchmark.Timer does not run Callgrind")
