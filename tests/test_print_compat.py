"""Tensor reprs under torch.set_printoptions against PyTorch's: precision, threshold, edgeitems, linewidth, the
profiles and sci_mode change what glassgrad prints exactly as they change PyTorch's."""

from __future__ import annotations

import itertools

import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle


@pytest.fixture(autouse=True)
def _default_printoptions():
    yield
    for m in (torch, glassgrad):
        m.set_printoptions(profile="default")


TENSORS = (
    "m.tensor([1.5, 2.0])", "m.arange(2000.0)", "m.arange(10)", "m.arange(30.0).reshape(5, 6) / 7",
    "m.arange(2000).reshape(40, 50)", "m.tensor([1e-5, 1.0])", "m.tensor([[1 + 2j, -3.5j], [0.25, 1e5 + 1j]])",
    "m.tensor([True, False])", "m.zeros(0, 3)", "m.arange(100.0) / 3", "m.tensor([float('nan'), float('inf'), 1.0])",
    "m.tensor(3.25, requires_grad=True)", "m.ones(2, 3, 4, dtype=m.float64)", "m.arange(40).reshape(2, 20) * 1000",
    "m.tensor([123456789.0, 1.0])", "(m.arange(12.0, requires_grad=True) * 2).reshape(3, 4)",
    "m.arange(3000.0).reshape(10, 15, 20) / 9",
)
OPTIONS = (
    {}, {"precision": 2}, {"threshold": 5}, {"edgeitems": 1, "threshold": 10}, {"linewidth": 30}, {"profile": "short"},
    {"profile": "full"}, {"sci_mode": True}, {"sci_mode": False}, {"precision": 6, "linewidth": 120},
    {"edgeitems": 0, "threshold": 3}, {"profile": "short", "precision": 5},
)


@pytest.mark.parametrize(("options", "source"), list(itertools.product(OPTIONS, TENSORS)), ids=str)
def test_repr_matches_torch(options, source) -> None:
    def shown(m) -> str:  # type: ignore[no-untyped-def]
        m.set_printoptions(**options)
        return repr(eval(source, {"m": m})).replace("glassgrad.", "torch.")

    assert shown(glassgrad) == shown(torch)


def test_sci_mode_is_automatic_again_unless_given() -> None:
    glassgrad.set_printoptions(sci_mode=True)
    glassgrad.set_printoptions(precision=3)
    assert repr(glassgrad.tensor([1.5, 2.0])) == "tensor([1.500, 2.000])"
