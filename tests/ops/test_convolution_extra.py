"""What the generic OpInfo tests cannot say: dropout's random masks, and PyTorch behaviours that warn."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import glassgrad
import glassgrad.nn.functional as F


def _random(*shape: int) -> glassgrad.Tensor:
    return glassgrad.tensor(np.random.default_rng(0).uniform(0.5, 2.0, shape), requires_grad=True)


@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_dropout_mask_statistics_and_scaling(p: float) -> None:
    x = _random(200, 100)
    out = F.dropout(x, p)
    dropped = out.detach().numpy() == 0
    assert abs(dropped.mean() - p) < 0.02
    np.testing.assert_allclose(out.detach().numpy()[~dropped], x.detach().numpy()[~dropped] / (1 - p))


def test_dropout_gradient_is_zero_exactly_where_the_output_is() -> None:
    x = _random(50, 40)
    out = F.dropout(x, 0.4)
    (grad,) = glassgrad.autograd.grad(out.sum(), x)
    zero = out.detach().numpy() == 0
    assert np.array_equal(grad.numpy() == 0, zero)
    np.testing.assert_allclose(grad.numpy()[~zero], 1 / 0.6)


def test_dropout_seeded_masks_repeat() -> None:
    x = _random(10, 10)
    glassgrad.manual_seed(3)
    first = F.dropout(x, 0.5).detach().numpy()
    glassgrad.manual_seed(3)
    assert np.array_equal(F.dropout(x, 0.5).detach().numpy(), first)


def test_dropout_without_training_or_probability_is_identity() -> None:
    x = _random(4, 3)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    assert F.alpha_dropout(x, 0.5) is x  # alpha_dropout's training defaults to False
    assert np.array_equal(F.dropout(x, 1.0).detach().numpy(), np.zeros((4, 3)))


def test_dropout_inplace_writes_into_its_input() -> None:
    x = _random(20, 20).clone()
    version = x._version
    out = F.dropout(x, 0.5, inplace=True)
    assert out is x and x._version > version
    assert (x.detach().numpy() == 0).any()


def test_alpha_dropout_keeps_a_standard_normal_standard() -> None:
    p, alpha = 0.3, 1.7580993408473766
    x = glassgrad.tensor(np.random.default_rng(1).standard_normal((400, 250)), requires_grad=True)
    out = F.alpha_dropout(x, p, training=True)
    values = out.detach().numpy()
    assert abs(values.mean()) < 0.02 and abs(values.std() - 1) < 0.02
    (grad,) = glassgrad.autograd.grad(out.sum(), x)
    a = 1 / np.sqrt((alpha**2 * p + 1) * (1 - p))
    dropped = grad.numpy() == 0
    assert abs(dropped.mean() - p) < 0.02
    np.testing.assert_allclose(values[dropped], alpha * a * (p - 1))  # dropped units all sit at one value
    np.testing.assert_allclose(grad.numpy()[~dropped], a)


def test_conv_same_padding_with_even_kernel_matches_torch() -> None:
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((2, 2, 5, 4)), rng.standard_normal((3, 2, 2, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # PyTorch warns that it pads a copy; glassgrad need not
        expected = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding="same", dilation=(3, 1))
    actual = F.conv2d(glassgrad.tensor(x), glassgrad.tensor(w), padding="same", dilation=(3, 1))
    np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)
    assert glassgrad.autograd.gradcheck(lambda a, b: F.conv2d(a, b, padding="same"), (
        glassgrad.tensor(x[:1, :, :3, :3], requires_grad=True), glassgrad.tensor(w[:1, :, :2, :2], requires_grad=True)))


def test_batch_norm_updates_running_stats_in_place() -> None:
    x = glassgrad.tensor(np.arange(12.0).reshape(3, 2, 2))
    mean, var = glassgrad.zeros(2, dtype=glassgrad.float64), glassgrad.ones(2, dtype=glassgrad.float64)
    F.batch_norm(x, mean, var, training=True, momentum=0.5)
    values = x.numpy().transpose(1, 0, 2).reshape(2, -1)
    np.testing.assert_allclose(mean.numpy(), 0.5 * values.mean(1))
    np.testing.assert_allclose(var.numpy(), 0.5 + 0.5 * values.var(1, ddof=1))
    assert mean._version == 1


def test_embedding_padding_row_gets_no_gradient() -> None:
    weight = _random(4, 3)
    out = F.embedding(glassgrad.tensor([[0, 2], [2, 3]]), weight, padding_idx=2)
    (grad,) = glassgrad.autograd.grad(out.sum(), weight)
    np.testing.assert_array_equal(grad.numpy(), [[1, 1, 1], [0, 0, 0], [0, 0, 0], [1, 1, 1]])


def test_embedding_double_backward_matches_torch() -> None:
    """The gradient of the weight's gradient with respect to grad_output (OpInfos see no second derivative here,
    as the weight gradient does not depend on the weight): PyTorch masks padding_idx but drops the frequency scale."""
    rng = np.random.default_rng(3)
    weight, seed, probe = rng.standard_normal((4, 2)), rng.standard_normal((2, 2, 2)), rng.standard_normal((4, 2))

    def run(m: object) -> np.ndarray:
        w = m.tensor(weight, requires_grad=True)
        g = m.tensor(seed, requires_grad=True)
        out = m.nn.functional.embedding(m.tensor([[0, 2], [2, 3]]), w, padding_idx=3, scale_grad_by_freq=True)
        (gw,) = m.autograd.grad(out, w, g, create_graph=True)
        (gg,) = m.autograd.grad((gw * m.tensor(probe)).sum(), g)
        return np.concatenate([gw.detach().numpy().ravel(), gg.numpy().ravel()])

    np.testing.assert_allclose(run(glassgrad), run(torch), rtol=1e-12)
