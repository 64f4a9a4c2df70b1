"""Per-sample gradients with vmap(grad), against PyTorch's torch.func and against a loop of grad calls.

W2's MLP (784-256-256-10, ReLU, cross-entropy, float32, the weights and batch of bench/workloads.py) and one
gradient of each of its six parameters per sample, over the batch of 64, one thread:
- torch:              torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0)) on PyTorch 2.13;
- glassgrad vmap:     the same code, glassgrad as torch (batching rules, no fallback: a fallback raises here);
- glassgrad loop:     glassgrad.func.grad(loss) once per sample, the results stacked (what vmap replaces).
The three are checked against each other first; then they are timed interleaved round by round after a warm-up
(bench/interleave.py). Run with `make bench-per-sample-grads` (add BENCH_ARGS=--quick for a smoke test).
"""

from __future__ import annotations

import os
import statistics
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402 - the thread variables must be set before NumPy loads
import torch  # noqa: E402

import glassgrad  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interleave import interleaved  # noqa: E402  (bench/ is not a package: its folder is on sys.path)
from workloads import SEED, classifier_problem  # noqa: E402

Step = Callable[[], list[Any]]


def per_sample_loss(lib: ModuleType) -> Callable[..., Any]:
    """The loss of one sample, written once for both libraries."""
    F = lib.nn.functional

    def loss(params: list[Any], x: Any, target: Any) -> Any:
        h = x
        for i in range(0, len(params), 2):
            h = h @ params[i] + params[i + 1]
            if i < len(params) - 2:
                h = F.relu(h)
        return F.cross_entropy(h.unsqueeze(0), target.unsqueeze(0))

    return loss


def vmap_grad(lib: ModuleType, params: list[Any], x: Any, y: Any) -> Step:
    compute = lib.func.vmap(lib.func.grad(per_sample_loss(lib)), in_dims=(None, 0, 0))
    return lambda: compute(params, x, y)


def loop_grad(lib: ModuleType, params: list[Any], x: Any, y: Any) -> Step:
    compute = lib.func.grad(per_sample_loss(lib))

    def step() -> list[Any]:
        per_sample = [compute(params, x[i], y[i]) for i in range(len(x))]
        return [lib.stack(list(column)) for column in zip(*per_sample, strict=True)]

    return step


def steps() -> dict[str, Step]:
    problem = classifier_problem(np.random.default_rng(SEED))
    x, _, targets = problem.data
    made = {}
    for name, lib, make in (
        ("torch", torch, vmap_grad),
        ("glassgrad vmap", glassgrad, vmap_grad),
        ("glassgrad loop", glassgrad, loop_grad),
    ):
        params = [lib.tensor(p) for p in problem.params]
        made[name] = make(lib, params, lib.tensor(x), lib.tensor(targets.astype(np.int64)))
    return made


def check(made: dict[str, Step]) -> None:
    """Every step's gradients against PyTorch's: max |got - ref| / max |ref| per parameter, at most 1e-4."""
    reference = [g.numpy() for g in made["torch"]()]
    for name, step in made.items():
        for i, (got, want) in enumerate(zip(step(), reference, strict=True)):
            error = float(np.abs(got.numpy() - want).max() / np.abs(want).max())
            if got.shape != want.shape or error > 1e-4:
                raise SystemExit(f"{name}: gradient {i} is wrong (shape {tuple(got.shape)}, error {error:.2e})")


@contextmanager
def _running(active: list[Step], step: Step) -> Iterator[None]:
    active[0] = step
    yield


def main() -> None:
    torch.set_num_threads(1)
    warnings.simplefilter("error", glassgrad.func.VmapLoopWarning)  # a fallback would not be vmap's speed
    made = steps()
    check(made)
    active = [made["torch"]]
    settings: dict[str, Callable[[], AbstractContextManager[object]]] = {
        name: (lambda step=step: _running(active, step)) for name, step in made.items()
    }
    quick = "--quick" in sys.argv
    times = interleaved(lambda: active[0](), settings, rounds=3 if quick else 20, repeats=2)
    medians = {name: statistics.median(samples) for name, samples in times.items()}
    print("per-sample gradients of W2's MLP, batch 64, 1 thread (median of the interleaved rounds)")
    print(f"{'':16}{'median ms':>10}{'vs torch':>10}{'vs glassgrad vmap':>19}")
    for name, median in medians.items():
        vs_vmap = median / medians["glassgrad vmap"]
        print(f"{name:16}{median * 1e3:10.2f}{median / medians['torch']:9.2f}x{vs_vmap:18.2f}x")


if __name__ == "__main__":
    main()
