"""torch.utils.benchmark against PyTorch: the same Measurement built from the same times reports the same statistics,
repr and Compare table; Timer runs setup once, the statement the number of times asked, in its own globals. Nothing
here depends on how long anything takes."""

from __future__ import annotations

import re

import pytest
import torch.utils.benchmark as tb

import glassgrad.utils
import glassgrad.utils.benchmark as gb
from glassgrad._missing import NotImplementedInGlassgrad

pytestmark = pytest.mark.torch_oracle

TIMES = [3.1e-4, 2.9e-4, 3.0e-4, 3.3e-4, 2.95e-4, 4.1e-4, 3.05e-4]


def _pair(times, number=10, **task):
    """The same measurement in both libraries."""
    spec = {"stmt": "x + y", "setup": "pass", **task}
    return (tb.Measurement(number, list(times), tb.TaskSpec(**spec)),
            gb.Measurement(number, list(times), gb.TaskSpec(**spec)))


def _without_address(text):
    return re.sub(r"<\S+ object at 0x[0-9a-f]+>", "<object>", text)


@pytest.mark.parametrize("times", [TIMES, TIMES[:1], TIMES[:3], [1e-6, 1e-6, 5e-6, 1e-6, 9e-6]])
@pytest.mark.parametrize("task", [{}, {"label": "add", "sub_label": "4x4", "description": "float"},
                                  {"stmt": "a = 1\nb = a", "setup": "import math\nx = 2", "num_threads": 4}])
def test_measurement_statistics_and_repr(times, task):
    theirs, ours = _pair(times, **task)
    for name in ("times", "median", "mean", "iqr", "significant_figures", "has_warnings", "title", "env",
                 "as_row_name", "label", "num_threads"):
        assert getattr(ours, name) == pytest.approx(getattr(theirs, name)), name
    assert _without_address(repr(ours)) == _without_address(repr(theirs))
    assert repr(ours).startswith("<glassgrad.utils.benchmark.utils.common.Measurement object at ")


def test_merge_pools_times_per_task():
    a_theirs, a_ours = _pair(TIMES[:3], number=10)
    b_theirs, b_ours = _pair(TIMES[3:], number=100)
    (theirs,), (ours,) = tb.Measurement.merge([a_theirs, b_theirs]), gb.Measurement.merge([a_ours, b_ours])
    assert ours.number_per_run == theirs.number_per_run == 1
    assert ours.times == pytest.approx(theirs.times)


def _results(lib):
    rows = []
    for i, (sub, desc) in enumerate([("n=10", "add"), ("n=10", "mul"), ("n=1000", "add"), ("n=1000", "mul")]):
        for threads in (1, 2):
            times = [t * (i + 1) * threads for t in TIMES]
            spec = lib.TaskSpec("f(x)", "pass", label="ops", sub_label=sub, description=desc, num_threads=threads)
            rows.append(lib.Measurement(100, times, spec))
    rows.append(lib.Measurement(1, TIMES[:4], lib.TaskSpec("g(x)", "pass", label="other", description="g", env="eager")))
    return rows


@pytest.mark.parametrize("options", [(), ("trim_significant_figures",), ("colorize",), ("highlight_warnings",),
                                     ("trim_significant_figures", "colorize", "highlight_warnings")])
def test_compare_prints_the_same_table(options, capsys):
    tables = []
    for lib in (tb, gb):
        compare = lib.Compare(_results(lib))
        for option in options:
            getattr(compare, option)()
        compare.print()
        tables.append(capsys.readouterr().out)
    assert tables[1] == tables[0]
    assert "[" in tables[0] and "Times are in microseconds (us)." in tables[0]


def test_compare_rejects_what_is_not_a_measurement():
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        gb.Compare([1.0])


def test_timer_runs_setup_once_and_the_statement_number_times():
    calls = []
    namespace = {"calls": calls}
    timer = gb.Timer("calls.append(x)", setup="x = torch.ones(2).sum().item()", globals=namespace, label="append")
    m = timer.timeit(300)
    assert calls == [2.0] * (3 + 300)  # a warm-up of max(number // 100, 2) runs, then the measured ones
    assert (m.number_per_run, len(m.raw_times), m.label, m.stmt) == (300, 1, "append", "calls.append(x)")
    assert namespace == {"calls": calls}  # the statement runs in a copy of the globals given


def test_autorange_measures_blocks_and_reports_each():
    seen = []
    m = gb.Timer("sum(range(50))").blocked_autorange(callback=lambda n, t: seen.append(n), min_run_time=0.01)
    assert len(m.raw_times) == len(seen) >= 1 and set(seen) == {m.number_per_run}
    assert sum(m.raw_times) >= 0.01
    m = gb.Timer("sum(range(50))").adaptive_autorange(min_run_time=0.001, max_run_time=0.05)
    assert m.raw_times and m.median > 0


def test_timer_dedents_block_strings_and_refuses_what_pytorch_refuses():
    m = gb.Timer("""
        y = 1
        z = y + 1
    """, setup="\n    w = 2\n").timeit(2)
    assert (m.stmt, m.setup) == ("y = 1\nz = y + 1", "w = 2")
    with pytest.raises(ValueError, match=r"Currently only a `str` stmt is supported\."):
        gb.Timer(lambda: None)
    with pytest.raises(ValueError, match=r"global_setup is C\+\+ only"):
        gb.Timer("pass", global_setup="int x;")
    with pytest.raises(NotImplementedError, match=r"See `Timer\.blocked_autorange\.`"):
        gb.Timer("pass").autorange()
    with pytest.raises(NotImplementedError, match="Python statements only"):
        gb.Timer("pass", language="c++")


def test_the_submodule_exists_once_imported_as_in_pytorch(monkeypatch):
    monkeypatch.delattr(glassgrad.utils, "benchmark")  # as before `import torch.utils.benchmark`
    with pytest.raises(AttributeError, match=r"^module 'glassgrad.utils' has no attribute 'benchmark' \(import ") as e:
        glassgrad.utils.benchmark  # noqa: B018
    assert not isinstance(e.value, NotImplementedInGlassgrad)  # it is implemented: not the missing-name error
