"""The glass measured on real reports: every corpus program under both engines (corpus_cases.py has the rules)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .corpus_cases import ENGINES, FIX_WORDS, KINDS, KNOWN_MISSES, cases, ending, judge, report

pytestmark = pytest.mark.torch_oracle

NAMES = [case.name for case in cases()]
ROOT = Path(__file__).resolve().parents[2]


def test_the_corpus_is_at_least_sixty_distinct_reports() -> None:
    assert len(NAMES) >= 60
    sources = [case.source for case in cases()]
    assert len(set(sources)) == len(sources), "two cases cite one thread"
    for case in cases():
        assert case.kind in KINDS, case.name
        assert (case.fix in FIX_WORDS) == (case.kind != "correct"), case.name
        assert (case.error is not None) == (case.kind == "error"), case.name
        assert bool(case.culprits) == (case.kind != "correct"), case.name


@pytest.mark.parametrize("name", NAMES)
def test_the_program_behaves_alike_on_both_engines(name: str) -> None:
    """Same ending on glassgrad's engine as on PyTorch: no error, or the same type and first sentence.

    The sentence is compared up to the description of the tensor in an in-place error (`: [torch.FloatTensor ...],
    which is output 0 of ...`): which view op PyTorch names there is its implementation's (AsStrided in 2.13).
    """
    glassgrad, torch = (report(name, engine)["error"] for engine in ENGINES)
    assert (glassgrad is None) == (torch is None), (ending(report(name, "glassgrad")), ending(report(name, "torch")))
    if torch is not None:
        assert glassgrad["type"] == torch["type"]
        first = re.split(r"\. |: \[", torch["message"].splitlines()[0])[0]
        assert glassgrad["message"].startswith(first)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", NAMES)
def test_the_glass_on_the_case(name: str, engine: str) -> None:
    [case] = [c for c in cases() if c.name == name]
    reason = judge(case, report(name, engine))
    known = KNOWN_MISSES[engine].get(name)
    if reason is None:
        assert known is None, f"{name} is right on {engine} now: remove it from KNOWN_MISSES[{engine!r}]"
    else:
        assert known is not None, f"{name} on {engine}: {reason}\n--- the glass said:\n{report(name, engine)}"


def test_known_misses_name_cases_of_the_corpus() -> None:
    for engine in ENGINES:
        assert set(KNOWN_MISSES[engine]) <= set(NAMES)


def test_the_table_in_the_docs_is_current() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "corpus_table.py"), "--check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
