"""Forward over reverse: the Hessian of a 100-parameter function by jacfwd(jacrev(f)), glassgrad against PyTorch's
torch.func, as a ratio of medians; and reverse over reverse, jacrev(jacrev(f)), which glassgrad's func.hessian
uses. Run with `make bench-forward-hessian`.

f(w) reads w as a 10x10 weight: the mean of a tanh layer's squared outputs on 8 fixed inputs, plus a logsumexp,
in float64 on one thread. PyTorch vmaps the 100 jvps of jacfwd; glassgrad runs them one after another, each
through forward-mode AD over a reverse-mode gradient. The Hessians must agree to 1e-9 before anything is timed.
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import torch

import glassgrad

PARAMETERS = 100
ROUNDS = 5


def problem(m: ModuleType) -> tuple[Callable[[Any], Any], Any]:
    rng = np.random.default_rng(0)
    x = m.tensor(rng.standard_normal((8, 10)))
    w = m.tensor(rng.standard_normal(PARAMETERS) * 0.3)

    def f(w: Any) -> Any:
        h = m.tanh(x @ w.reshape(10, 10))
        return (h * h).mean() + m.logsumexp(h.sum(0), 0)

    return f, w


COMPOSITIONS = {"jacfwd(jacrev(f))": ("jacfwd", "jacrev"), "jacrev(jacrev(f))": ("jacrev", "jacrev")}


def hessian(m: ModuleType, composition: str = "jacfwd(jacrev(f))") -> Callable[[], Any]:
    f, w = problem(m)
    outer, inner = (getattr(m.func, name) for name in COMPOSITIONS[composition])
    return lambda: outer(inner(f))(w)


def median_seconds(run: Callable[[], Any]) -> float:
    run()  # warm-up
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # PyTorch's jacfwd loads decompositions via torch.jit
        expected = hessian(torch)().numpy()
        for composition in COMPOSITIONS:
            got = hessian(glassgrad, composition)().numpy()
            error = float(np.abs(got - expected).max() / np.abs(expected).max())
            if error > 1e-9:
                print(f"glassgrad's Hessian by {composition} is wrong: relative error {error:.2e}")
                return 1
        seconds = {
            (name, composition): median_seconds(hessian(m, composition))
            for composition in COMPOSITIONS
            for name, m in (("torch", torch), ("glassgrad", glassgrad))
        }
    reference = seconds["torch", "jacfwd(jacrev(f))"]
    print(f"Hessian of a {PARAMETERS}-parameter function, float64, 1 thread, median of {ROUNDS}; ratio to torch.func's jacfwd(jacrev(f)):")
    for (name, composition), value in seconds.items():
        print(f"  {name:<10} {composition:<18} {value * 1e3:9.1f} ms   {value / reference:6.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
