"""nn.DataParallel and nn.SyncBatchNorm as PyTorch's CPU-only build runs them (no GPU, no process group).

Values, gradients and running statistics are compared with PyTorch, with PyTorch's weights copied over.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from ..outcome import assert_same_outcome, expression
from .oracle import check_against_torch, make_pair

pytestmark = pytest.mark.torch_oracle

RNG = np.random.default_rng(0)

CALLS = [
    expression(source)
    for source in (
        "repr(m.nn.DataParallel(m.nn.Linear(2, 3)))", "m.nn.DataParallel(m.nn.Linear(2, 3)).device_ids",
        "m.nn.DataParallel(m.nn.Linear(2, 3), device_ids=[0, 1], output_device=0, dim=1).device_ids",
        "list(m.nn.DataParallel(m.nn.Linear(2, 3)).state_dict())",
        "[n for n, _ in m.nn.DataParallel(m.nn.Linear(2, 3)).named_parameters()]",
        "m.nn.DataParallel(m.nn.Linear(2, 3)).output_device", "m.nn.DataParallel(m.nn.Linear(2, 3)).dim",
        "m.nn.parallel.DataParallel is m.nn.DataParallel",
        "isinstance(m.nn.DataParallel(m.nn.ReLU()), m.nn.Module)",
        "m.nn.DataParallel(m.nn.ReLU())(m.tensor([-1.0, 2.0]))",
        "m.nn.DataParallel(lambda x, y=1: x + y)(m.tensor([1.0]), y=2)",
        # SyncBatchNorm: built like BatchNorm
        "repr(m.nn.SyncBatchNorm(3))", "repr(m.nn.SyncBatchNorm(3, momentum=None, affine=False, bias=False))",
        "list(m.nn.SyncBatchNorm(3).state_dict())", "list(m.nn.SyncBatchNorm(3, track_running_stats=False).state_dict())",
        "m.nn.SyncBatchNorm(3, process_group=1).process_group", "isinstance(m.nn.SyncBatchNorm(3), m.nn.modules.batchnorm._BatchNorm)",
        "m.nn.SyncBatchNorm(3)(m.ones(3))", "m.nn.SyncBatchNorm(0)(m.ones(2, 0))",
        "m.nn.SyncBatchNorm(3).eval()(m.tensor([[1.0, 2.0, 3.0]]))",
        # converting a model's batch norms
        "repr(m.nn.SyncBatchNorm.convert_sync_batchnorm(m.nn.Sequential(m.nn.Linear(3, 3), m.nn.BatchNorm1d(3, momentum=0.3),"
        " m.nn.Sequential(m.nn.BatchNorm2d(3, affine=False)))))",
        "type(m.nn.SyncBatchNorm.convert_sync_batchnorm(m.nn.BatchNorm3d(2))).__name__",
        "type(m.nn.SyncBatchNorm.convert_sync_batchnorm(m.nn.Linear(2, 2))).__name__",
        "m.nn.SyncBatchNorm.convert_sync_batchnorm(m.nn.BatchNorm1d(2).eval()).training",
    )
]


@pytest.mark.parametrize("snippet", CALLS)
def test_call_matches_torch(snippet: Any) -> None:
    assert_same_outcome(snippet)


def test_data_parallel_trains_its_module_like_torch() -> None:
    ref, mine = make_pair(lambda m: m.nn.DataParallel(m.nn.Sequential(m.nn.Linear(4, 5), m.nn.Tanh(), m.nn.Linear(5, 2))))
    check_against_torch(ref, mine, [RNG.standard_normal((6, 4))])


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 2, 2), (2, 3, 1, 2, 2)])
@pytest.mark.parametrize("training", [True, False])
def test_sync_batch_norm_matches_torch_in_one_process(shape: tuple[int, ...], training: bool) -> None:
    ref, mine = make_pair(lambda m: m.nn.SyncBatchNorm(3, momentum=0.2))
    ref.train(training)
    mine.train(training)
    for _ in range(2):  # the second call sees the running statistics the first updated
        check_against_torch(ref, mine, [RNG.standard_normal(shape)])
    for key, value in ref.state_dict().items():
        np.testing.assert_allclose(mine.state_dict()[key].numpy(), value.numpy(), rtol=1e-12, err_msg=key)


def test_converted_batch_norm_shares_parameters_and_statistics_like_torch() -> None:
    def run(m: Any) -> tuple[Any, ...]:
        m.manual_seed(0)
        bn = m.nn.BatchNorm1d(3)
        model = m.nn.SyncBatchNorm.convert_sync_batchnorm(m.nn.Sequential(bn))
        model(m.tensor([[1.0, 2.0, 3.0], [3.0, 0.0, -1.0]]))
        sync = model[0]
        return (sync.weight is bn.weight, sync.running_mean is bn.running_mean, bn.running_mean.tolist(),
                int(bn.num_batches_tracked))

    assert run(glassgrad) == run(torch)


def test_sync_batch_norm_refuses_cpu_tensors_across_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    """What PyTorch 2.13's SyncBatchNorm.forward does in a process group of two on the CPU (a ValueError before any
    statistics are gathered); in eval mode nothing is synced, so it runs."""
    from glassgrad import distributed

    monkeypatch.setattr(distributed, "is_initialized", lambda: True)
    monkeypatch.setattr(distributed, "get_world_size", lambda group=None: 2)
    layer = glassgrad.nn.SyncBatchNorm(2)
    with pytest.raises(ValueError, match=r"^SyncBatchNorm expected input tensor to be on GPU or XPU or privateuseone\."):
        layer(glassgrad.ones(3, 2))
    assert layer.eval()(glassgrad.ones(3, 2)).shape == (3, 2)
