"""The table EventList.table() prints, laid out as PyTorch 2.13 lays it out: the same headers, right-aligned
cells but the source location's, column widths
(the name column as wide as the longest name plus four, at most 55; the others twelve), two spaces between
columns, dashed rules, and the 'Self CPU time total' footer. Percentages are of the listed events' self time."""

from __future__ import annotations

from typing import Any

_COLUMN = 12
_SPACING = "  "


def build_table(
    events: list[Any], *, sort_by: str | None, row_limit: int, widths: tuple[int | None, int | None, int | None],
    header: str | None, profile_memory: bool, top_level_events_only: bool, time_unit: str | None,
) -> str:
    if not events:
        return ""
    if sort_by is not None:
        events = sorted(events, key=lambda event: getattr(event, sort_by), reverse=True)
    max_name, max_shapes, max_source = widths
    name_width = _capped(max(len(event.key) for event in events) + 4, max_name)
    columns: list[tuple[str, int, str]] = [("Name", name_width, ">")]
    columns += [(title, _COLUMN, ">") for title in ("Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg")]
    if profile_memory:
        columns += [("CPU Mem", _COLUMN, ">"), ("Self CPU Mem", _COLUMN, ">")]
    columns.append(("# of Calls", _COLUMN, ">"))
    has_shapes = any(event.input_shapes for event in events)
    if has_shapes:
        columns.append(("Input Shapes", _capped(max(len(str(event.input_shapes)) for event in events) + 4, max_shapes), ">"))
    stacks = [event.stack for event in events if event.stack]
    source_width = _capped(max(len(entry) for stack in stacks for entry in stack) + 4, max_source) if stacks else 0
    if stacks:
        columns.append(("Source Location", source_width, "<"))

    row_format = "".join(f"{{: {align}{width}}}{_SPACING}" for _, width, align in columns)
    rule = "".join("-" * width + _SPACING for _, width, _ in columns)
    line_length = sum(width + len(_SPACING) for _, width, _ in columns) - len(_SPACING)
    total_self = sum(event.self_cpu_time_total for event in events)
    time = _time_formatter(time_unit)

    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [rule, row_format.format(*(title for title, _, _ in columns)), rule]
    shown = 0
    for event in events:
        if shown == row_limit:
            break
        if top_level_events_only and event.cpu_parent is not None:
            continue
        shown += 1
        name = event.key
        if max_name is not None and len(name) >= max_name - 3:
            name = name[: max_name - 3] + "..."
        row: list[Any] = [
            name, _share(event.self_cpu_time_total, total_self), time(event.self_cpu_time_total),
            _share(event.cpu_time_total, total_self), time(event.cpu_time_total), time(event.cpu_time),
        ]
        if profile_memory:
            row += [format_memory(event.cpu_memory_usage), format_memory(event.self_cpu_memory_usage)]
        row.append(event.count)
        if has_shapes:
            row.append(str(event.input_shapes)[: columns[-1 - bool(stacks)][1]])
        if stacks:
            row.append(_trimmed(event.stack[0], source_width) if event.stack else "")
        lines.append(row_format.format(*row))
        if stacks:
            blank = [""] * (len(columns) - 1)
            lines += [row_format.format(*blank, _trimmed(entry, source_width)) for entry in event.stack[1:]]
            lines.append(row_format.format(*blank, ""))
    lines += [rule, f"Self CPU time total: {time(total_self)}"]
    return "".join(line + "\n" for line in lines)


def _capped(width: int, limit: int | None) -> int:
    return width if limit is None else min(width, limit)


def _share(time_us: float, total_us: float) -> str:
    return "NaN" if total_us == 0 else f"{time_us * 100.0 / total_us:.2f}%"


def _trimmed(path: str, width: int) -> str:
    """A source location too long for its column keeps its end, marked by '...'."""
    if len(path) <= width:
        return path
    path = path[len(path) - width :]
    return "..." + path[3:] if len(path) > 3 else path


def _time_formatter(unit: str | None) -> Any:
    from .profiler_util import _format_time

    scale = {"s": 1e6, "ms": 1e3, "us": 1.0}.get(unit or "")
    if scale is None:
        return _format_time
    return lambda time_us: f"{time_us / scale:.3f}{unit}"


def format_memory(nbytes: int) -> str:
    """PyTorch's memory cell: B, KB, MB or GB (powers of 1024)."""
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"
