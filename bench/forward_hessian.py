"""Forward over reverse: the Hessian of a 100-parameter function by `func.hessian` (jacfwd(jacrev(f))), glassgrad
against PyTorch's torch.func, as a ratio of medians. Run with `make bench-forward-hessian`.

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


def hessian(m: ModuleType) -> Callable[[], Any]:
    f, w = problem(m)
    return lambda: m.func.hessian(f)(w)


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
        got = hessian(glassgrad)().numpy()
        error = float(np.abs(got - expected).max() / np.abs(expected).max())
        if error > 1e-9:
            print(f"glassgrad's Hessian is wrong: relative error {error:.2e}")
            return 1
        seconds = {name: median_seconds(hessian(m)) for name, m in (("torch", torch), ("glassgrad", glassgrad))}
    print(f"Hessian of a {PARAMETERS}-parameter function, jacfwd(jacrev(f)), float64, 1 thread, median of {ROUNDS}:")
    print(f"  torch.func      {seconds['torch'] * 1e3:9.1f} ms")
    print(f"  glassgrad.func  {seconds['glassgrad'] * 1e3:9.1f} ms   ratio {seconds['glassgrad'] / seconds['torch']:.1f}x")
    print(f"  (the two Hessians agree to {error:.1e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
