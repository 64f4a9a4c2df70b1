"""Write docs/corpus.md, the table of the corpus of real reports, from the test's own data.

    python tools/corpus_table.py          # rewrite docs/corpus.md
    python tools/corpus_table.py --check  # exit 1 when docs/corpus.md is not what this would write

The verdicts are not measured here: tests/diagnostics/test_corpus.py fails unless every case outside
KNOWN_MISSES (HELDOUT_KNOWN_MISSES, HELDOUT2_KNOWN_MISSES for the held-out sets) is right and every case in it is a
miss, so the lists are the measure.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.diagnostics.corpus_cases import ENGINES, KINDS, MISSES, Case, cases  # noqa: E402

TARGET = ROOT / "docs" / "corpus.md"

HEAD = """\
# The corpus: the glass on real reports

Each row is one public report (a PyTorch forum thread, a Stack Overflow question, a GitHub issue) of a
graph-lifetime error, a leak, or a correct program its author worried about, rewritten as a small
`import torch` program in tests/diagnostics/corpus/ (the file's docstring cites the source, the line at
fault and the fix the thread settled on). `make test` runs every program under the glass on both engines
(`glassgrad doctor --engine glassgrad` and `--engine torch`, in process) and judges what it said:

- **error**: the program raises PyTorch's error; the glass names every culprit line (`file.py:line`) and
  gives the fix the thread gave (the fix category's words, tests/diagnostics/corpus_cases.py FIX_WORDS);
- **leak**: the program runs; the glass warns, naming the culprit line and the fix;
- **correct**: the program runs and the glass says nothing.

Anything else is a miss. The misses known today are listed, with their cause, in KNOWN_MISSES
(tests/diagnostics/corpus_cases.py); the test fails when a right case goes wrong and when a known miss
becomes right, so the list only shrinks. Run it alone with

    .venv/bin/python -m pytest tests/diagnostics/test_corpus.py -q

and rewrite this page with `python tools/corpus_table.py` after changing the list or the corpus.
"""


HELDOUT_HEAD = """\
## The held-out set

tests/diagnostics/heldout/ holds programs written in the same way from other reports (none cited by the corpus),
after the glass's rules had been tuned until the corpus was right everywhere. It measures the glass on programs
it was not tuned on; a miss is fixed by a general rule in the glass, never by editing the program. The same test
runs it (`pytest tests/diagnostics/test_corpus.py -k heldout`); its misses, each with the reason the judge gave,
are HELDOUT_KNOWN_MISSES in tests/diagnostics/corpus_cases.py.
"""

HELDOUT2_HEAD = """\
## The second held-out set

tests/diagnostics/heldout2/ holds programs written in the same way from yet other reports (none cited by the corpus
or the first held-out set). The first held-out set stopped measuring the glass on unseen programs once two rounds of
fixes had aimed at it, so this set was collected afterwards, from shapes neither set had (L-BFGS closures, torch.func,
stateful spiking layers, replay buffers and priority memories, metric meters, overlapping TBPTT windows, momentum
encoders, soft target updates, ...), and measured before any fix aimed at it. Run it with
`pytest tests/diagnostics/test_corpus.py -k heldout2`; its misses, each with the reason the judge gave, are
HELDOUT2_KNOWN_MISSES in tests/diagnostics/corpus_cases.py.
"""

# Figures recorded by hand when a held-out set was measured (the lists above only say what is true today).
HELDOUT_MEASUREMENTS = [
    "held-out set, first measurement, main at c7ecf74 (before any fix aimed at the set), 30 cases (12 error, 5 leak,"
    " 13 correct): glassgrad 21/30 right (error 7/12, leak 2/5, correct 12/13), torch 22/30 right (error 7/12,"
    " leak 2/5, correct 13/13). The misses then: the culprit line not named (both engines: eval_mode_turns_off_grad,"
    " pose_coordinates_through_argmax, rdrop_loss_backwarded_twice, xception_block_activation_in_place,"
    " infini_attention_memory_not_detached, cru_epoch_metrics_summed_as_tensors, slip_meters_updated_with_tensors,"
    " forecasting_step_outputs_not_detached) and one false alarm (glassgrad only: ctgan_penalty_backward_retained).",
    "after the first fixes (branch held31: an argmax is a cut, the failing backward is named, state carried alongside"
    " is named, a module called through self is found, a grad mode set from a flag is a cut): glassgrad 26/30 right"
    " (error 12/12, leak 2/5, correct 12/13), torch 27/30 right (error 12/12, leak 2/5, correct 13/13).",
    "session 19's merge (main at 444b7d2), with the holder search through the user's frames (branch speed31, written"
    " for the doctor's speed without looking at this set): it finds the list attribute of dicts in"
    " forecasting_step_outputs_not_detached, so glassgrad 27/30 right (leak 3/5), torch 28/30 right (leak 3/5).",
    "the second round aimed at the set (branch heldfix): the leak warning names every site in the loop whose graph"
    " grows, not only the newest (cru_epoch_metrics_summed_as_tensors: epoch_rmse as well as epoch_ll); where the"
    " statement adding to the holder adds a parameter of its function (a meter's `self.sum += val * n`), it names the"
    " call that passes the tensor (slip_meters_updated_with_tensors); and retain_graph=True on a graph of gradients"
    " (made by a create_graph=True backward) counts as kept for a later backward through the graph they"
    " differentiated, which PyTorch's gradient graph leads back into (ctgan_penalty_backward_retained, glassgrad"
    " only): glassgrad 30/30 right, torch 30/30 right.",
]
HELDOUT2_MEASUREMENTS = [
    "second held-out set, first measurement, main at 9e988c9 (before any fix aimed at the set), 31 cases (11 error,"
    " 8 leak, 12 correct): glassgrad 25/31 right (error 8/11, leak 6/8, correct 11/12), torch 23/31 right (error 6/11,"
    " leak 6/8, correct 11/12). The misses then, on both engines: the culprit line not named"
    " (lif_cell_state_reused_across_backwards: the loop that carries the state; ssd_backbone_and_head_frozen: the"
    " frozen parameters, `images` blamed instead; mmf_meter_updated_with_loss_dict and tracker_stats_meters_fed_tensors:"
    " the statement that hands the tensors to the meter), the wrong fix (sophia_hessian_estimate_reuses_logits: detach"
    " or retain_graph offered, not a fresh forward) and a false alarm (tbptt_k1_k2_with_retained_windows:"
    " retain_graph=True called unneeded); on the torch engine only, two in-place errors with no explanation at all"
    " (mask_probabilities_written_into_sigmoid_output, metric_embedder_classifier_relu_in_place: the glass's own look"
    " at the graph raised).",
    "after the fixes aimed at the set (branch held3): retain_graph=True is needed at a statement once any graph it kept"
    " was gone through again; frozen parameters (requires_grad = False) are named when nothing cut the graph; a second"
    " loss built after the first backward gets 'recompute it' among the fixes; the torch glass skips nodes the failing"
    " backward already released when it looks for the modified tensor; state returned by a called function and passed"
    " back in by the loop is named where the loop rebinds it; the calls that handed a holder's tensor down to a meter"
    " are followed up (and an average is added to where its sum is): glassgrad 31/31 right, torch 31/31 right. The"
    " set now measures these rules' authors, not unseen programs.",
]

# Each held-out set: its section's head and its measurements, in the order of the page.
HELDOUT_SETS = {
    "heldout": (HELDOUT_HEAD, HELDOUT_MEASUREMENTS),
    "heldout2": (HELDOUT2_HEAD, HELDOUT2_MEASUREMENTS),
}


def verdict(case: Case, engine: str) -> str:
    reason = MISSES[case.collection][engine].get(case.name)
    return "right" if reason is None else f"**miss**: {reason}"


def pattern(case: Case) -> str:
    return case.pattern.split(":")[0] + (f" ({case.kind}, fix: {case.fix})" if case.fix else f" ({case.kind})")


def table() -> str:
    corpus = cases()
    lines = [HEAD, "## Summary", "", "| engine | right | miss |", "|---|---|---|"]
    for engine in ENGINES:
        misses = len(MISSES["corpus"][engine])
        lines.append(f"| {engine} | {len(corpus) - misses} | {misses} |")
    lines += ["", f"{len(corpus)} cases.", "", "## Misses by cause", ""]
    for engine in ENGINES:
        causes: dict[str, list[str]] = defaultdict(list)
        for name, reason in MISSES["corpus"][engine].items():
            causes[reason.split(":")[0]].append(name)
        lines.append(f"**{engine}**" + ("" if causes else ": none"))
        lines += [""] + [f"- {cause} ({len(names)}): {', '.join(sorted(names))}" for cause, names in sorted(causes.items())]
        lines.append("")
    lines += ["## Cases", "", *case_table(corpus)]
    for collection in HELDOUT_SETS:
        lines += ["", *heldout_section(collection)]
    return "\n".join(lines) + "\n"


def row(cells: list[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def heldout_section(collection: str) -> list[str]:
    heldout = cases(collection)
    misses = MISSES[collection]
    head, measurements = HELDOUT_SETS[collection]
    lines = [head, "### Right and missed, by kind", ""]
    lines += ["| engine | " + " | ".join(KINDS) + " | all |", "|---" * (len(KINDS) + 2) + "|"]
    for engine in ENGINES:
        counts = []
        for kind in (*KINDS, None):
            of_kind = [case for case in heldout if kind in (None, case.kind)]
            right = sum(case.name not in misses[engine] for case in of_kind)
            counts.append(f"{right}/{len(of_kind)} right")
        lines.append(row([engine, *counts]))
    lines += ["", *(f"- {line}" for line in measurements), "", "### Misses", ""]
    for engine in ENGINES:
        lines.append(f"**{engine}**" + ("" if misses[engine] else ": none"))
        lines += [""] + [f"- `{name}`: {reason}" for name, reason in sorted(misses[engine].items())]
        lines.append("")
    return [*lines, "### Cases", "", *case_table(heldout)]


def case_table(collection: tuple[Case, ...]) -> list[str]:
    lines = ["| case | pattern | source | glassgrad engine | torch engine |", "|---|---|---|---|---|"]
    for case in collection:
        cells = [f"`{case.name}`", pattern(case), f"[{case.title}]({case.source})", *(verdict(case, e) for e in ENGINES)]
        lines.append(row(cells))
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that docs/corpus.md is current")
    args = parser.parse_args()
    text = table()
    if args.check:
        if not TARGET.exists() or TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET} is stale: run python tools/corpus_table.py")
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
