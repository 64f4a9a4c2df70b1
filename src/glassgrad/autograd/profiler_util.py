"""torch.autograd.profiler_util: a recording's events, their averages by key, PyTorch's table, the Chrome trace.

The events come from glassgrad.profiler's recorder (one per op call, per backward node, per record_function
range). Times are in microseconds, as PyTorch's are. Besides PyTorch's fields an event carries `saved_bytes`,
the bytes the node its op recorded saved for backward; `stack` holds the user's line that recorded that node
(glassgrad's creation site) when the profile asked for stacks.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable
from typing import Any

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]


class _Totals:
    """What an event and an average of events both have: times, memory, saved bytes, a call count."""

    key: str | None
    count: int
    cpu_time_total: float
    self_cpu_time_total: float
    cpu_memory_usage: int
    self_cpu_memory_usage: int

    @property
    def cpu_time(self) -> float:
        """The average time of one call."""
        return self.cpu_time_total / self.count if self.count else 0.0

    cpu_time_str = property(lambda self: _format_time(self.cpu_time))
    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))


class FunctionEvent(_Totals):
    """One range: an op's call, a backward node's run, or a record_function block (PyTorch's constructor)."""

    def __init__(
        self, id: int, name: str, thread: int, start_us: float, end_us: float, overload_name: str | None = None,
        fwd_thread: int | None = None, input_shapes: list[list[int]] | None = None, stack: list[str] | None = None,
        scope: int = 0, cpu_memory_usage: int = 0, sequence_nr: int = -1, node_id: int = -1,
        is_user_annotation: bool = False, trace_name: str | None = None, saved_bytes: int = 0,
    ) -> None:
        self.id, self.node_id, self.thread, self.fwd_thread = id, node_id, thread, fwd_thread
        # As PyTorch: the trace shows each profiler step (ProfilerStep#3); the events and their averages name them
        # all 'ProfilerStep*'
        self.trace_name = trace_name or name
        self.name = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        self.overload_name = overload_name or ""
        self.start_us, self.end_us = start_us, end_us
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.cpu_memory_usage = cpu_memory_usage  # allocated during the call, inner calls' included
        self.saved_bytes = saved_bytes  # what the node its op recorded saved for backward
        self.sequence_nr = sequence_nr
        self.scope = scope  # BACKWARD_FUNCTION (1): a backward node's run
        self.is_user_annotation = is_user_annotation
        self.cpu_parent: FunctionEvent | None = None
        self.cpu_children: list[FunctionEvent] = []
        self.count = 1
        self.device_time_total = self.self_device_time_total = 0.0  # no device: glassgrad runs on the CPU

    @property
    def key(self) -> str:  # type: ignore[override]
        return self.name

    @property
    def cpu_time_total(self) -> float:  # type: ignore[override]
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:  # type: ignore[override]
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:  # type: ignore[override]
        return self.cpu_memory_usage - sum(child.cpu_memory_usage for child in self.cpu_children)

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_str} thread={self.thread} "
            f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} saved_bytes={self.saved_bytes}>"
        )


class FunctionEventAvg(_Totals):
    """The events of one key (a name; with its input shapes or stack when grouped so), summed."""

    def __init__(self) -> None:
        self.key = None
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = self.device_time_total = self.self_device_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = self.saved_bytes = 0
        self.input_shapes: Any = None
        self.stack: list[str] = []
        self.cpu_parent: FunctionEvent | None = None

    def add(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        if self.key is None:
            self.key, self.input_shapes, self.stack, self.cpu_parent = other.key, other.input_shapes, other.stack, other.cpu_parent
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.saved_bytes += other.saved_bytes
        return self

    __iadd__ = add

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>"
        )


class EventList(list):  # type: ignore[type-arg]
    """A list of events (or of averages) that prints as PyTorch's table."""

    def __init__(self, events: Iterable[Any] = (), *, profile_memory: bool = False, with_stack: bool = False) -> None:
        super().__init__(events)
        self._profile_memory = profile_memory
        self._with_stack = with_stack

    def __str__(self) -> str:
        return self.table()

    def _build_tree(self) -> None:
        """Link each event to the events inside it, then fold an event that is the only call inside one of its
        own name into it (F.relu calling torch.relu is one call), as PyTorch does."""
        self._populate_cpu_children()
        self._remove_dup_nodes()
        self._set_backward_stacktraces()

    def _populate_cpu_children(self) -> None:
        """An event is a child of the innermost event of its thread whose [start, end) holds its own; events that
        overlap only partly are not linked."""
        for thread in {event.thread for event in self}:
            enclosing: list[FunctionEvent] = []
            for event in sorted((e for e in self if e.thread == thread), key=lambda e: (e.start_us, -e.end_us)):
                while enclosing and (event.start_us >= enclosing[-1].end_us or event.end_us > enclosing[-1].end_us):
                    enclosing.pop()
                if enclosing:
                    event.cpu_parent = enclosing[-1]
                    enclosing[-1].cpu_children.append(event)
                enclosing.append(event)

    def _set_backward_stacktraces(self) -> None:
        """A backward node's run, and every event inside it, gets the stack of the forward op that recorded the
        node (the same sequence number, on the node's forward thread)."""
        forward: dict[tuple[int, int | None], list[str]] = {}
        for event in self:
            if _backward_parent(event) is None and event.sequence_nr >= 0 and event.stack:
                forward.setdefault((event.sequence_nr, event.thread), event.stack)
        for event in self:
            parent = _backward_parent(event)
            if parent is not None:
                event.stack = forward.get((parent.sequence_nr, parent.fwd_thread), [])

    def _remove_dup_nodes(self) -> None:
        kept = []
        for event in self:
            parent = event.cpu_parent
            if parent is not None and parent.name == event.name and len(parent.cpu_children) == 1:
                parent.cpu_children = event.cpu_children
                for child in event.cpu_children:
                    child.cpu_parent = parent
                parent.saved_bytes = parent.saved_bytes or event.saved_bytes
                parent.stack = parent.stack or event.stack
                parent.sequence_nr = max(parent.sequence_nr, event.sequence_nr)  # the node the inner call recorded
            else:
                kept.append(event)
        self[:] = kept

    @property
    def self_cpu_time_total(self) -> float:
        return sum(event.self_cpu_time_total for event in self)

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0) -> EventList:
        """The events summed per name (and per input shapes, or per first `group_by_stack_n` stack entries)."""
        groups: dict[tuple[Any, ...], FunctionEventAvg] = {}
        for event in self:
            key: tuple[Any, ...] = (event.key, event.is_user_annotation)
            if group_by_input_shapes:
                key += (str(event.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(event.stack[:group_by_stack_n])
            groups.setdefault(key, FunctionEventAvg()).add(event)
        averages = EventList(groups.values(), profile_memory=self._profile_memory, with_stack=self._with_stack)
        for average in averages:
            average.stack = average.stack[:group_by_stack_n]
            if not group_by_input_shapes:
                average.input_shapes = ""
        return averages

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for event in self:
            total.key = None  # any key adds
            total.add(event)
        total.key = "Total"
        return total

    def table(
        self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
        max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
        top_level_events_only: bool = False, time_unit: str | None = None,
    ) -> str:
        """PyTorch's table: its columns, widths and footer."""
        from ._profiler_table import build_table

        return build_table(
            self, sort_by=sort_by, row_limit=row_limit, widths=(max_name_column_width, max_shapes_column_width, max_src_column_width),
            header=header, profile_memory=self._profile_memory, top_level_events_only=top_level_events_only, time_unit=time_unit,
        )

    def export_chrome_trace(self, path: str | os.PathLike[str], origin_ns: int = 0) -> None:
        """Write the events as a Chrome trace (the trace-event format Perfetto and chrome://tracing open); a path
        ending in '.gz' is gzipped. `origin_ns`: the wall-clock time (time.time_ns()) the events' times count from."""
        from ._chrome_trace import chrome_trace

        text = json.dumps(chrome_trace(self, origin_ns))
        with gzip.open(path, "wt") if str(path).endswith(".gz") else open(path, "w") as f:
            f.write(text)


BACKWARD_FUNCTION = 1  # an event's scope when it is a backward node's run


def _backward_parent(event: FunctionEvent | None) -> FunctionEvent | None:
    """The backward node's run the event is (or is inside), if any."""
    while event is not None and event.scope != BACKWARD_FUNCTION:
        event = event.cpu_parent
    return event


def _format_time(time_us: float) -> str:
    """PyTorch's time cell: s, ms or us with three decimals."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"
