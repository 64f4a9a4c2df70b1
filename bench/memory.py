"""W6: peak resident memory of one W3 forward+backward at batch 1024, one fresh process per library.

Run by run.py as `python bench/memory.py LIBRARY [--checkpoint | --nn]` with MALLOC_MMAP_THRESHOLD_=65536 in the
environment (so freed arrays are unmapped and leave the process) and the thread variables of W3.
Prints one JSON object. The weights and input are created, one warm-up forward+backward runs and
everything it produced is dropped (BLAS buffers, lazily loaded kernels), VmHWM is reset through
/proc/self/clear_refs, VmRSS is the baseline, then one forward+backward runs and VmHWM is read.
`--checkpoint` wraps every layer in utils.checkpoint; `--nn` is W6-nn, the model written with nn.Linear
(workloads.tanh_mlp_program), as users write it.
"""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

MIB = 1 << 20
BATCH, WIDTH, LAYERS = 1024, 2048, 3
THREADS = 2


def theoretical_minimum() -> dict[str, float]:
    """The smallest possible peak (MiB) above weights+input, with the gradients kept at the end.

    Backward must hold, at the second layer's matmul backward, the saved h1, the incoming g2,
    the new dh1 and the weight gradients dW3 and dW2 (3 activations + 2 weight grads); at the
    first layer's, g1 and all three weight gradients (1 activation + 3 weight grads). The larger
    of the two is the minimum. The sum of all three saved tanh outputs and all three weight
    gradients is never live at once (h3 and h2 are freed before dW1 exists).
    """
    act = BATCH * WIDTH * 4
    wgrad = WIDTH * WIDTH * 4
    liveness = max(3 * act + 2 * wgrad, act + 3 * wgrad, 4 * act + wgrad)
    return {
        "minimum_mib": liveness / MIB,
        "activation_mib": act / MIB,
        "weight_grad_mib": wgrad / MIB,
        "saved_plus_grads_mib": LAYERS * (act + wgrad) / MIB,
    }


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _check(lib: Any, problem: Any, loss: Any, grads: list[Any]) -> Any:
    """Loss and the last weight's gradient against a float64 NumPy forward/backward by hand."""
    from workloads import compare

    h = problem.data[0].astype(np.float64)
    hs = []
    for i in range(0, len(problem.params), 2):
        h = np.tanh(h @ problem.params[i].astype(np.float64) + problem.params[i + 1])
        hs.append(h)
    ref = {"loss": np.asarray(hs[-1].sum()), "grad[4]": hs[-2].T @ (1.0 - hs[-1] ** 2)}
    got = {"loss": lib.to_numpy(loss), "grad[4]": grads[4]}
    return compare(got, ref, 1e-3)


def checkpointed_tanh_mlp_loss(module: str) -> Any:
    """W6 with every layer under utils.checkpoint (use_reentrant=False): forward keeps no activation."""
    import importlib

    checkpoint = importlib.import_module(f"{module}.utils.checkpoint").checkpoint

    def loss(ops: Any, params: Any, data: Any) -> Any:
        (h,) = data
        for i in range(0, len(params), 2):
            h = checkpoint(lambda x, w=params[i], b=params[i + 1]: ops.tanh(x @ w + b), h, use_reentrant=False)
        return ops.sum(h)

    return loss


Step = Callable[[], tuple[Any, list[np.ndarray]]]


def forward_backward(lib: Any, problem: Any, variant: str) -> tuple[Step, Callable[[], None]]:
    """One W6 step, (loss, gradients with weights as (in, out), NumPy arrays), and what drops those gradients."""
    if variant == "--nn":
        from workloads import tanh_mlp_program

        torch, dtype = lib.torch_like()
        program = tanh_mlp_program(torch, dtype, problem)

        def step_nn() -> tuple[Any, list[np.ndarray]]:
            loss = program.step()
            grads = [p.grad.numpy() for p in program.params]
            return loss, [g.T if g.ndim == 2 else g for g in grads]  # nn.Linear's weight is (out, in)

        return step_nn, program.model.zero_grad
    from workloads import prepare, tanh_mlp_loss

    p = prepare(lib, "grad", problem)
    value_and_grad = lib.value_and_grad(checkpointed_tanh_mlp_loss(lib.torch_like()[0].__name__) if variant == "--checkpoint" else tanh_mlp_loss)

    def step() -> tuple[Any, list[np.ndarray]]:
        loss, grads = value_and_grad(p.params, p.data)
        return loss, [lib.to_numpy(g) for g in grads]

    return step, lambda: lib.zero_grad(p.params)


VARIANTS = {"": "", "--checkpoint": " +checkpoint", "--nn": " nn.Linear"}


def measure(name: str, variant: str) -> dict[str, Any]:
    from libs import load
    from workloads import SEED, tanh_mlp_problem

    lib = load(name)
    lib.set_threads(THREADS)
    problem = tanh_mlp_problem(np.random.default_rng(SEED), batch=BATCH, width=WIDTH)
    step, zero_grad = forward_backward(lib, problem, variant)

    warm = step()
    del warm
    zero_grad()
    gc.collect()

    _reset_peak()
    baseline = _status_kib("VmRSS")
    loss, grads = step()
    peak = _status_kib("VmHWM")
    after = _status_kib("VmRSS")

    check = _check(lib, problem, loss, grads)
    return {
        "library": lib.name + VARIANTS[variant],
        "variant": VARIANTS[variant].strip(),
        "version": lib.version,
        "baseline_mib": baseline / 1024,
        "peak_above_baseline_mib": (peak - baseline) / 1024,
        "after_above_baseline_mib": (after - baseline) / 1024,
        "passed": check.passed,
        "rel_err": check.rel_err,
        "problems": check.problems,
        "note": check.notes,
    }


def main() -> None:
    name, *variant = sys.argv[1:]
    try:
        result = measure(name, variant[0] if variant else "")
    except Exception as e:
        result = {"library": name + VARIANTS.get(variant[0] if variant else "", ""), "error": f"{type(e).__name__}: {e}"}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
