"""Instructions (callgrind's Ir) per step of one workload: a measure that load on the machine does not move.

    python bench/count_instructions.py W5                  # Ir per W5 step, glassgrad compiled
    python bench/count_instructions.py W5 --steps 50 --keep out/   # keep both callgrind files for callgrind_annotate
    python bench/count_instructions.py W5 --calls          # cProfile: Python-level calls per step, by function
    GLASSGRAD_PURE=1 python bench/count_instructions.py W4 # the pure-Python engine
    PYTHONPATH=<old>/src <old venv>/bin/python bench/count_instructions.py W5   # another commit's glassgrad

Callgrind runs the workload twice, with 0 and with --steps timed steps after the same warm-up; the
difference divided by --steps is one step's cost, without NumPy's import and the problem's setup.
The workloads are bench/workloads.py's, built as bench/run.py builds them, on one BLAS thread, with the objects
that exist after the warm-up frozen out of the garbage collector's full collections.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
WARM_UP = 5


def build_step(key: str) -> Callable[[], object]:
    """The workload's timed closure on glassgrad, as bench/run.py builds it."""
    os.environ.update(dict.fromkeys(THREAD_VARS, "1"))  # before NumPy's import: one BLAS thread repeats its count
    sys.path.insert(0, str(HERE))
    import numpy as np
    from libs import load
    from workloads import SEED, WORKLOADS, make_step

    wl = WORKLOADS[key]
    step = make_step(load("glassgrad"), wl, wl.make_problem(np.random.default_rng(SEED)))
    for _ in range(WARM_UP):
        step()
    # Out of the collector's sight: a full collection over the imported modules' objects falls in one run's steps
    # and not in the other's, a swing larger than the differences measured
    gc.collect()
    gc.freeze()
    return step


def count_calls(key: str, steps: int, top: int) -> None:
    """Python-level calls per step (cProfile sees compiled functions only as the calls they make into Python)."""
    import cProfile
    import pstats

    step = build_step(key)
    profile = cProfile.Profile()
    profile.runcall(run_steps, step, steps)
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    rows = sorted(((calls, f"{Path(file).name}:{line}({name})") for (file, line, name), (_, calls, *_) in stats.items()), reverse=True)
    print(f"{sum(calls for calls, _ in rows) / steps:.1f} calls per step")
    for calls, where in rows[:top]:
        print(f"{calls / steps:10.2f}  {where}")


def run_steps(step: Callable[[], object], steps: int) -> None:
    for _ in range(steps):
        step()


def callgrind_ir(key: str, steps: int, out: Path) -> int:
    """Total Ir of one run with `steps` steps after the warm-up; callgrind's file is left in `out`."""
    outfile = out / f"callgrind.{key}.{steps}"
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={outfile}",
        sys.executable,
        __file__,
        key,
        "--inner",
        str(steps),
    ]
    env = os.environ | {"PYTHONHASHSEED": "0"}  # the same dict and set layouts in both runs
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    match = re.search(r"Collected : (\d+)", done.stderr)
    assert match, done.stderr
    return int(match.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workload", help="a key of bench/workloads.py's WORKLOADS (W1, W2, W2-nn, W2-adam, W4, W5, ...)")
    parser.add_argument("--steps", type=int, default=20, help="timed steps after the warm-up (default 20)")
    parser.add_argument("--keep", type=Path, help="a folder to keep the two callgrind files in")
    parser.add_argument("--calls", action="store_true", help="count Python-level calls with cProfile instead")
    parser.add_argument("--top", type=int, default=40, help="with --calls: how many functions to list")
    parser.add_argument("--inner", type=int, help=argparse.SUPPRESS)  # the run callgrind watches
    args = parser.parse_args()
    if args.inner is not None:
        run_steps(build_step(args.workload), args.inner)
    elif args.calls:
        count_calls(args.workload, args.steps, args.top)
    else:
        with tempfile.TemporaryDirectory() as scratch:
            out = args.keep or Path(scratch)
            out.mkdir(parents=True, exist_ok=True)
            base, loaded = callgrind_ir(args.workload, 0, out), callgrind_ir(args.workload, args.steps, out)
        print(f"{args.workload}: {(loaded - base) / args.steps:,.0f} Ir per step ({args.steps} steps, callgrind)")


if __name__ == "__main__":
    main()
