"""Lazy modules against PyTorch: placeholders until the first forward, then the regular module (class, repr,
state_dict layout), materialized by a checkpoint too; and UninitializedParameter/UninitializedBuffer themselves."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from .oracle import assert_raises_like_torch, check_against_torch, copy_from_torch

pytestmark = pytest.mark.torch_oracle
RNG = np.random.default_rng(0)

CASES: dict[str, tuple[Any, np.ndarray]] = {
    "LazyLinear": (lambda lib: lib.nn.LazyLinear(3), RNG.standard_normal((2, 5))),
    "LazyLinear_no_bias": (lambda lib: lib.nn.LazyLinear(2, bias=False), RNG.standard_normal((4, 3, 6))),
    "LazyConv1d": (lambda lib: lib.nn.LazyConv1d(4, 3, padding=1), RNG.standard_normal((2, 3, 7))),
    "LazyConv2d": (lambda lib: lib.nn.LazyConv2d(4, (2, 3), stride=2, groups=2, bias=False), RNG.standard_normal((2, 4, 6, 7))),
    "LazyConv2d_unbatched": (lambda lib: lib.nn.LazyConv2d(2, 3), RNG.standard_normal((3, 5, 5))),
    "LazyConv3d": (lambda lib: lib.nn.LazyConv3d(2, (1, 2, 2), padding=1), RNG.standard_normal((2, 3, 2, 3, 3))),
    "LazyConvTranspose1d": (lambda lib: lib.nn.LazyConvTranspose1d(3, 2, output_padding=1, stride=2), RNG.standard_normal((2, 4, 5))),
    "LazyConvTranspose2d": (lambda lib: lib.nn.LazyConvTranspose2d(4, 3, stride=2, groups=2), RNG.standard_normal((1, 2, 3, 4))),
    "LazyConvTranspose3d": (lambda lib: lib.nn.LazyConvTranspose3d(2, 2, bias=False), RNG.standard_normal((3, 2, 2, 3))),
    "LazyBatchNorm1d": (lambda lib: lib.nn.LazyBatchNorm1d(momentum=0.3), RNG.standard_normal((4, 3))),
    "LazyBatchNorm2d": (lambda lib: lib.nn.LazyBatchNorm2d(affine=False), RNG.standard_normal((3, 2, 4, 4))),
    "LazyBatchNorm3d": (lambda lib: lib.nn.LazyBatchNorm3d(track_running_stats=False), RNG.standard_normal((2, 3, 2, 3, 2))),
    "LazyInstanceNorm1d": (lambda lib: lib.nn.LazyInstanceNorm1d(), RNG.standard_normal((2, 3, 5))),
    "LazyInstanceNorm2d": (lambda lib: lib.nn.LazyInstanceNorm2d(affine=False, bias=False), RNG.standard_normal((2, 3, 4, 4))),
    "LazyInstanceNorm3d": (lambda lib: lib.nn.LazyInstanceNorm3d(momentum=0.2), RNG.standard_normal((2, 2, 3, 2, 3))),
}


def _layout(module: Any) -> list[tuple[str, str, tuple[int, ...] | None]]:
    """Each state_dict entry's name, kind and shape (None for a placeholder)."""
    return [(k, type(v).__name__.replace("Parameter", "Tensor"), None if "Uninitialized" in type(v).__name__ else tuple(v.shape))
            for k, v in module.state_dict(keep_vars=True).items()]


@pytest.mark.parametrize("name", CASES)
def test_lazy_module_materializes_on_first_forward_like_torch(name: str) -> None:
    factory, x = CASES[name]
    ref, mine = factory(torch).double(), factory(glassgrad).double()
    assert repr(mine) == repr(ref)
    assert _layout(mine) == _layout(ref)
    assert mine.has_uninitialized_params() == ref.has_uninitialized_params()
    ref(torch.tensor(x))
    mine(glassgrad.tensor(x))
    assert type(mine).__name__ == type(ref).__name__ and "Lazy" not in type(mine).__name__
    assert repr(mine) == repr(ref)
    assert _layout(mine) == _layout(ref)
    with torch.no_grad():
        for p in ref.parameters():
            p.copy_(torch.randn_like(p))
    copy_from_torch(mine, ref)
    check_against_torch(ref, mine, [x])


def test_checkpoint_of_a_lazy_module_loads_into_a_lazy_module_and_leaves_it_lazy() -> None:
    for lib in (torch, glassgrad):
        lazy = lib.nn.LazyBatchNorm1d()
        lazy.load_state_dict(lib.nn.LazyBatchNorm1d().state_dict())
        assert lazy.has_uninitialized_params() and repr(lazy.weight) == "<UninitializedParameter>"


def test_checkpoint_of_an_initialized_module_materializes_a_lazy_one() -> None:
    source = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3)).double()
    lazy = glassgrad.nn.Sequential(glassgrad.nn.LazyLinear(3), glassgrad.nn.LazyBatchNorm1d()).double()
    copy_from_torch(lazy, source)
    assert lazy[0].weight.shape == (3, 4) and lazy[1].running_var.shape == (3,)
    source.eval()
    lazy.eval()
    check_against_torch(source, lazy, [RNG.standard_normal((5, 4))])
    assert type(lazy[0]).__name__ == "Linear"  # the first forward turned it into the regular module


def test_placeholders_themselves_behave_as_torchs() -> None:
    for lib in (torch, glassgrad):
        param, buffer = lib.nn.UninitializedParameter(), lib.nn.UninitializedBuffer(persistent=False)
        assert (repr(param), repr(buffer)) == ("<UninitializedParameter>", "<UninitializedBuffer>")
        assert param.requires_grad and not buffer.requires_grad and buffer.persistent is False
        assert isinstance(param, lib.nn.Parameter)
        assert type(copy.deepcopy(param)).__name__ == "UninitializedParameter"
        assert type(pickle.loads(pickle.dumps(param))).__name__ == "UninitializedParameter"
        param.materialize((2, 3))
        buffer.materialize(4, dtype=lib.float64)
        assert type(param) is lib.nn.Parameter and tuple(param.shape) == (2, 3) and param.requires_grad
        assert type(buffer) is lib.Tensor and tuple(buffer.shape) == (4,) and buffer.dtype == lib.float64
    assert_raises_like_torch(lambda lib: lib.nn.UninitializedParameter().shape)


def test_an_uninitialized_buffer_assigned_to_a_module_is_registered_but_not_saved_like_torch() -> None:
    def module(lib: Any) -> Any:
        m = lib.nn.Module()
        m.kept = lib.nn.UninitializedBuffer()
        m.dropped = lib.nn.UninitializedBuffer(persistent=False)
        return m

    for lib in (torch, glassgrad):
        m = module(lib)
        assert [k for k, _ in m.named_buffers()] == ["kept", "dropped"] and type(m.kept).__name__ == "UninitializedBuffer"
    assert_raises_like_torch(lambda lib: module(lib).state_dict())  # only a lazy module can save a placeholder


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.LazyConv2d(4, 3)(lib.zeros(2, 3)),  # rank
    lambda lib: lib.nn.LazyConv1d(4, 3, groups=2)(lib.zeros(1, 3, 5)),  # channels not divisible by groups
    lambda lib: lib.nn.LazyLinear(2).weight.shape,
])
def test_lazy_errors_like_torch(call: Any) -> None:
    assert_raises_like_torch(call)
