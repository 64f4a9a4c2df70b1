"""The corpus of real reports: the cases, how the glass's answer on each is judged, and the misses known today.

Every file in corpus/ is one small `import torch` program written from one public report (a forum thread, a Stack
Overflow question, a GitHub issue) of a graph-lifetime error, a leak, or a correct program its author worried
about. Its docstring names the source (`Source:` and `Title:`), the pattern, the line at fault and the fix the
thread settled on; its `EXPECTED` dict says the same for the machine:

- `kind`: "error" (the program raises), "leak" (it runs, and graphs pile up or are kept for nothing) or
  "correct" (it runs, and nothing is wrong);
- `error`: the beginning of PyTorch's first sentence of the error, for kind "error";
- `fix`: the fix category (a key of FIX_WORDS), for kinds "error" and "leak".

The lines the glass should name end in `# <- culprit`.

A verdict is reached per engine, from everything the glass said (the error's message with its explanation, then
every warning). It is "right" when:

- error: the program raised the expected error; every culprit line appears as `file.py:line`; the fix category's
  words appear;
- leak: the program ran to the end; the glass warned; every culprit line appears; the fix category's words appear;
- correct: the program ran to the end and the glass said nothing at all.

Anything else is a miss, for one of the reasons `judge` returns. The misses known today are listed in KNOWN_MISSES
with the cause; the test fails when a case that is right goes wrong, and also when a known miss becomes right (so
that it leaves the list: the count can only go down). docs/corpus.md is this data as a table
(tools/corpus_table.py writes it).

heldout/ is a second set in the same format, written from other reports after the glass's rules had been tuned on
corpus/, to measure the glass on programs it was not tuned on. Its misses are in HELDOUT_KNOWN_MISSES, each with the
reason `judge` gave, under the same contract. Fixing a held-out miss means a general rule in the glass, never a
change to the held-out program.

heldout2/ is a third set, written from yet other reports after the fixes aimed at heldout/ (which therefore no longer
measures the glass on unseen programs); its misses are HELDOUT2_KNOWN_MISSES, same contract.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SETS = {"corpus": HERE / "corpus", "heldout": HERE / "heldout", "heldout2": HERE / "heldout2"}
CULPRIT = "# <- culprit"
ENGINES = ("glassgrad", "torch")
KINDS = ("error", "leak", "correct")

# What a fix must say, by category (a regular expression, case-insensitive, matched against everything said).
FIX_WORDS = {
    "detach-carried-state": r"detach\(\)",
    "detach-input": r"detach\(\)",
    "recompute-in-loop": r"recompute it|inside the loop|into the loop|in each iteration",
    "combine-or-retain": r"backward once|retain_graph=True",
    "order-step-after-backward": r"step\(\) after the last backward|recompute the forward",
    "out-of-place": r"out-of-place|x = x \+|clone\(\)|inplace=False",
    "stack-not-tensor": r"torch\.stack|torch\.cat",
    "grad-mode-on": r"no_grad|inference_mode|enable_grad",
    "requires-grad": r"requires_grad",
    "reduce-to-scalar": r"\.sum\(\)|\.mean\(\)",
    "item-at-accumulation": r"\.item\(\)|\.detach\(\)",
    "no-grad-eval": r"no_grad",
    "remove-retain-graph": r"(drop|remove) retain_graph",
    "autograd-grad": r"autograd\.grad",
    "differentiable-op": r"argmax|not differentiable|non-differentiable",
    "stay-in-torch": r"numpy",
}


@dataclass(frozen=True)
class Case:
    collection: str
    name: str
    path: Path
    source: str
    title: str
    pattern: str
    kind: str
    error: str | None
    fix: str | None
    culprits: tuple[int, ...]


def _field(doc: str, key: str) -> str:
    found = re.search(rf"^{key}: (.+)$", doc, re.MULTILINE)
    if found is None:
        raise ValueError(f"no '{key}:' line in the docstring")
    return found.group(1).strip()


def load(collection: str, path: Path) -> Case:
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    doc = ast.get_docstring(tree) or ""
    [expected] = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["EXPECTED"]
    ]
    culprits = tuple(n for n, line in enumerate(text.splitlines(), start=1) if line.rstrip().endswith(CULPRIT))
    return Case(
        collection, path.stem, path, _field(doc, "Source"), _field(doc, "Title"), _field(doc, "Pattern"),
        expected["kind"], expected.get("error"), expected.get("fix"), culprits,
    )


@cache
def cases(collection: str = "corpus") -> tuple[Case, ...]:
    return tuple(load(collection, path) for path in sorted(SETS[collection].glob("*.py")))


@cache
def report(case: Case, engine: str) -> dict[str, Any]:
    """The doctor's JSON report of one case on one engine (run in this process, once)."""
    from glassgrad import doctor

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the programs' own warnings (PyTorch's) are not the glass's
        return doctor.diagnose(str(case.path), [], engine).to_json()


def said(report: dict[str, Any]) -> str:
    return "\n".join([(report["error"] or {}).get("message", ""), *(w["message"] for w in report["warnings"])])


def named_lines(text: str, path: Path) -> set[int]:
    return {int(line) for line in re.findall(rf"{re.escape(path.name)}:(\d+)", text)}


def ending(report: dict[str, Any]) -> str:
    """How the program ended: 'ran to the end', or the error's type and first line."""
    error = report["error"]
    return "ran to the end" if error is None else f"{error['type']}: {error['message'].splitlines()[0]}"


def behaved(case: Case, report: dict[str, Any]) -> bool:
    error = report["error"]
    if case.kind != "error":
        return error is None
    return error is not None and error["message"].startswith(case.error or "")


def judge(case: Case, report: dict[str, Any]) -> str | None:
    """None when the glass was right on this case, else why not (one of a few short reasons)."""
    if not behaved(case, report):
        return f"the program did not behave as expected ({ending(report)})"
    text = said(report)
    if case.kind == "correct":
        return "false alarm" if text.strip() else None
    if case.kind == "leak" and not report["warnings"]:
        return "silent"
    missing = [line for line in case.culprits if line not in named_lines(text, case.path)]
    if missing:
        return f"does not name line {', '.join(map(str, missing))}"
    if not re.search(FIX_WORDS[case.fix or ""], text, re.IGNORECASE):
        return f"does not give the fix ({case.fix})"
    return None


# The misses of today: case -> the cause (the words before the first colon group them in docs/corpus.md).
# Only ever shorten these lists; a case leaves a list by becoming right on that engine.
KNOWN_MISSES: dict[str, dict[str, str]] = {"glassgrad": {}, "torch": {}}

# The held-out set's misses of today: case -> the reason `judge` gave (with its cause). Same contract as KNOWN_MISSES.
HELDOUT_KNOWN_MISSES: dict[str, dict[str, str]] = {"glassgrad": {}, "torch": {}}

# The second held-out set's misses of today: case -> the reason `judge` gave. Same contract as KNOWN_MISSES.
HELDOUT2_KNOWN_MISSES: dict[str, dict[str, str]] = {"glassgrad": {}, "torch": {}}

MISSES = {"corpus": KNOWN_MISSES, "heldout": HELDOUT_KNOWN_MISSES, "heldout2": HELDOUT2_KNOWN_MISSES}
MISSES_NAME = {"corpus": "KNOWN_MISSES", "heldout": "HELDOUT_KNOWN_MISSES", "heldout2": "HELDOUT2_KNOWN_MISSES"}
