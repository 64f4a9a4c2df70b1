"""Convolution, pooling, normalization, embedding, attention and transformer layers against PyTorch 2.13."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad
from glassgrad import nn

from .oracle import check_against_torch, make_pair

rng = np.random.default_rng(0)


def randn(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape)


LAYERS = {
    "conv1d": (lambda lib: lib.nn.Conv1d(3, 4, 3, stride=2, padding=1), [randn(2, 3, 9)], {}),
    "conv1d_groups_reflect": (
        lambda lib: lib.nn.Conv1d(4, 6, 3, groups=2, dilation=2, padding=2, padding_mode="reflect"), [randn(2, 4, 10)], {}
    ),
    "conv1d_unbatched": (lambda lib: lib.nn.Conv1d(3, 2, 2), [randn(3, 5)], {}),
    "conv2d": (lambda lib: lib.nn.Conv2d(3, 5, 3, padding=1), [randn(2, 3, 6, 6)], {}),
    "conv2d_same_circular": (
        lambda lib: lib.nn.Conv2d(2, 4, (3, 2), padding="same", padding_mode="circular", dilation=(1, 2)), [randn(1, 2, 5, 6)], {}
    ),
    "conv2d_groups_replicate_nobias": (
        lambda lib: lib.nn.Conv2d(4, 4, 3, groups=2, bias=False, padding=1, padding_mode="replicate", stride=2),
        [randn(2, 4, 5, 5)], {},
    ),
    "conv_transpose2d": (
        lambda lib: lib.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1), [randn(2, 3, 4, 4)], {}
    ),
    "conv_transpose2d_output_size": (
        lambda lib: lib.nn.ConvTranspose2d(2, 4, 3, stride=2, groups=2), [randn(1, 2, 4, 5)], {"output_size": [10, 12]}
    ),
    "max_pool1d": (lambda lib: lib.nn.MaxPool1d(3, 2, padding=1), [randn(2, 3, 8)], {}),
    "max_pool2d": (lambda lib: lib.nn.MaxPool2d(2), [randn(2, 3, 6, 6)], {}),
    "max_pool2d_ceil": (lambda lib: lib.nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), [randn(2, 3, 7, 7)], {}),
    "avg_pool2d": (lambda lib: lib.nn.AvgPool2d(2), [randn(2, 3, 6, 6)], {}),
    "avg_pool2d_padding": (
        lambda lib: lib.nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), [randn(2, 3, 7, 7)], {}
    ),
    "adaptive_avg_pool2d": (lambda lib: lib.nn.AdaptiveAvgPool2d((2, 3)), [randn(2, 3, 7, 8)], {}),
    "adaptive_avg_pool2d_global": (lambda lib: lib.nn.AdaptiveAvgPool2d(1), [randn(2, 3, 5, 5)], {}),
    "layer_norm": (lambda lib: lib.nn.LayerNorm(6), [randn(4, 6)], {}),
    "layer_norm_2d_no_affine": (lambda lib: lib.nn.LayerNorm((3, 4), elementwise_affine=False), [randn(2, 3, 4)], {}),
    "layer_norm_no_bias": (lambda lib: lib.nn.LayerNorm(6, bias=False), [randn(2, 3, 6)], {}),
    "group_norm": (lambda lib: lib.nn.GroupNorm(2, 6), [randn(2, 6, 3, 3)], {}),
    "batch_norm1d": (lambda lib: lib.nn.BatchNorm1d(4), [randn(5, 4)], {}),
    "batch_norm1d_3d": (lambda lib: lib.nn.BatchNorm1d(4, affine=False), [randn(5, 4, 3)], {}),
    "batch_norm2d": (lambda lib: lib.nn.BatchNorm2d(3, momentum=None), [randn(4, 3, 2, 2)], {}),
    "embedding": (
        lambda lib: lib.nn.Embedding(10, 4, padding_idx=2), [np.array([[1, 2, 3, 2], [9, 0, 2, 1], [5, 5, 5, 7]])], {}
    ),
    "mha": (lambda lib: lib.nn.MultiheadAttention(8, 2), [randn(5, 3, 8), randn(6, 3, 8), randn(6, 3, 8)], {}),
    "mha_masks_batch_first": (
        lambda lib: lib.nn.MultiheadAttention(8, 4, batch_first=True),
        [randn(3, 5, 8), randn(3, 6, 8), randn(3, 6, 8)],
        {"key_padding_mask": np.where([[False] * 6, [False] * 4 + [True] * 2, [True] + [False] * 5], -np.inf, 0.0),
         "attn_mask": randn(5, 6), "average_attn_weights": False},
    ),
    "mha_bool_attn_mask_no_weights": (
        lambda lib: lib.nn.MultiheadAttention(6, 3, bias=False),
        [randn(4, 2, 6), randn(4, 2, 6), randn(4, 2, 6)],
        {"attn_mask": np.triu(np.ones((4, 4), dtype=bool), 1), "need_weights": False},
    ),
    "mha_kdim_vdim_bias_kv_zero_attn": (
        lambda lib: lib.nn.MultiheadAttention(8, 2, kdim=5, vdim=3, add_bias_kv=True, add_zero_attn=True),
        [randn(4, 2, 8), randn(6, 2, 5), randn(6, 2, 3)],
        {"key_padding_mask": np.array([[False] * 5 + [True], [False] * 6])},
    ),
    "mha_unbatched": (lambda lib: lib.nn.MultiheadAttention(4, 2), [randn(3, 4), randn(5, 4), randn(5, 4)], {}),
    "transformer_post_norm": (
        lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), [randn(5, 3, 8)],
        {"src_key_padding_mask": np.array([[False] * 5, [False] * 3 + [True] * 2, [False] * 5])},
    ),
    "transformer_pre_norm_gelu_batch_first": (
        lambda lib: lib.nn.TransformerEncoderLayer(8, 4, 12, dropout=0.0, activation="gelu", norm_first=True, batch_first=True),
        [randn(3, 5, 8)], {"src_mask": randn(5, 5)},
    ),
}


@pytest.mark.torch_oracle
@pytest.mark.parametrize("case", LAYERS.keys())
def test_layer_matches_torch(case: str) -> None:
    factory, inputs, kwargs = LAYERS[case]
    ref, mine = make_pair(factory)
    check_against_torch(ref, mine, inputs, kwargs)


@pytest.mark.torch_oracle
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm_running_stats_and_eval_match_torch(momentum: float | None) -> None:
    ref, mine = make_pair(lambda lib: lib.nn.BatchNorm2d(3, momentum=momentum))
    for _ in range(2):
        x = randn(4, 3, 2, 5) * 3 + 1
        ref(torch.tensor(x))
        mine(glassgrad.tensor(x))
    for (name, buf), (_, buf_ref) in zip(mine.named_buffers(), ref.named_buffers(), strict=True):
        np.testing.assert_allclose(buf.numpy(), buf_ref.numpy(), rtol=1e-12, err_msg=name)
    assert mine.num_batches_tracked.dtype == glassgrad.int64 and int(mine.num_batches_tracked) == 2
    ref.eval()
    mine.eval()
    check_against_torch(ref, mine, [randn(2, 3, 2, 2)])
    np.testing.assert_allclose(mine.running_mean.numpy(), ref.running_mean.numpy(), rtol=1e-12)


def test_batch_norm_without_running_stats_and_wrong_rank() -> None:
    bn = nn.BatchNorm1d(3, track_running_stats=False).eval()
    assert list(bn.state_dict()) == ["weight", "bias"]
    out = bn(glassgrad.randn(8, 3))
    np.testing.assert_allclose(out.detach().numpy().mean(0), 0, atol=1e-6)
    with pytest.raises(ValueError, match=r"expected 4D input \(got 2D input\)"):
        nn.BatchNorm2d(3)(glassgrad.zeros(2, 3))


def test_dropout_statistics_in_training_and_identity_in_eval() -> None:
    glassgrad.manual_seed(0)
    x = glassgrad.ones(200_000)
    drop = nn.Dropout(p=0.3)
    y = drop(x).numpy()
    assert abs((y == 0).mean() - 0.3) < 0.01
    np.testing.assert_allclose(y[y != 0], 1 / 0.7)
    drop.eval()
    np.testing.assert_array_equal(drop(x).numpy(), x.numpy())
    alpha = nn.AlphaDropout(p=0.2)
    z = alpha(glassgrad.randn(200_000)).numpy()
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02
    x2 = glassgrad.randn(10)
    np.testing.assert_array_equal(alpha.eval()(x2).numpy(), x2.numpy())
    with pytest.raises(ValueError, match=r"between 0 and 1, but got 1\.5"):
        nn.Dropout(1.5)


def test_embedding_padding_row_and_from_pretrained() -> None:
    emb = nn.Embedding(5, 3, padding_idx=-1)
    assert emb.padding_idx == 4 and not emb.weight[4].detach().numpy().any()
    weights = glassgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    frozen = nn.Embedding.from_pretrained(weights)
    assert not frozen.weight.requires_grad
    np.testing.assert_array_equal(frozen(glassgrad.tensor([1, 0])).numpy(), [[3.0, 4.0], [1.0, 2.0]])


def test_default_initialisation_ranges() -> None:
    conv = nn.Conv2d(4, 8, 3)
    bound = 1 / np.sqrt(4 * 9)
    assert np.abs(conv.weight.detach().numpy()).max() <= bound and np.abs(conv.bias.detach().numpy()).max() <= bound
    mha = nn.MultiheadAttention(8, 2)
    assert not mha.in_proj_bias.detach().numpy().any() and not mha.out_proj.bias.detach().numpy().any()
    norm = nn.LayerNorm(3)
    np.testing.assert_array_equal(norm.weight.detach().numpy(), 1)


REPRS = [
    lambda lib: lib.nn.Conv2d(3, 4, 3, padding=1),
    lambda lib: lib.nn.Conv1d(3, 4, 3, stride=2, bias=False, padding_mode="reflect", dilation=2),
    lambda lib: lib.nn.Conv2d(2, 4, 3, padding="same", groups=2),
    lambda lib: lib.nn.ConvTranspose2d(3, 4, 3, output_padding=1, stride=2),
    lambda lib: lib.nn.MaxPool2d(2),
    lambda lib: lib.nn.MaxPool1d(3, 1, ceil_mode=True),
    lambda lib: lib.nn.AvgPool2d(2, padding=1),
    lambda lib: lib.nn.AdaptiveAvgPool2d((1, 1)),
    lambda lib: lib.nn.Embedding(10, 3, padding_idx=0, max_norm=1.0),
    lambda lib: lib.nn.Dropout(),
    lambda lib: lib.nn.AlphaDropout(0.2),
    lambda lib: lib.nn.LayerNorm(4, bias=False),
    lambda lib: lib.nn.BatchNorm1d(4, momentum=None, affine=False),
    lambda lib: lib.nn.BatchNorm2d(4),
    lambda lib: lib.nn.GroupNorm(2, 4),
    lambda lib: lib.nn.MultiheadAttention(8, 2),
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, activation="gelu"),
    lambda lib: lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.ReLU(), lib.nn.MaxPool2d(2), lib.nn.Flatten()),
]


@pytest.mark.torch_oracle
@pytest.mark.parametrize("factory", REPRS)
def test_repr_matches_torch(factory) -> None:
    assert repr(factory(glassgrad)) == repr(factory(torch))


@pytest.mark.parametrize(
    "path",
    [
        "conv.Conv2d", "conv.ConvTranspose2d", "pooling.MaxPool2d", "normalization.LayerNorm", "batchnorm.BatchNorm2d",
        "rnn.LSTM", "activation.MultiheadAttention", "transformer.TransformerEncoderLayer", "dropout.Dropout",
        "sparse.Embedding", "loss.CrossEntropyLoss", "activation.ReLU",
    ],
)
def test_class_paths_match_torch(path: str) -> None:
    module, name = path.split(".")
    cls = getattr(nn, name)
    assert cls is getattr(getattr(nn.modules, module), name)
    assert cls.__module__ == f"glassgrad.nn.modules.{module}"
    assert type(cls).__name__ == "type" and issubclass(cls, nn.Module)
