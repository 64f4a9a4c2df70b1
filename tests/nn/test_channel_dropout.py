"""Channel-wise dropout (Dropout1d/2d/3d, FeatureAlphaDropout and their functionals) against PyTorch.

The draws come from each library's own generator, so what is compared is what does not depend on the
stream: which elements share a draw, the scale of the kept ones, the identity in eval, the gradient
being the mask, and the warnings and errors for inputs of the wrong rank.
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import pytest
import torch

import glassgrad
from glassgrad import nn

from ..outcome import assert_same_outcome

pytestmark = pytest.mark.torch_oracle


@pytest.mark.parametrize(
    ("name", "shape", "lead"),
    [
        ("dropout1d", (6, 5, 7), 2), ("dropout1d", (5, 7), 1), ("dropout2d", (6, 5, 3, 4), 2),
        ("dropout2d", (6, 5, 7), 2), ("dropout3d", (4, 5, 2, 3, 2), 2), ("dropout3d", (5, 2, 3, 2), 1),
    ],
)
@pytest.mark.parametrize("lib", [torch, glassgrad], ids=["torch", "glassgrad"])
def test_one_draw_per_channel_scaled_by_the_keep_rate(lib, name, shape, lead) -> None:
    lib.manual_seed(0)
    x = lib.ones(*shape, requires_grad=True)
    with pytest.warns(UserWarning) if (name, len(shape)) == ("dropout2d", 3) else nullcontext():
        y = getattr(lib.nn.functional, name)(x, 0.4)
    values = y.detach().numpy().reshape(*shape[:lead], -1)
    assert (values == values[..., :1]).all(), "every element of a channel shares its draw"
    assert set(np.unique(values)) <= {0.0, np.float32(1 / 0.6)}
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())


def test_about_the_keep_rate_of_channels() -> None:
    glassgrad.manual_seed(0)
    y = nn.Dropout2d(0.3)(glassgrad.ones(400, 100, 2, 2)).numpy()
    assert abs((y[:, :, 0, 0] == 0).mean() - 0.3) < 0.01


def test_feature_alpha_dropout_keeps_mean_and_variance_channel_wise() -> None:
    glassgrad.manual_seed(0)
    x = glassgrad.randn(200, 200, 8)
    y = nn.FeatureAlphaDropout(0.2)(x).numpy()
    assert abs(y.mean()) < 0.03 and abs(y.std() - 1) < 0.03
    dropped = y[:, :, 0] == y[:, :, 1]  # a dropped channel is constant (SELU's saturation, moved and scaled)
    assert abs(dropped.mean() - 0.2) < 0.01


@pytest.mark.parametrize(
    "source",
    [
        "r = m.nn.Dropout2d(0.3).eval()(m.ones(2, 3, 4, 4))",
        "r = m.nn.Dropout1d(0.0)(m.ones(2, 3))",
        "r = m.nn.functional.dropout2d(m.ones(3), 0.5)",
        "r = m.nn.functional.dropout2d(m.ones(3), 0.5, training=False)",
        "r = m.nn.functional.dropout2d(m.ones(3), 0.0)",
        "r = m.nn.functional.dropout3d(m.ones(2, 3), 0.5, training=False)",
        "r = m.nn.functional.dropout1d(m.ones(2, 3, 4, 5), 0.5)",
        "r = m.nn.functional.dropout1d(m.ones(2, 3), 1.5)",
        "r = m.nn.functional.dropout2d(m.ones(2, 3, 4, 5), 1.0)",
        "x = m.ones(3, 4)\nr = (m.nn.functional.dropout1d(x, 1.0, inplace=True) is x, x)",
        "r = m.nn.functional.feature_alpha_dropout(m.ones(3), 0.5, True)",
        "r = m.nn.functional.feature_alpha_dropout(m.ones(2, 3), 0.5)",
        "r = m.nn.Dropout3d(-0.5)",
        "r = [repr(m.nn.Dropout1d()), repr(m.nn.Dropout2d(0.2, inplace=True)), repr(m.nn.Dropout3d(0.1)),\n"
        "     repr(m.nn.FeatureAlphaDropout(0.3))]",
        "r = m.nn.Dropout2d.__module__.replace(m.__name__, 'torch')",
    ],
)
def test_outcome_matches_torch(source: str) -> None:
    def run(m):
        scope = {"m": m}
        exec(source, scope)
        return scope["r"]

    assert_same_outcome(run)
