"""RNN, LSTM, GRU and their cells against PyTorch 2.13: outputs, final states, gradients, layouts and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad
from glassgrad import nn

from .oracle import assert_raises_like_torch, check_against_torch, make_pair

rng = np.random.default_rng(0)


def randn(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape)


LAYERS = {
    "rnn_tanh": (lambda lib: lib.nn.RNN(3, 5), [randn(4, 2, 3)]),
    "rnn_relu_2layer_bidir_h0": (
        lambda lib: lib.nn.RNN(3, 4, num_layers=2, nonlinearity="relu", bidirectional=True), [randn(5, 2, 3), randn(4, 2, 4)]
    ),
    "lstm_2layer_bidir_batch_first_h0_c0": (
        lambda lib: lib.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True),
        [randn(2, 5, 3), (randn(4, 2, 4), randn(4, 2, 4))],
    ),
    "lstm_no_bias_unbatched": (lambda lib: lib.nn.LSTM(3, 4, bias=False), [randn(6, 3)]),
    "lstm_proj": (lambda lib: lib.nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True), [randn(4, 2, 3)]),
    "gru_2layer_bidir_batch_first_h0": (
        lambda lib: lib.nn.GRU(3, 4, num_layers=2, bidirectional=True, batch_first=True), [randn(3, 5, 3), randn(4, 3, 4)]
    ),
    "gru_unbatched_h0": (lambda lib: lib.nn.GRU(2, 3, batch_first=True), [randn(4, 2), randn(1, 3)]),
    "rnn_cell": (lambda lib: lib.nn.RNNCell(3, 4), [randn(2, 3), randn(2, 4)]),
    "rnn_cell_relu_no_hx": (lambda lib: lib.nn.RNNCell(3, 4, nonlinearity="relu"), [randn(2, 3)]),
    "lstm_cell": (lambda lib: lib.nn.LSTMCell(3, 4), [randn(2, 3), (randn(2, 4), randn(2, 4))]),
    "lstm_cell_unbatched_no_hx": (lambda lib: lib.nn.LSTMCell(3, 4, bias=False), [randn(3)]),
    "gru_cell": (lambda lib: lib.nn.GRUCell(3, 4), [randn(2, 3), randn(2, 4)]),
    "gru_cell_unbatched": (lambda lib: lib.nn.GRUCell(3, 4), [randn(3), randn(4)]),
}


@pytest.mark.torch_oracle
@pytest.mark.parametrize("case", LAYERS.keys())
def test_recurrent_layer_matches_torch(case: str) -> None:
    factory, inputs = LAYERS[case]
    ref, mine = make_pair(factory)
    check_against_torch(ref, mine, inputs)


@pytest.mark.torch_oracle
def test_lstm_state_dict_names_shapes_and_repr_match_torch() -> None:
    def build(lib):
        return lib.nn.LSTM(3, 6, num_layers=2, bias=True, batch_first=True, dropout=0.25, bidirectional=True, proj_size=2)

    ref, mine = build(torch), build(glassgrad)
    assert [(k, tuple(v.shape)) for k, v in mine.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in ref.state_dict().items()
    ]
    assert repr(mine) == repr(ref)
    for factory in (
        lambda lib: lib.nn.GRU(3, 4, bias=False), lambda lib: lib.nn.RNN(3, 4, nonlinearity="relu"),
        lambda lib: lib.nn.RNNCell(3, 4, nonlinearity="relu"), lambda lib: lib.nn.GRUCell(3, 4, bias=False),
    ):
        assert repr(factory(glassgrad)) == repr(factory(torch))
    bound = 1 / np.sqrt(6)
    assert all(np.abs(p.detach().numpy()).max() <= bound for p in mine.parameters())
    assert [len(w) for w in mine.all_weights] == [len(w) for w in ref.all_weights]


@pytest.mark.torch_oracle
def test_dropout_between_layers_only_in_training() -> None:
    ref, mine = make_pair(lambda lib: lib.nn.GRU(3, 8, num_layers=3, dropout=0.5))
    x = randn(5, 2, 3)
    train_out = mine(glassgrad.tensor(x))[0].detach().numpy()
    ref.eval()
    mine.eval()
    eval_out = mine(glassgrad.tensor(x))[0].detach().numpy()
    np.testing.assert_allclose(eval_out, ref(torch.tensor(x))[0].detach().numpy(), rtol=1e-10)
    assert not np.allclose(train_out, eval_out)


@pytest.mark.torch_oracle
@pytest.mark.parametrize(
    "call",
    [
        lambda lib, m: m(lib.zeros(4, 2, 5, dtype=lib.float64)),
        lambda lib, m: m(lib.zeros(4, 2, 3, dtype=lib.float64), (lib.zeros(2, 2, 4, dtype=lib.float64),) * 2),
        lambda lib, m: m(lib.zeros(4, 2, 3, dtype=lib.float64), (lib.zeros(2, 4, dtype=lib.float64),) * 2),
        lambda lib, m: m(lib.zeros(4, dtype=lib.float64)),
        lambda lib, m: m(lib.zeros(4, 2, 3)),
        lambda lib, m: m(lib.zeros(4, 2, 3), (lib.zeros(1, 4), lib.zeros(1, 4))),
    ],
    ids=["input_size", "hidden_size", "hidden_rank", "input_rank", "dtype", "hidden_rank_before_dtype"],
)
def test_errors_match_torch(call) -> None:
    def build(lib):
        return lib.nn.LSTM(3, 4).double()

    with pytest.raises((RuntimeError, ValueError)) as ref_err:
        call(torch, build(torch))
    with pytest.raises(ref_err.type) as err:
        call(glassgrad, build(glassgrad))
    assert str(err.value).replace("glassgrad", "torch") == str(ref_err.value)


def test_single_layer_dropout_warns_like_torch() -> None:
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.LSTM(2, 3, dropout=0.2)


@pytest.mark.torch_oracle
@pytest.mark.parametrize("cls", ["RNN", "GRU"])
@pytest.mark.parametrize(
    ("input_shape", "hx_shape"), [((4, 2, 3), (2, 4)), ((4, 3), (1, 2, 4)), ((4, 2, 3), (1, 3, 4)), ((4, 3), (2, 4))]
)
def test_single_state_errors_match_torch(cls: str, input_shape, hx_shape) -> None:
    def call(lib):
        return getattr(lib.nn, cls)(3, 4).double()(lib.zeros(input_shape, dtype=lib.float64), lib.zeros(hx_shape, dtype=lib.float64))

    assert_raises_like_torch(call)
