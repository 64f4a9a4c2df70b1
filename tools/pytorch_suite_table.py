"""Rewrite docs/pytorch-suite.md's list of failures from a run of PyTorch's autograd tests.

    python ../shared/pytorch-tests/run.py --engine glassgrad --project . --python .venv/bin/python --json gg.json
    python tools/pytorch_suite_table.py gg.json

The tests counted are those that pass on torch 2.13 (the runner's baseline); each failure is put in the kind
../shared/pytorch-tests/categorize.py gives it, with the first line of what it raised. The page's text above
"## What still fails, by kind" (the counts, written by hand with the commands that produced them) is kept.
"""

from __future__ import annotations

import argparse
import json
import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "pytorch-suite.md"
HEADING = "## What still fails, by kind"


def failures_section(run: dict, baseline: dict, categorize: dict) -> str:
    passing_on_torch = {test for test, result in baseline["results"].items() if result.get("status") == "PASS"}
    failing = {
        test: result for test, result in run["results"].items() if test in passing_on_torch and result.get("status") != "PASS"
    }
    lines = [HEADING, "", "The reason is the first line of what the test raised on glassgrad (from `categorize.py`).", ""]
    for kind, items in categorize["categorize"](failing).items():
        lines += [f"### {kind} ({len(items)})", "", "| test | reason |", "|---|---|"]
        for test, result in items:
            reason = (result.get("reason") or "").splitlines()[0] if result.get("reason") else ""
            reason = reason.replace("|", "\\|")
            lines.append(f"| {test} | {reason[:150] + '...' if len(reason) > 150 else reason} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="the runner's --json output for glassgrad")
    parser.add_argument("--suite", default=str(ROOT.parent / "shared" / "pytorch-tests"), help="the runner's folder")
    args = parser.parse_args()
    suite = Path(args.suite)
    run = json.loads(Path(args.run).read_text())
    baseline = json.loads((suite / "results" / "torch_baseline.json").read_text())
    categorize = runpy.run_path(str(suite / "categorize.py"))
    head = PAGE.read_text().split(HEADING)[0]
    PAGE.write_text(head + failures_section(run, baseline, categorize))


if __name__ == "__main__":
    main()
