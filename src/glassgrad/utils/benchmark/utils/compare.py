"""Compare: measurements as tables, one per label; a row per (threads, env, sub_label), a column per description."""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable

from .common import Measurement, ordered_unique, select_unit, trim_sigfig, unit_to_english

__all__ = ["Colorize", "Compare"]

_BEST, _GOOD, _BAD, _VERY_BAD, _BOLD, _END = "\033[92m", "\033[34m", "\033[2m\033[91m", "\033[31m", "\033[1m", "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _paint(cell: str, value: float, best: float) -> str:
    """A cell coloured by how far its median is from the best of its row or column."""
    if value <= best * 1.01 or value <= best + 100e-9:
        return _BEST + _BOLD + cell + _END * 2
    if value <= best * 1.1:
        return _GOOD + _BOLD + cell + _END * 2
    if value >= best * 5:
        return _VERY_BAD + _BOLD + cell + _END * 2
    if value >= best * 2:
        return _BAD + cell + _END * 2
    return cell


class _Table:
    """One label's measurements laid out and rendered."""

    def __init__(self, results: list[Measurement], colorize: Colorize, trim: bool, highlight: bool) -> None:
        self.results, self.colorize, self.trim = results, colorize, trim
        self.highlight = highlight and any(m.has_warnings for m in results)
        self.unit, self.scale = select_unit(min(m.median for m in results))
        rows = ordered_unique((m.num_threads, m.env, m.as_row_name) for m in results)
        self.rows = sorted(rows, key=lambda key: key[:2])  # stable: statements keep their order within a group
        self.columns = ordered_unique(m.description for m in results)
        self.cells: dict[tuple[object, ...], Measurement] = {
            ((m.num_threads, m.env, m.as_row_name), m.description): m for m in results
        }

    def _number_format(self, column: object) -> str:
        """One width and number of decimals for a column, so that its numbers line up."""
        results = [m for m in self.results if m.description == column]
        leading = [math.ceil(math.log10(m.median / self.scale)) for m in results]
        decimals = min(max(m.significant_figures - d, 0) for m, d in zip(results, leading, strict=True)) if self.trim else 1
        width = max(leading) + decimals + (1 if decimals else 0)
        return f"{{:>{width}.{decimals}f}}"

    def _cell(self, m: Measurement | None, number_format: str) -> str:
        if m is None:
            return ""
        value = m.median / self.scale
        text = number_format.format(trim_sigfig(value, m.significant_figures) if self.trim else value)
        if self.highlight:
            text += f" (! {m.iqr / m.median * 100:.0f}%)" if m.has_warnings else " " * 7
        return text

    def _best(self, row: tuple[object, ...], column: object) -> float | None:
        if self.colorize is Colorize.ROWWISE:
            return min(m.median for (r, _), m in self.cells.items() if r == row)
        if self.colorize is Colorize.COLUMNWISE:  # best within the column's thread group
            return min(m.median for (r, c), m in self.cells.items() if c == column and r[0] == row[0])
        return None

    def render(self) -> str:
        formats = {c: self._number_format(c) for c in self.columns}
        envs = {m.env for m in self.results}
        show_env = len(envs) > 1
        env_width = max(len(str(e)) for e in envs) if show_env else 0
        grid = [["", *(str(c) if c is not None else "" for c in self.columns)]]
        previous: tuple[object, ...] = (None, None)
        for threads, env, name in self.rows:
            shown_env = f"({env})" if show_env and (threads, env) != previous else ""
            previous = (threads, env)
            cells = [self._cell(self.cells.get(((threads, env, name), c)), formats[c]) for c in self.columns]
            grid.append(["  " + shown_env.ljust(env_width + 4) + name, *cells])
        widths = [max(len(row[i]) for row in grid) for i in range(len(grid[0]))]
        header = "  |  ".join(text.center(w) for text, w in zip(grid[0], widths, strict=True))
        lines, threads_shown = [header], None
        for (threads, env, name), row in zip(self.rows, grid[1:], strict=True):
            if threads != threads_shown:
                lines.append(f"{threads} threads: ".ljust(len(header), "-"))
                threads_shown = threads
            texts = [row[0].ljust(widths[0])]
            for column, text, width in zip(self.columns, row[1:], widths[1:], strict=True):
                text, m = text.center(width), self.cells.get(((threads, env, name), column))
                best = self._best((threads, env, name), column)
                texts.append(_paint(text, m.median, best) if m is not None and best is not None else text)
            lines.append("  |  ".join(texts))
        label = f" {self.results[0].label or ''} ".center(len(header) - 2, "-")
        note = "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n" if self.highlight else ""
        return f"[{label}]\n" + "\n".join(lines) + f"\n\nTimes are in {unit_to_english(self.unit)}s ({self.unit}).\n{note}"


class Compare:
    """Tables of many measurements: `print(Compare(results))`, optionally trimmed, colorized, with warnings."""

    def __init__(self, results: list[Measurement]) -> None:
        self._results: list[Measurement] = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def extend_results(self, results: Iterable[Measurement]) -> None:
        results = list(results)
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        self._highlight_warnings = True

    def _render(self) -> list[str]:
        by_label: dict[str | None, list[Measurement]] = {}
        for m in Measurement.merge(self._results):
            by_label.setdefault(m.label, []).append(m)
        args = (self._colorize, self._trim_significant_figures, self._highlight_warnings)
        return [_Table(group, *args).render() for group in by_label.values()]

    def __str__(self) -> str:
        return "\n".join(self._render())

    def print(self) -> None:
        print(str(self))
