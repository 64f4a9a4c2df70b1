"""CTCLoss against PyTorch on a realistic batch: long inputs (log space must hold), float32 and float64, every
reduction, and the gradient reaching the logits through log_softmax."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle
RNG = np.random.default_rng(0)
STEPS, BATCH, CLASSES = 60, 4, 12
LOGITS = RNG.standard_normal((STEPS, BATCH, CLASSES)) * 3
TARGET_LENGTHS = np.array([20, 7, 0, 25])
TARGETS = RNG.integers(1, CLASSES, (BATCH, 25))
INPUT_LENGTHS = np.array([60, 31, 12, 55])


def _run(lib: Any, dtype: str, **kwargs: Any) -> tuple[Any, ...]:
    module = lib.nn.CTCLoss(**kwargs)
    logits = lib.tensor(LOGITS, dtype=getattr(lib, dtype), requires_grad=True)
    loss = module(logits.log_softmax(2), lib.tensor(TARGETS), lib.tensor(INPUT_LENGTHS), lib.tensor(TARGET_LENGTHS))
    loss.sum().backward()
    return repr(module), loss.detach().numpy(), logits.grad.numpy()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kwargs", [{}, {"reduction": "sum"}, {"reduction": "none", "zero_infinity": True}, {"blank": 0}])
def test_ctc_loss_module_matches_torch(dtype: str, kwargs: dict[str, Any]) -> None:
    ref, mine = _run(torch, dtype, **kwargs), _run(glassgrad, dtype, **kwargs)
    assert mine[0] == ref[0]
    rtol = 1e-9 if dtype == "float64" else 2e-4
    np.testing.assert_allclose(mine[1], ref[1], rtol=rtol)
    np.testing.assert_allclose(mine[2], ref[2], rtol=rtol, atol=rtol * 1e-2)
