"""Wall time of the transformers and Lightning scripts (examples/libraries) on glassgrad and on PyTorch.

    python bench/libraries.py [--repeats N] [--only gpt2_train,bert_classify,lightning_train]

Each script runs as a user runs it, in a fresh process: `python script.py` for PyTorch and
`python -m glassgrad.cli run script.py` for glassgrad, both from PyTorch's initial weights, on one thread
(OMP/OPENBLAS/MKL_NUM_THREADS=1). Runs alternate between the engines; the median wall time of the whole
process is reported, imports included (importing transformers costs seconds on either engine), as a user
waits for it.
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


def _timed(command: list[str], cwd: str) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env={**os.environ, **ONE_THREAD}, check=False)
    elapsed = time.perf_counter() - start
    if result.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr[-3000:]}")
    return elapsed


def bench(name: str, repeats: int, work: str) -> dict[str, list[float]]:
    script, init = str(SCRIPTS / f"{name}.py"), str(Path(work) / f"{name}_init.pt")
    steps = ["--steps", str(STEPS[name])]
    subprocess.run([sys.executable, script, *steps, "--save-init", init], capture_output=True, cwd=work, check=True)
    runs: dict[str, list[float]] = {"torch": [], "glassgrad": []}
    for _ in range(repeats):
        runs["torch"].append(_timed([sys.executable, script, *steps, "--init", init], work))
        runs["glassgrad"].append(_timed([sys.executable, "-m", "glassgrad.cli", "run", script, *steps, "--init", init], work))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default=",".join(STEPS))
    args = parser.parse_args()
    import torch

    print(f"python {sys.version.split()[0]}, torch {torch.__version__}, 1 thread, {args.repeats} runs per engine, medians")
    print(f"{'script':18} {'steps':>5} {'torch s':>9} {'glassgrad s':>12} {'ratio':>7}")
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for name in args.only.split(","):
            runs = bench(name, args.repeats, work)
            torch_s, glassgrad_s = statistics.median(runs["torch"]), statistics.median(runs["glassgrad"])
            results[name] = runs
            print(f"{name:18} {STEPS[name]:>5} {torch_s:>9.2f} {glassgrad_s:>12.2f} {glassgrad_s / torch_s:>6.2f}x")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
