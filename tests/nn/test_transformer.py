"""Transformer layers, stacks and nn.Transformer against PyTorch 2.13: outputs, gradients, masks, init, warnings, errors."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from .oracle import assert_raises_like_torch, check_against_torch, make_pair

rng = np.random.default_rng(0)


def randn(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape)


def causal_bool(n: int) -> np.ndarray:
    return np.triu(np.ones((n, n), dtype=bool), 1)


def causal_float(n: int) -> np.ndarray:
    return np.triu(np.full((n, n), -np.inf), 1)


def padding(*lengths: int, total: int) -> np.ndarray:
    return np.arange(total)[None, :] >= np.array(lengths)[:, None]


def quietly(factory: Any) -> Any:
    """The factory without PyTorch's nested-tensor warning (its own test below checks that glassgrad gives it too)."""

    def build(lib: Any) -> Any:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "enable_nested_tensor is True")
            return factory(lib)

    return build


def enc_layer(lib: Any, **options: Any) -> Any:
    return lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **options)


def dec_layer(lib: Any, **options: Any) -> Any:
    return lib.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **options)


CASES: dict[str, tuple[Any, list[Any], dict[str, Any]]] = {
    "encoder_layer_bool_masks": (
        enc_layer, [randn(5, 3, 8)], {"src_mask": causal_bool(5), "src_key_padding_mask": padding(5, 3, 4, total=5)},
    ),
    "encoder_layer_pre_norm_gelu_batch_first": (
        lambda lib: enc_layer(lib, activation="gelu", norm_first=True, batch_first=True), [randn(3, 5, 8)],
        {"src_mask": randn(5, 5), "src_key_padding_mask": np.where(padding(5, 2, 4, total=5), -np.inf, 0.0)},
    ),
    "encoder_layer_callable_no_bias_eps": (
        lambda lib: enc_layer(lib, activation=lib.nn.functional.silu, bias=False, layer_norm_eps=1e-2), [randn(4, 2, 8)], {},
    ),
    "encoder_layer_module_activation_is_causal": (
        lambda lib: enc_layer(lib, activation=lib.nn.GELU(approximate="tanh")), [randn(4, 2, 8)],
        {"src_mask": causal_float(4), "is_causal": True},
    ),
    "encoder_layer_unbatched": (enc_layer, [randn(5, 8)], {"src_key_padding_mask": padding(3, total=5)[0]}),
    "decoder_layer_masks": (
        dec_layer, [randn(4, 3, 8), randn(6, 3, 8)],
        {"tgt_mask": causal_bool(4), "tgt_key_padding_mask": padding(4, 2, 3, total=4),
         "memory_key_padding_mask": padding(6, 5, 1, total=6), "memory_mask": np.zeros((4, 6), dtype=bool)},
    ),
    "decoder_layer_pre_norm_gelu_batch_first_no_bias": (
        lambda lib: dec_layer(lib, activation="gelu", norm_first=True, batch_first=True, bias=False),
        [randn(3, 4, 8), randn(3, 6, 8)], {"memory_mask": randn(4, 6), "tgt_mask": causal_float(4), "tgt_is_causal": True},
    ),
    "decoder_layer_unbatched": (dec_layer, [randn(4, 8), randn(5, 8)], {"tgt_mask": causal_bool(4)}),
    "encoder_stack_detects_causal_mask": (
        lambda lib: lib.nn.TransformerEncoder(enc_layer(lib), 2, norm=lib.nn.LayerNorm(8), enable_nested_tensor=False),
        [randn(5, 2, 8)], {"mask": causal_float(5)},
    ),
    "encoder_stack_batch_first_padding": (
        lambda lib: lib.nn.TransformerEncoder(enc_layer(lib, batch_first=True), 3), [randn(2, 5, 8)],
        {"src_key_padding_mask": padding(5, 3, total=5), "mask": causal_bool(5)},
    ),
    "decoder_stack": (
        lambda lib: lib.nn.TransformerDecoder(dec_layer(lib, norm_first=True), 2, norm=lib.nn.LayerNorm(8)),
        [randn(4, 2, 8), randn(5, 2, 8)], {"tgt_mask": causal_float(4), "memory_key_padding_mask": padding(5, 2, total=5)},
    ),
    "transformer": (
        quietly(lambda lib: lib.nn.Transformer(8, 2, 2, 1, 16, dropout=0.0)), [randn(5, 2, 8), randn(4, 2, 8)],
        {"tgt_mask": causal_bool(4), "src_key_padding_mask": padding(5, 3, total=5),
         "memory_key_padding_mask": padding(5, 3, total=5), "tgt_key_padding_mask": padding(4, 4, total=4)},
    ),
    "transformer_batch_first_pre_norm_gelu_no_bias": (
        quietly(lambda lib: lib.nn.Transformer(
            8, 4, 1, 2, 12, dropout=0.0, activation="gelu", batch_first=True, norm_first=True, bias=False,
            layer_norm_eps=1e-3,
        )),
        [randn(2, 5, 8), randn(2, 3, 8)], {"src_mask": randn(5, 5), "memory_mask": randn(3, 5), "tgt_is_causal": False},
    ),
    "transformer_unbatched": (
        quietly(lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)), [randn(5, 8), randn(3, 8)],
        {"tgt_mask": causal_bool(3)},
    ),
    "transformer_custom_encoder_decoder": (
        lambda lib: lib.nn.Transformer(
            8, 2, custom_encoder=lib.nn.TransformerEncoder(enc_layer(lib), 1, enable_nested_tensor=False),
            custom_decoder=lib.nn.TransformerDecoder(dec_layer(lib), 1),
        ),
        [randn(5, 2, 8), randn(4, 2, 8)], {},
    ),
}


@pytest.mark.torch_oracle
@pytest.mark.parametrize("case", CASES.keys())
def test_transformer_module_matches_torch(case: str) -> None:
    factory, inputs, kwargs = CASES[case]
    ref, mine = make_pair(factory)
    check_against_torch(ref, mine, inputs, kwargs)


@pytest.mark.torch_oracle
def test_eval_mode_matches_torch_and_training_applies_dropout() -> None:
    factory = quietly(lambda lib: lib.nn.Transformer(8, 2, 2, 2, 16, dropout=0.3))
    ref, mine = make_pair(factory)
    src, tgt = randn(5, 2, 8), randn(4, 2, 8)
    glassgrad.manual_seed(0)
    trained = [mine(glassgrad.tensor(src), glassgrad.tensor(tgt)).detach().numpy() for _ in range(2)]
    ref.eval()
    mine.eval()
    check_against_torch(ref, mine, [src, tgt], {"tgt_mask": causal_float(4)})
    evaluated = mine(glassgrad.tensor(src), glassgrad.tensor(tgt)).detach().numpy()
    assert not np.allclose(trained[0], trained[1]) and not np.allclose(trained[0], evaluated)


@pytest.mark.torch_oracle
@pytest.mark.parametrize(
    "factory",
    [
        quietly(lambda lib: lib.nn.Transformer(64, 4, 1, 1, 128)),
        lambda lib: lib.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True),
        lambda lib: lib.nn.TransformerDecoderLayer(64, 4, 128, bias=False),
    ],
    ids=["transformer_xavier", "encoder_layer", "decoder_layer"],
)
def test_initialisation_distribution_matches_torch(factory) -> None:
    torch.manual_seed(0)
    glassgrad.manual_seed(0)
    ref, mine = factory(torch), factory(glassgrad)
    ref_params = dict(ref.named_parameters())
    assert list(ref_params) == [name for name, _ in mine.named_parameters()]
    for name, p in mine.named_parameters():
        ours, theirs = p.detach().numpy(), ref_params[name].detach().numpy()
        if np.ptp(theirs) == 0:  # constant inits (zeros, ones) must be exact
            np.testing.assert_array_equal(ours, theirs, err_msg=name)
            continue
        # uniform inits: the same bound (the largest magnitude drawn) and, where there are enough draws, the same spread
        bound = np.abs(theirs).max()
        assert bound * 0.8 <= np.abs(ours).max() <= bound * 1.05, name
        if ours.size >= 1000:
            assert abs(ours.std() / theirs.std() - 1) < 0.05, name


def test_generate_square_subsequent_mask_matches_torch() -> None:
    for kwargs in ({}, {"dtype": "float64"}):
        ours = glassgrad.nn.Transformer.generate_square_subsequent_mask(4, **{k: getattr(glassgrad, v) for k, v in kwargs.items()})
        theirs = torch.nn.Transformer.generate_square_subsequent_mask(4, **{k: getattr(torch, v) for k, v in kwargs.items()})
        assert str(ours.dtype).replace("glassgrad", "torch") == str(theirs.dtype)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def nested_tensor_warnings(lib: Any, layer: Any, **options: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.nn.TransformerEncoder(layer(lib), 2, **options)
    return [str(w.message) for w in caught]


@pytest.mark.torch_oracle
@pytest.mark.parametrize(
    ("layer", "options"),
    [
        (enc_layer, {}),
        (lambda lib: enc_layer(lib, batch_first=True), {}),
        (lambda lib: enc_layer(lib, batch_first=True, norm_first=True), {}),
        (lambda lib: enc_layer(lib, batch_first=True, activation=lib.nn.functional.silu), {}),
        (lambda lib: enc_layer(lib, batch_first=True, bias=False), {}),
        (lambda lib: lib.nn.TransformerEncoderLayer(9, 3, batch_first=True), {}),
        (lambda lib: dec_layer(lib), {}),
        (enc_layer, {"enable_nested_tensor": False}),
    ],
)
def test_encoder_warns_about_nested_tensors_like_torch(layer, options) -> None:
    assert nested_tensor_warnings(glassgrad, layer, **options) == nested_tensor_warnings(torch, layer, **options)


def transformer(lib: Any) -> Any:
    return quietly(lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16))(lib)


ERRORS = {
    "batch_mismatch": lambda lib: transformer(lib)(lib.zeros(5, 2, 8), lib.zeros(4, 3, 8)),
    "d_model_mismatch": lambda lib: transformer(lib)(lib.zeros(5, 2, 8), lib.zeros(4, 2, 6)),
    "unknown_activation": lambda lib: lib.nn.TransformerDecoderLayer(8, 2, activation="tanh"),
    "memory_width": lambda lib: dec_layer(lib)(lib.zeros(4, 2, 8), lib.zeros(5, 2, 6)),
    "mask_shape": lambda lib: enc_layer(lib)(lib.zeros(4, 2, 8), src_mask=lib.zeros(5, 5)),
    "integer_padding_mask": lambda lib: enc_layer(lib)(
        lib.zeros(4, 2, 8), src_key_padding_mask=lib.zeros(2, 4, dtype=lib.int64)
    ),
}


@pytest.mark.torch_oracle
@pytest.mark.parametrize("case", ERRORS.keys())
def test_errors_match_torch(case: str) -> None:
    assert_raises_like_torch(ERRORS[case])


@pytest.mark.parametrize(
    "path",
    ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer", "TransformerDecoderLayer"],
)
def test_class_paths_match_torch(path: str) -> None:
    assert getattr(glassgrad.nn, path) is getattr(glassgrad.nn.modules.transformer, path)


@pytest.mark.torch_oracle
@pytest.mark.parametrize(
    "factory",
    [
        lambda lib: lib.nn.TransformerDecoderLayer(8, 2, 16, activation=lib.nn.GELU(), norm_first=True, bias=False),
        lambda lib: lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16), 2, enable_nested_tensor=False),
        quietly(lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16, layer_norm_eps=1e-3)),
    ],
    ids=["decoder_layer", "encoder", "transformer"],
)
def test_repr_matches_torch(factory) -> None:
    assert repr(factory(glassgrad)) == repr(factory(torch))


@pytest.mark.torch_oracle
def test_float32_transformer_matches_torch_to_float32_tolerance() -> None:
    torch.manual_seed(0)
    ref = quietly(lambda lib: lib.nn.Transformer(16, 4, 2, 2, 32, dropout=0.0, batch_first=True))(torch)
    mine = quietly(lambda lib: lib.nn.Transformer(16, 4, 2, 2, 32, dropout=0.0, batch_first=True))(glassgrad)
    mine.load_state_dict({k: glassgrad.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    src, tgt = randn(3, 7, 16).astype(np.float32), randn(3, 5, 16).astype(np.float32)
    outs, grads = [], []
    for lib, model in ((glassgrad, mine), (torch, ref)):
        s = lib.tensor(src, requires_grad=True)
        out = model(s, lib.tensor(tgt), tgt_mask=lib.nn.Transformer.generate_square_subsequent_mask(5), tgt_is_causal=True)
        out.square().sum().backward()
        assert out.dtype == lib.float32
        outs.append(out.detach().numpy())
        grads.append([s.grad.numpy(), *(p.grad.numpy() for p in model.parameters())])
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-4, atol=1e-5)
    for g, r in zip(*grads, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-3, atol=1e-4)


@pytest.mark.torch_oracle
@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors is in prototype stage")  # torch's own, internal
@pytest.mark.parametrize(
    ("options", "padded", "grad"),
    [
        ({}, [[0, 0, 0, 1, 1], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]], False),  # nested path: padded positions zeroed
        ({}, [[1, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 1]], False),  # padding at the start: no nested path
        ({"mask_check": False}, [[1, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 1]], False),  # assumed at the end
        ({"enable_nested_tensor": False}, [[0, 0, 0, 1, 1], [0, 0, 0, 0, 0], [0, 0, 0, 0, 1]], False),
        ({}, [[0, 0, 0, 1, 1], [0, 0, 0, 0, 0], [0, 0, 0, 0, 1]], True),  # parameters need grad: training path
    ],
)
def test_encoder_inference_with_padding_matches_torch_at_every_position(options, padded, grad) -> None:
    def build(lib: Any) -> Any:
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True)
        return lib.nn.TransformerEncoder(layer, 2, norm=lib.nn.LayerNorm(8), **options)

    ref, mine = make_pair(build)
    ref.eval()
    mine.eval()
    x, mask = randn(3, 5, 8), np.array(padded, dtype=bool)
    with torch.set_grad_enabled(grad):
        expected = ref(torch.tensor(x), src_key_padding_mask=torch.tensor(mask)).detach().numpy()
    with glassgrad.set_grad_enabled(grad):
        out = mine(glassgrad.tensor(x), src_key_padding_mask=glassgrad.tensor(mask)).detach().numpy()
    np.testing.assert_allclose(out, expected, rtol=1e-9, atol=1e-12)
