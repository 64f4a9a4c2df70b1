"""torch.nn.grad's convolution gradients and nn.utils.skip_init, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

CASES = [  # (dims, input shape, weight shape, settings)
    (1, (2, 4, 9), (6, 2, 3), {"stride": 2, "padding": 1, "groups": 2}),
    (2, (2, 3, 7, 6), (4, 3, 3, 2), {"stride": (2, 1), "padding": 1, "dilation": (1, 2)}),
    (3, (1, 2, 5, 4, 4), (3, 2, 2, 2, 3), {"padding": (0, 1, 1)}),
]


@pytest.mark.parametrize(("dims", "input_shape", "weight_shape", "settings"), CASES)
def test_convolution_gradients_match_pytorchs(dims: int, input_shape: tuple, weight_shape: tuple, settings: dict) -> None:
    rng = np.random.default_rng(dims)
    x, w = rng.standard_normal(input_shape), rng.standard_normal(weight_shape)
    out_shape = getattr(torch.nn.functional, f"conv{dims}d")(torch.tensor(x), torch.tensor(w), **settings).shape
    g = rng.standard_normal(tuple(out_shape))
    results = []
    for m in (torch, glassgrad):
        grad_input = getattr(m.nn.grad, f"conv{dims}d_input")(input_shape, m.tensor(w), m.tensor(g), **settings)
        grad_weight = getattr(m.nn.grad, f"conv{dims}d_weight")(m.tensor(x), weight_shape, m.tensor(g), **settings)
        assert not grad_input.requires_grad and not grad_weight.requires_grad
        results.append((grad_input.numpy(), grad_weight.numpy()))
    for ours, theirs in zip(results[1], results[0], strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_skip_init_makes_the_module_or_refuses_as_pytorchs() -> None:
    errors = []
    for m in (torch, glassgrad):
        linear = m.nn.utils.skip_init(m.nn.Linear, 3, 4, bias=False)
        assert type(linear) is m.nn.Linear and tuple(linear.weight.shape) == (4, 3) and linear.bias is None

        class NoDevice(m.nn.Module):
            pass

        for bad in (NoDevice, int):
            with pytest.raises(RuntimeError) as info:
                m.nn.utils.skip_init(bad)
            errors.append(str(info.value).split(";")[0])
    assert errors[:2] == errors[2:]
