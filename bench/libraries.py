"""Wall time of the transformers and Lightning scripts (examples/libraries) on glassgrad and on PyTorch.

    python bench/libraries.py [--repeats N] [--only gpt2_train,bert_classify,lightning_train]

Each script runs as a user runs it, in a fresh process: `python script.py` for PyTorch and
`python -m glassgrad.cli run script.py` for glassgrad, both from PyTorch's initial weights, on one thread
(OMP/OPENBLAS/MKL_NUM_THREADS=1). Runs alternate between the engines; for each, the median of the whole
process's wall time (imports included: importing transformers costs seconds on either engine), as a user
waits for it, and of the training loop's own time as the script measures it (`train_seconds`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent / "examples" / "libraries"
STEPS = {"gpt2_train": 20, "bert_classify": 20, "lightning_train": 20}
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


def _timed(command: list[str], cwd: str, report: Path) -> tuple[float, float]:
    """(whole process, training loop) seconds of one run."""
    start = time.perf_counter()
    result = subprocess.run(
        [*command, "--losses", str(report)], capture_output=True, text=True, cwd=cwd, env={**os.environ, **ONE_THREAD},
        check=False,
    )
    elapsed = time.perf_counter() - start
    if result.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr[-3000:]}")
    return elapsed, json.loads(report.read_text())["train_seconds"]


def bench(name: str, repeats: int, work: str) -> dict[str, list[tuple[float, float]]]:
    script, init, report = str(SCRIPTS / f"{name}.py"), str(Path(work) / f"{name}_init.pt"), Path(work) / "report.json"
    steps = ["--steps", str(STEPS[name])]
    subprocess.run([sys.executable, script, *steps, "--save-init", init], capture_output=True, cwd=work, check=True)
    runs: dict[str, list[tuple[float, float]]] = {"torch": [], "glassgrad": []}
    for _ in range(repeats):
        runs["torch"].append(_timed([sys.executable, script, *steps, "--init", init], work, report))
        runs["glassgrad"].append(
            _timed([sys.executable, "-m", "glassgrad.cli", "run", script, *steps, "--init", init], work, report)
        )
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default=",".join(STEPS))
    args = parser.parse_args()
    import torch

    print(f"python {sys.version.split()[0]}, torch {torch.__version__}, 1 thread, {args.repeats} runs per engine, medians")
    print(f"{'script':18} {'steps':>5} | {'whole process: torch s':>22} {'glassgrad s':>11} {'ratio':>6} | "
          f"{'training loop: torch s':>22} {'glassgrad s':>11} {'ratio':>6}")
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for name in args.only.split(","):
            runs = results[name] = bench(name, args.repeats, work)
            row = []
            for part in (0, 1):
                torch_s = statistics.median(run[part] for run in runs["torch"])
                glassgrad_s = statistics.median(run[part] for run in runs["glassgrad"])
                row.append(f"{torch_s:>22.2f} {glassgrad_s:>11.2f} {glassgrad_s / torch_s:>5.2f}x")
            print(f"{name:18} {STEPS[name]:>5} | {row[0]} | {row[1]}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
