"""SGD's and Adam's one-pass loops (optim/_fused.pyx) agree bit for bit with their NumPy routes, and against
PyTorch in float32, where the loops do the arithmetic on 32-bit floats as PyTorch's kernels do.

The trajectories against PyTorch in float64 are tests/optim/test_optimizers.py's, which run on whichever
route the build takes; here both routes run in one process, on the same data, for every case the loops take.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad
from glassgrad.optim import optimizer as optimizer_module

needs_the_loops = pytest.mark.skipif(
    optimizer_module.fused is None, reason="the one-pass loops are not built, or GLASSGRAD_PURE=1 (NumPy routes only)"
)

SHAPES = [(7, 5), (33,), (2, 3, 4)]  # lengths that are and are not multiples of a vector's width

CASES: dict[str, Callable[[Any, list[Any]], Any]] = {
    "sgd": lambda o, p: o.SGD(p, lr=0.05),
    "sgd_momentum": lambda o, p: o.SGD(p, lr=0.05, momentum=0.9),
    "sgd_momentum_dampening_wd": lambda o, p: o.SGD(p, lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01),
    "sgd_nesterov_maximize": lambda o, p: o.SGD(p, lr=0.01, momentum=0.8, nesterov=True, maximize=True),
    "sgd_wd": lambda o, p: o.SGD(p, lr=0.05, weight_decay=0.1),
    "sgd_nesterov_wd": lambda o, p: o.SGD(p, lr=0.01, momentum=0.8, nesterov=True, weight_decay=0.05),
    "adam": lambda o, p: o.Adam(p, lr=0.1),
    "adam_small_beta1": lambda o, p: o.Adam(p, lr=0.1, betas=(0.3, 0.9)),  # lerp's other side: weight 0.7
    "adam_wd": lambda o, p: o.Adam(p, lr=0.1, weight_decay=0.1),
    "adam_amsgrad_wd_maximize": lambda o, p: o.Adam(p, lr=0.05, amsgrad=True, weight_decay=0.1, maximize=True),
    "adamw": lambda o, p: o.AdamW(p, lr=0.1),
    "adamw_small_beta1": lambda o, p: o.AdamW(p, lr=0.1, betas=(0.3, 0.9), weight_decay=0.2),
    "adamw_amsgrad": lambda o, p: o.AdamW(p, lr=0.1, weight_decay=0.1, amsgrad=True),
}


def run(
    lib: Any, dtype: np.dtype, make: Callable[[Any, list[Any]], Any], steps: int = 4, specials: bool = False
) -> list[np.ndarray]:
    """`steps` steps on gradients drawn up front (with NaN, infinities and signed zeros in the second step's when
    `specials`); the parameters and every state buffer after them."""
    rng = np.random.default_rng(3)
    params = [lib.nn.Parameter(lib.tensor(rng.standard_normal(s).astype(dtype))) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(steps)]
    if specials:
        grads[1][0].reshape(-1)[:5] = [np.nan, np.inf, -np.inf, 0.0, -0.0]
    opt = make(lib.optim, params)
    for step_grads in grads:
        for p, g in zip(params, step_grads, strict=True):
            p.grad = lib.tensor(g)
        opt.step()
    state = [value.detach().numpy().copy() for p in params for key, value in sorted(opt.state[p].items()) if key != "step"]
    return [p.detach().numpy().copy() for p in params] + state


@needs_the_loops
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES)
def test_one_pass_loop_matches_the_numpy_route_bit_for_bit(case: str, dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    fused = run(glassgrad, dtype, CASES[case])
    monkeypatch.setattr(optimizer_module, "fused", None)
    numpy_route = run(glassgrad, dtype, CASES[case])
    for got, expected in zip(fused, numpy_route, strict=True):
        np.testing.assert_array_equal(got, expected)


@needs_the_loops
@pytest.mark.parametrize("case", ["sgd_momentum_dampening_wd", "adam_amsgrad_wd_maximize", "adamw_amsgrad"])
def test_one_pass_loop_carries_nan_and_infinities_as_the_numpy_route(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with np.errstate(all="ignore"):  # as in a step: PyTorch's optimizers compute NaN without a warning
        fused = run(glassgrad, np.float32, CASES[case], specials=True)
        monkeypatch.setattr(optimizer_module, "fused", None)
        numpy_route = run(glassgrad, np.float32, CASES[case], specials=True)
    for got, expected in zip(fused, numpy_route, strict=True):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.torch_oracle
@pytest.mark.parametrize("case", CASES)
def test_one_pass_loop_follows_torch_in_float32(case: str) -> None:
    for got, expected in zip(run(glassgrad, np.float32, CASES[case]), run(torch, np.float32, CASES[case]), strict=True):
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=2e-7)


@needs_the_loops
def test_the_loops_take_only_contiguous_arrays_of_one_float_dtype() -> None:
    a = np.ones((4, 6), np.float32)
    flat = optimizer_module.one_pass(a, a.copy(), None)
    assert flat is not None and flat[0].shape == (24,) and np.shares_memory(flat[0], a) and flat[2] is None
    assert optimizer_module.one_pass(a.T, a) is None  # a transposed view: the NumPy route
    assert optimizer_module.one_pass(a, a.astype(np.float64)) is None
    assert optimizer_module.one_pass(a.astype(np.float16), a.astype(np.float16)) is None


def test_a_transposed_parameter_takes_the_numpy_route_and_still_steps_like_torch() -> None:
    start = np.arange(12.0).reshape(3, 4) / 7
    results = []
    for lib in (glassgrad, torch):
        p = lib.nn.Parameter(lib.tensor(start).t())  # non-contiguous storage
        p.grad = lib.ones_like(p)
        opt = lib.optim.Adam([p], lr=0.1)
        opt.step()
        opt.step()
        results.append(p.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)
