"""BatchNorm3d, InstanceNorm1d/2d/3d, LocalResponseNorm and CrossMapLRN2d against PyTorch: outputs, gradients,
running statistics, reprs, state_dict layout and errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import glassgrad

from .oracle import assert_close, assert_raises_like_torch, check_against_torch, make_pair

pytestmark = pytest.mark.torch_oracle
RNG = np.random.default_rng(0)
INPUTS = {1: RNG.standard_normal((3, 4, 6)), 2: RNG.standard_normal((3, 4, 5, 3)), 3: RNG.standard_normal((2, 4, 3, 4, 2))}


def _buffers(module: Any) -> dict[str, np.ndarray]:
    return {k: v.numpy().copy() for k, v in module.named_buffers()}


@pytest.mark.parametrize(("cls", "n"), [("InstanceNorm1d", 1), ("InstanceNorm2d", 2), ("InstanceNorm3d", 3)])
@pytest.mark.parametrize("kwargs", [{}, {"affine": True}, {"track_running_stats": True, "momentum": 0.3},
                                    {"affine": True, "track_running_stats": True, "momentum": None, "bias": False}],
                         ids=["plain", "affine", "tracked", "affine_tracked_cumulative"])
def test_instance_norm_module_matches_torch(cls: str, n: int, kwargs: dict[str, Any]) -> None:
    ref, mine = make_pair(lambda lib: getattr(lib.nn, cls)(4, **kwargs))
    assert repr(mine) == repr(ref)
    x = INPUTS[n]
    for _ in range(2):  # the second pass sees the running statistics the first one left
        check_against_torch(ref, mine, [x])
        check_against_torch(ref, mine, [x[0]])  # unbatched
    for (k, v), (k_ref, v_ref) in zip(_buffers(mine).items(), _buffers(ref).items(), strict=True):
        assert k == k_ref
        assert_close(v, v_ref, k)
    ref.eval()
    mine.eval()
    check_against_torch(ref, mine, [x])


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.InstanceNorm2d(3)(lib.zeros(2, 3)),  # rank
    lambda lib: lib.nn.InstanceNorm1d(3, affine=True)(lib.zeros(2, 4, 5)),  # channels differ from num_features
    lambda lib: lib.nn.BatchNorm3d(3)(lib.zeros(2, 3, 4, 4)),
    lambda lib: lib.nn.LocalResponseNorm(2)(lib.zeros(3)),
    lambda lib: lib.nn.CrossMapLRN2d(3)(lib.zeros(1, 2, 3)),
])
def test_norm_module_errors_like_torch(call: Any) -> None:
    assert_raises_like_torch(call)


def test_instance_norm_warns_when_channels_differ_without_affine() -> None:
    with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
        glassgrad.nn.InstanceNorm1d(3)(glassgrad.zeros(2, 4, 5))


def test_batch_norm_3d_matches_torch_in_training_and_eval() -> None:
    ref, mine = make_pair(lambda lib: lib.nn.BatchNorm3d(4, momentum=0.2))
    assert repr(mine) == repr(ref)
    check_against_torch(ref, mine, [INPUTS[3]])
    assert_close(mine.running_var.numpy(), ref.running_var.numpy(), "running_var")
    ref.eval()
    mine.eval()
    check_against_torch(ref, mine, [INPUTS[3]])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_local_response_norm_module_matches_torch(n: int) -> None:
    ref, mine = make_pair(lambda lib: lib.nn.LocalResponseNorm(3, alpha=0.3, beta=0.7, k=1.5))
    assert repr(mine) == repr(ref)
    check_against_torch(ref, mine, [INPUTS[n]])


@pytest.mark.parametrize("size", [2, 3, 4, 7])
def test_cross_map_lrn2d_matches_torch_quirks_included(size: int) -> None:
    ref, mine = make_pair(lambda lib: lib.nn.CrossMapLRN2d(size, alpha=0.2, beta=0.8, k=2))
    assert repr(mine) == repr(ref)
    check_against_torch(ref, mine, [RNG.standard_normal((2, 5, 3, 2))])
