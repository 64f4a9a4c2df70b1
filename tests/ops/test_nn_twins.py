"""The torch.* twins of nn.functional that are the very same function, and torch.detach."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad


@pytest.mark.parametrize("name", ["avg_pool1d", "adaptive_avg_pool1d", "pdist", "channel_shuffle", "native_channel_shuffle"])
def test_torch_twin_is_the_functional(name: str) -> None:
    assert getattr(glassgrad, name) is getattr(glassgrad.nn.functional, name)
    assert callable(getattr(torch, name))


@pytest.mark.torch_oracle
def test_detach_shares_data_and_version_and_leaves_the_graph_like_torch() -> None:
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        d = lib.detach(y)
        d.add_(1.0)  # in place through the alias: y's saved value changed
        return d.requires_grad, d.grad_fn is None, y._version == d._version, y.detach().numpy().tolist()

    assert run(glassgrad) == run(torch)
    assert np.array_equal(glassgrad.detach(glassgrad.ones(2)).numpy(), [1.0, 1.0])
