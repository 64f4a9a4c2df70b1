"""A row-major matrix times a transposed one, on the BLAS NumPy ships with: NumPy's call against glassgrad's.

A linear layer's forward is x @ W.T, and a gradient flowing back through x @ W is grad @ W.T: the right operand
is a transposed view of a row-major weight. OpenBLAS's float32 kernel for that layout is slow when the left operand
has few rows, where the product taken the other way round (W @ x.T, its small result copied transposed) is up to
three times faster. glassgrad.ops.linalg.matrix_product takes the swapped product inside a region of shapes; this
script measures, on this machine, the ratio (glassgrad's time / NumPy's) over a grid of shapes and marks the cells
the region covers, so that the region can be checked against the BLAS at hand. One thread, float32.

Run with `make bench-gemm` (BENCH_ARGS=--quick for a coarse grid).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

os.environ["OPENBLAS_NUM_THREADS"] = "1"

import numpy as np  # after the thread variable: OpenBLAS reads it when NumPy loads

from glassgrad.ops.linalg import matrix_product

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interleave import interleaved  # bench/ is not a package: its folder is on sys.path


def swapped(m: int, k: int, n: int) -> bool:
    """Whether matrix_product takes the swapped product for an (m, k) @ (k, n) float32 product of this layout."""
    a = np.zeros((m, k), np.float32)
    b = np.zeros((n, k), np.float32).T
    calls = []
    real = np.matmul

    def spy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        calls.append(x is a)
        return real(x, y)

    np.matmul = spy
    try:
        matrix_product(a, b)
    finally:
        np.matmul = real
    return calls == [False]  # the swapped product's left operand is b.T, not a


def timings(m: int, k: int, n: int, rng: np.random.Generator) -> dict[str, float]:
    """Median seconds of NumPy's call, of the swapped product and of glassgrad's, interleaved."""
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((n, k)).astype(np.float32).T
    repeats = max(3, min(200, int(2e7 / (m * k * n))))
    candidates = {
        "numpy": lambda: np.matmul(a, b),
        "swapped": lambda: np.ascontiguousarray(np.matmul(b.T, a.T).T),
        "glassgrad": lambda: matrix_product(a, b),
    }
    chosen: list[Callable[[], object]] = []  # interleaved() times one step under settings: a setting picks the product

    @contextmanager
    def running(product: Callable[[], object]) -> Iterator[None]:
        chosen.append(product)
        try:
            yield
        finally:
            chosen.pop()

    settings = {name: partial(running, product) for name, product in candidates.items()}
    times = interleaved(lambda: chosen[-1](), settings, rounds=5, repeats=repeats)
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a coarse grid")
    args = parser.parse_args()
    rows = [2, 8, 32, 64, 128] if args.quick else [1, 2, 4, 8, 16, 32, 64, 128]
    sizes = [32, 256, 1024] if args.quick else [16, 32, 64, 128, 256, 512, 1024, 2048]
    rng = np.random.default_rng(0)
    inside, missed = [], []
    print("time of the swapped product / NumPy's call, for (m, k) @ (k, n) with the right operand a transposed")
    print("row-major matrix; * marks the shapes where glassgrad takes the swapped product\n")
    for m in rows:
        print(f"m = {m}" + "".join(f"{'n=' + str(n):>9}" for n in sizes))
        for k in sizes:
            cells = []
            for n in sizes:
                t = timings(m, k, n, rng)
                is_swapped = swapped(m, k, n)
                if is_swapped:
                    inside.append(t["glassgrad"] / t["numpy"])
                elif t["swapped"] < 0.9 * t["numpy"]:
                    missed.append(t["swapped"] / t["numpy"])
                cells.append(f"{t['swapped'] / t['numpy']:8.2f}{'*' if is_swapped else ' '}")
            print(f"k={k:<5}" + "".join(cells))
        print()
    if inside:
        print(f"glassgrad / NumPy inside the region: {len(inside)} shapes, median {statistics.median(inside):.2f}, "
              f"worst {max(inside):.2f}")
    print(f"shapes outside it where the swap is 10% faster or more: {len(missed)}"
          + (f", best {min(missed):.2f}" if missed else ""))

if __name__ == "__main__":
    main()
