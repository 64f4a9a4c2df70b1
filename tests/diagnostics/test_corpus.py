"""The glass measured on real reports: every program of the corpus and of the held-out sets under both engines.

corpus_cases.py has the rules; both sets are judged the same way, each against its own list of known misses.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .corpus_cases import ENGINES, FIX_WORDS, KINDS, MISSES, MISSES_NAME, SETS, Case, cases, ending, judge, report

pytestmark = pytest.mark.torch_oracle

CASES = [case for collection in SETS for case in cases(collection)]
IDS = [f"{case.collection}/{case.name}" for case in CASES]
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("collection", "at_least"), [("corpus", 60), ("heldout", 30), ("heldout2", 30)])
def test_each_set_is_enough_distinct_reports(collection: str, at_least: int) -> None:
    assert len(cases(collection)) >= at_least
    for case in cases(collection):
        assert case.kind in KINDS, case.name
        assert (case.fix in FIX_WORDS) == (case.kind != "correct"), case.name
        assert (case.error is not None) == (case.kind == "error"), case.name
        assert bool(case.culprits) == (case.kind != "correct"), case.name


def test_no_thread_is_cited_twice_across_the_sets() -> None:
    """The held-out set only measures the glass on unseen programs if none of its reports is already in the corpus."""
    sources = [case.source for case in CASES]
    assert len(set(sources)) == len(sources), "two cases cite one thread"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_program_behaves_alike_on_both_engines(case: Case) -> None:
    """Same ending on glassgrad's engine as on PyTorch: no error, or the same type and first sentence.

    The sentence is compared up to the description of the tensor in an in-place error (`: [torch.FloatTensor ...],
    which is output 0 of ...`): which view op PyTorch names there is its implementation's (AsStrided in 2.13).
    """
    glassgrad, torch = (report(case, engine)["error"] for engine in ENGINES)
    assert (glassgrad is None) == (torch is None), (ending(report(case, "glassgrad")), ending(report(case, "torch")))
    if torch is not None:
        assert glassgrad["type"] == torch["type"]
        first = re.split(r"\. |: \[", torch["message"].splitlines()[0])[0]
        assert glassgrad["message"].startswith(first)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_glass_on_the_case(case: Case, engine: str) -> None:
    reason = judge(case, report(case, engine))
    known = MISSES[case.collection][engine].get(case.name)
    where = f"{MISSES_NAME[case.collection]}[{engine!r}]"
    if reason is None:
        assert known is None, f"{case.name} is right on {engine} now: remove it from {where}"
    else:
        assert known is not None, f"{case.name} on {engine}: {reason}\n--- the glass said:\n{report(case, engine)}"


@pytest.mark.parametrize("collection", SETS)
def test_known_misses_name_cases_of_their_set(collection: str) -> None:
    names = {case.name for case in cases(collection)}
    for engine in ENGINES:
        assert set(MISSES[collection][engine]) <= names


def test_the_table_in_the_docs_is_current() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "corpus_table.py"), "--check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
