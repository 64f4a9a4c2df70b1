"""What the glass costs: W1 and W2 with creation sites off, on (the default), and with the watches on.

Run with `make bench-diagnostics` (or `bench/.venv/bin/python bench/diagnostics_overhead.py`).
One process, one thread, the three settings interleaved round by round after warm-up; the table
gives medians and the ratio to "sites off". Issue 5's budget: sites on <= 1.10, watches on <= 1.25.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import statistics  # noqa: E402 - the thread variables must be set before NumPy loads
import sys  # noqa: E402
from collections.abc import Callable  # noqa: E402
from contextlib import AbstractContextManager, nullcontext  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from interleave import interleaved  # noqa: E402
from libs import load  # noqa: E402
from workloads import SEED, WORKLOADS, make_step  # noqa: E402

import glassgrad  # noqa: E402
from glassgrad import _sites as sites  # noqa: E402


class SitesOff(AbstractContextManager[None]):
    def __enter__(self) -> None:
        sites.enabled = False

    def __exit__(self, *exc: object) -> None:
        sites.enabled = True


SETTINGS: dict[str, Callable[[], AbstractContextManager[object]]] = {
    "sites off": SitesOff,
    "sites on": nullcontext,
    "watches on": glassgrad.diagnostics.watch,
}


def measure(key: str, rounds: int, repeats: int) -> dict[str, list[float]]:
    lib = load("glassgrad")
    wl = WORKLOADS[key]
    step = make_step(lib, wl, wl.make_problem(np.random.default_rng(SEED)))
    times = interleaved(step, SETTINGS, rounds, repeats)
    return {name: [t / (wl.per or 1) for t in samples] for name, samples in times.items()}


def main() -> None:
    quick = "--quick" in sys.argv
    print(f"{'':4}{'setting':12}{'median':>10}  {'unit':6}{'vs sites off':>14}")
    for key, unit, scale in (("W1", "us/op", 1e6), ("W2", "ms", 1e3)):
        times = measure(key, rounds=5 if quick else 40, repeats=3 if quick else 10)
        base = statistics.median(times["sites off"])
        for name, samples in times.items():
            median = statistics.median(samples)
            print(f"{key:4}{name:12}{median * scale:10.2f}  {unit:6}{median / base:13.3f}x")


if __name__ == "__main__":
    main()
