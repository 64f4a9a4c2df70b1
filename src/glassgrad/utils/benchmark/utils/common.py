"""What a measurement is: the task it timed (TaskSpec), its times and their statistics (Measurement)."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import math
import textwrap
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from .... import _threads

__all__ = ["Measurement", "TaskSpec", "ordered_unique", "select_unit", "set_torch_threads", "trim_sigfig"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # no timer resolves better than this: it bounds the precision claimed
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25
_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """What a Timer times, and the labels it is shown under (everything but its globals)."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        if self.setup in ("", "pass"):
            return ""
        return f"setup:\n{textwrap.indent(self.setup, '  ')}" if "\n" in self.setup else f"setup: {self.setup}"

    def summarize(self) -> str:
        """The task's lines in a Measurement's repr: title, description, setup; a multi-line one ends blank."""
        sections = [s for s in (self.title, self.description or "", self.setup_str()) if s]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections)


_TASK_FIELDS = frozenset(field.name for field in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(repr=False)
class Measurement:
    """The times of `number_per_run` runs of a task, once per entry of `raw_times`; statistics are per run."""

    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict[Any, Any] | None = None  # the user's, carried along untouched

    def __getattr__(self, name: str) -> Any:  # m.label, m.stmt, ...: the task's fields
        if name in _TASK_FIELDS:
            return getattr(self.task_spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self) -> list[float]:
        return [t / self.number_per_run for t in self.raw_times]

    def _quantile(self, q: float) -> float:
        return float(np.quantile(self.times, q))

    @property
    def median(self) -> float:
        return self._quantile(0.5)

    @property
    def mean(self) -> float:
        return float(np.mean(self.times))

    @property
    def iqr(self) -> float:
        return self._quantile(0.75) - self._quantile(0.25)

    @property
    def significant_figures(self) -> int:
        """How many digits of the median the spread of the middle half of the times supports (1 to 4)."""
        times = sorted(self.times)
        middle = times[len(times) // 4 : math.ceil(3 * len(times) / 4)]
        interval = max(1.645 * float(np.std(middle)) / math.sqrt(len(middle)), _MIN_CONFIDENCE_INTERVAL)
        return min(max(math.floor(math.log10(self.median / interval)), 1), _MAX_SIGNIFICANT_FIGURES)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        return self.iqr / self.median < threshold

    @property
    def _warnings(self) -> list[str]:
        if self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD) and self.meets_confidence(_IQR_WARN_THRESHOLD):
            return []
        why = ("This could indicate system fluctuation." if self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD)
               else "This suggests significant environmental influence.")
        share = self.iqr / self.median * 100
        return [f"  WARNING: Interquartile range is {share:.1f}% of the median measurement.\n           {why}"]

    @property
    def has_warnings(self) -> bool:
        return bool(self._warnings)

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        n = len(self.raw_times)
        unit, scale = select_unit(self.median)
        lines = [object.__repr__(self), self.task_spec.summarize(), f"  {'Median: ' if n > 1 else ''}"
                 f"{self.median / scale:.2f} {unit}"]
        if n >= 4:
            p25, p75 = self._quantile(0.25) / scale, self._quantile(0.75) / scale
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({p25:.2f} to {p75:.2f})")
        runs = "runs per measurement," if n > 1 else "runs ,"
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} {runs} {threads}")
        return "\n".join([*lines, *self._warnings])

    @staticmethod
    def merge(measurements: Iterable[Measurement]) -> list[Measurement]:
        """One measurement per task, its times per run (number_per_run=1); metadata is dropped."""
        times: dict[TaskSpec, list[float]] = collections.defaultdict(list)
        for m in measurements:
            times[m.task_spec].extend(m.times)
        return [Measurement(1, t, task) for task, t in times.items()]


def select_unit(t: float) -> tuple[str, float]:
    """The unit that shows `t` seconds with one to three leading digits."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(math.floor(math.log10(t)) // 3, "s")
    return unit, _UNITS[unit]


def unit_to_english(u: str) -> str:
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """`x` rounded to `n` significant figures."""
    scale = 10 ** (math.ceil(math.log10(abs(x))) - n)
    return float(round(x / scale) * scale)


def ordered_unique(elements: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n: int) -> Iterator[None]:
    before = _threads.get_num_threads()
    _threads.set_num_threads(n)
    try:
        yield
    finally:
        _threads.set_num_threads(before)
