"""nn.utils.rnn (packing, padding) and RNN/LSTM/GRU on PackedSequence inputs against PyTorch 2.13."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from .oracle import assert_close, assert_raises_like_torch, check_against_torch, make_pair

rng = np.random.default_rng(0)


def randn(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape)


def both(fn: Any) -> tuple[Any, Any]:
    return fn(glassgrad), fn(torch)


def assert_same(mine: Any, ref: Any, what: str) -> None:
    if ref is None:
        assert mine is None, what
        return
    assert str(mine.dtype).replace("glassgrad", "torch") == str(ref.dtype), what
    assert_close(mine.detach().numpy(), ref.detach().numpy(), what)


def assert_same_packed(mine: Any, ref: Any) -> None:
    assert type(mine).__name__ == "PackedSequence" and isinstance(mine, tuple)
    for field in ("data", "batch_sizes", "sorted_indices", "unsorted_indices"):
        assert_same(getattr(mine, field), getattr(ref, field), field)


PACKINGS = [
    ((5, 3, 2), [5, 3, 1], False, True),
    ((3, 5, 2), [5, 3, 3], True, True),
    ((4, 4), [2, 4, 1, 3], False, False),
    ((4, 6, 2, 2), [2, 6, 1, 6], True, False),
    ((3, 1, 2), [3], False, True),
]


@pytest.mark.torch_oracle
@pytest.mark.parametrize(("shape", "lengths", "batch_first", "enforce_sorted"), PACKINGS)
@pytest.mark.parametrize("lengths_as_tensor", [False, True])
def test_pack_and_pad_round_trip_with_gradients(shape, lengths, batch_first, enforce_sorted, lengths_as_tensor) -> None:
    x = randn(*shape)
    upstream = {}

    def run(lib: Any) -> tuple[Any, ...]:
        inp = lib.tensor(x, requires_grad=True)
        lens = lib.tensor(lengths) if lengths_as_tensor else lengths
        packed = lib.nn.utils.rnn.pack_padded_sequence(inp, lens, batch_first=batch_first, enforce_sorted=enforce_sorted)
        padded, out_lengths = lib.nn.utils.rnn.pad_packed_sequence(
            packed, batch_first=batch_first, padding_value=-2.5, total_length=max(lengths) + 1
        )
        upstream.setdefault("data", rng.standard_normal(tuple(packed.data.shape)))
        upstream.setdefault("padded", rng.standard_normal(tuple(padded.shape)))
        ((packed.data * lib.tensor(upstream["data"])).sum() + (padded * lib.tensor(upstream["padded"])).sum()).backward()
        return packed, padded, out_lengths, inp.grad

    mine, ref = both(run)
    assert_same_packed(mine[0], ref[0])
    for i, what in enumerate(("padded", "lengths", "input grad"), start=1):
        assert_same(mine[i], ref[i], what)


@pytest.mark.torch_oracle
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_sequence_and_unpack_sequence(enforce_sorted: bool) -> None:
    arrays = [randn(4, 3), randn(4, 3), randn(2, 3), randn(1, 3)]
    if not enforce_sorted:
        arrays = [arrays[2], arrays[0], arrays[3], arrays[1]]

    def run(lib: Any) -> tuple[Any, list[Any]]:
        packed = lib.nn.utils.rnn.pack_sequence([lib.tensor(a) for a in arrays], enforce_sorted=enforce_sorted)
        return packed, lib.nn.utils.rnn.unpack_sequence(packed)

    (packed, sequences), (ref_packed, ref_sequences) = both(run)
    assert_same_packed(packed, ref_packed)
    assert len(sequences) == len(ref_sequences)
    for i, (s, r) in enumerate(zip(sequences, ref_sequences, strict=True)):
        assert_same(s, r, f"sequence {i}")


@pytest.mark.torch_oracle
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_and_unpad_sequence(batch_first: bool, padding_side: str) -> None:
    arrays = [randn(2, 3, 2), randn(5, 3, 2), randn(1, 3, 2)]
    upstream = rng.standard_normal((5, 3, 3, 2) if not batch_first else (3, 5, 3, 2))

    def run(lib: Any) -> tuple[Any, ...]:
        leaves = [lib.tensor(a, requires_grad=True) for a in arrays]
        padded = lib.nn.utils.rnn.pad_sequence(leaves, batch_first=batch_first, padding_value=7.0, padding_side=padding_side)
        (padded * lib.tensor(upstream)).sum().backward()
        unpadded = lib.nn.utils.rnn.unpad_sequence(padded.detach().clone(), lib.tensor([2, 5, 1]), batch_first=batch_first)
        return padded, *unpadded, *(leaf.grad for leaf in leaves)

    for i, (m, r) in enumerate(zip(*both(run), strict=True)):
        assert_same(m, r, f"result {i}")


@pytest.mark.torch_oracle
def test_pad_sequence_casts_to_the_first_dtype_broadcasts_and_takes_a_tensor() -> None:
    batch = randn(2, 3)
    for build in (
        lambda lib: lib.nn.utils.rnn.pad_sequence([lib.ones(3, dtype=lib.float64), lib.tensor([1, 2])]),
        lambda lib: lib.nn.utils.rnn.pad_sequence([lib.ones(3, 2), lib.tensor([[1.0], [2.0]])], batch_first=True),
        lambda lib: lib.nn.utils.rnn.pad_sequence(lib.tensor(batch)),
    ):
        assert_same(*both(build), "pad_sequence")


def test_packed_sequence_is_a_named_tuple_with_conversions() -> None:
    packed = glassgrad.nn.utils.rnn.pack_sequence([glassgrad.ones(3, 2), glassgrad.ones(1, 2)])
    data, batch_sizes, sorted_indices, unsorted_indices = packed
    assert packed._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert sorted_indices is None and unsorted_indices is None and batch_sizes.tolist() == [2, 1, 1]
    double = packed.double()
    assert type(double) is type(packed) and double.data.dtype == glassgrad.float64 and double.batch_sizes is batch_sizes
    assert packed.float() is packed and not packed.is_cuda
    rebuilt = glassgrad.nn.utils.rnn.PackedSequence((data, batch_sizes))
    assert rebuilt.data is data and rebuilt.batch_sizes is batch_sizes
    permuted = glassgrad.nn.utils.rnn.PackedSequence(data, batch_sizes, glassgrad.tensor([2, 0, 1]))
    assert permuted.unsorted_indices.tolist() == [1, 2, 0]
    assert glassgrad.nn.utils.rnn.invert_permutation(None) is None


def pack(lib: Any, shape: tuple[int, ...], lengths: Any, **kwargs: Any) -> Any:
    return lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(shape), lengths, **kwargs)


UTIL_ERRORS = {
    "unsorted": lambda lib: pack(lib, (4, 3, 2), [2, 4, 1]),
    "zero_length": lambda lib: pack(lib, (4, 3, 2), [4, 2, 0]),
    "lengths_count": lambda lib: pack(lib, (4, 3, 2), [4, 2]),
    "lengths_rank": lambda lib: pack(lib, (4, 3, 2), lib.tensor([[4, 2, 1]])),
    "empty": lambda lib: pack(lib, (0, 3, 2), [1, 1, 1]),
    "sequence_unsorted": lambda lib: lib.nn.utils.rnn.pack_sequence([lib.ones(1), lib.ones(3)]),
    "total_length": lambda lib: lib.nn.utils.rnn.pad_packed_sequence(pack(lib, (4, 3, 2), [4, 2, 1]), total_length=3),
    "pad_empty": lambda lib: lib.nn.utils.rnn.pad_sequence([]),
    "pad_trailing": lambda lib: lib.nn.utils.rnn.pad_sequence([lib.zeros(3, 2), lib.zeros(2, 3)]),
    "pad_side": lambda lib: lib.nn.utils.rnn.pad_sequence([lib.zeros(3, 2)], padding_side="middle"),
    "pad_not_iterable": lambda lib: lib.nn.utils.rnn.pad_sequence(3),
}


@pytest.mark.torch_oracle
@pytest.mark.parametrize("case", UTIL_ERRORS.keys())
def test_packing_errors_match_torch(case: str) -> None:
    assert_raises_like_torch(UTIL_ERRORS[case])


def test_lengths_beyond_the_padded_input_are_refused() -> None:
    # PyTorch reads out of bounds here (undefined values); glassgrad names the problem instead.
    with pytest.raises(RuntimeError, match="5 steps long but the input has only 4 time steps"):
        pack(glassgrad, (4, 3, 2), [5, 2, 1])


def packed_runner(rnn: Any, lengths: list[int], batch_first: bool = False, enforce_sorted: bool = True) -> Any:
    """A module that packs a padded batch, runs `rnn` on it and returns the packed data, the padded output and the
    final states, so that the oracle compares all of them and their gradients."""
    lib = torch if isinstance(rnn, torch.nn.Module) else glassgrad

    class PackedRunner(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.rnn = rnn

        def forward(self, padded: Any, hx: Any = None) -> Any:
            utils = lib.nn.utils.rnn
            packed = utils.pack_padded_sequence(padded, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
            out, finals = self.rnn(packed, hx)
            assert type(out) is utils.PackedSequence and out.batch_sizes is packed.batch_sizes
            assert out.sorted_indices is packed.sorted_indices and out.unsorted_indices is packed.unsorted_indices
            return out.data, utils.pad_packed_sequence(out, batch_first=batch_first)[0], finals

    return PackedRunner()


RNNS: dict[str, tuple[Any, list[int], dict[str, Any], list[Any]]] = {
    "rnn_tanh": (lambda lib: lib.nn.RNN(3, 4), [5, 3, 2], {}, [randn(5, 3, 3)]),
    "rnn_relu_2layer_bidir_h0_unsorted": (
        lambda lib: lib.nn.RNN(3, 4, num_layers=2, nonlinearity="relu", bidirectional=True), [2, 5, 1, 5],
        {"enforce_sorted": False}, [randn(5, 4, 3), randn(4, 4, 4)],
    ),
    "lstm_2layer_bidir_h0_c0_unsorted_batch_first": (
        lambda lib: lib.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True), [3, 6, 1],
        {"enforce_sorted": False, "batch_first": True}, [randn(3, 6, 3), (randn(4, 3, 4), randn(4, 3, 4))],
    ),
    "lstm_proj_bidir": (
        lambda lib: lib.nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True), [4, 4, 2, 1], {},
        [randn(4, 4, 3)],
    ),
    "lstm_no_bias_single_sequence": (lambda lib: lib.nn.LSTM(2, 3, bias=False), [4], {}, [randn(4, 1, 2)]),
    "gru_3layer_bidir_h0": (
        lambda lib: lib.nn.GRU(3, 4, num_layers=3, bidirectional=True), [6, 4, 4, 1], {},
        [randn(6, 4, 3), randn(6, 4, 4)],
    ),
    "gru_unsorted_ties": (
        lambda lib: lib.nn.GRU(2, 3, batch_first=True), [3, 1, 3, 2], {"enforce_sorted": False, "batch_first": True},
        [randn(4, 3, 2), randn(1, 4, 3)],
    ),
}


@pytest.mark.torch_oracle
@pytest.mark.parametrize("case", RNNS.keys())
def test_recurrent_layer_on_packed_sequence_matches_torch(case: str) -> None:
    factory, lengths, options, inputs = RNNS[case]
    ref, mine = make_pair(lambda lib: packed_runner(factory(lib), lengths, **options))
    check_against_torch(ref, mine, inputs)


def build_double(lib: Any, cls: str, **options: Any) -> Any:
    return getattr(lib.nn, cls)(2, 5, **options).double()


PACKED_ERRORS = {
    "input_rank": lambda lib: build_double(lib, "GRU")(lib.nn.utils.rnn.PackedSequence(lib.zeros(7, 1, 2).double(), lib.tensor([3, 2, 1, 1]))),
    "input_size": lambda lib: build_double(lib, "GRU", num_layers=2)(pack(lib, (4, 3, 3), [4, 2, 1]).double()),
    "dtype": lambda lib: build_double(lib, "RNN")(pack(lib, (4, 3, 2), [4, 2, 1])),
    "hidden_size": lambda lib: build_double(lib, "GRU")(pack(lib, (4, 3, 2), [4, 2, 1]).double(), lib.zeros(1, 2, 5).double()),
}


@pytest.mark.torch_oracle
@pytest.mark.parametrize("case", PACKED_ERRORS.keys())
def test_packed_input_errors_match_torch(case: str) -> None:
    assert_raises_like_torch(PACKED_ERRORS[case])


def test_lstm_checks_packed_initial_states_where_torch_fails_inside() -> None:
    # PyTorch skips LSTM's state checks for packed input and fails later with a broadcasting message.
    lstm = glassgrad.nn.LSTM(2, 5)
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 3, 5\), got \[1, 2, 5\]"):
        lstm(pack(glassgrad, (4, 3, 2), [4, 2, 1]), (glassgrad.zeros(1, 2, 5), glassgrad.zeros(1, 2, 5)))


@pytest.mark.torch_oracle
@pytest.mark.parametrize("lib", [torch, glassgrad], ids=["torch", "glassgrad"])
def test_dropout_falls_between_layers_only_and_only_in_training(lib: Any) -> None:
    # Each layer passes its input through unchanged (identity input weights, no recurrence, relu of positive
    # values), so the output is the input after whatever dropout the stack applies: once, between the two layers.
    p = 0.3
    rnn = lib.nn.RNN(8, 8, num_layers=2, nonlinearity="relu", bias=False, dropout=p)
    with lib.no_grad():
        for layer in range(2):
            getattr(rnn, f"weight_ih_l{layer}").copy_(lib.eye(8))
            getattr(rnn, f"weight_hh_l{layer}").zero_()
    lib.manual_seed(0)
    x = lib.rand(50, 100, 8) + 0.5
    out = rnn(x)[0].detach().numpy()
    dropped = out == 0
    assert abs(dropped.mean() - p) < 0.01  # two dropouts would zero 1 - 0.7^2 = 51%
    np.testing.assert_allclose(out[~dropped], x.numpy()[~dropped] / (1 - p), rtol=1e-5)
    packed = lib.nn.utils.rnn.pack_padded_sequence(x, [50] * 60 + [20] * 40)
    assert abs((rnn(packed)[0].data.detach().numpy() == 0).mean() - p) < 0.01
    rnn.eval()
    np.testing.assert_allclose(rnn(x)[0].detach().numpy(), x.numpy(), rtol=1e-6)


@pytest.mark.torch_oracle
def test_float32_packed_gru_matches_torch_to_float32_tolerance() -> None:
    torch.manual_seed(0)
    ref = torch.nn.GRU(4, 6, num_layers=2, bidirectional=True, batch_first=True)
    mine = glassgrad.nn.GRU(4, 6, num_layers=2, bidirectional=True, batch_first=True)
    mine.load_state_dict({k: glassgrad.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    mine.flatten_parameters()  # what programs call for cuDNN; a no-op here as on the CPU
    x = randn(5, 7, 4).astype(np.float32)
    results = []
    for lib, model in ((glassgrad, mine), (torch, ref)):
        inp = lib.tensor(x, requires_grad=True)
        packed = lib.nn.utils.rnn.pack_padded_sequence(inp, [3, 7, 1, 7, 2], batch_first=True, enforce_sorted=False)
        out, h = model(packed)
        (out.data.square().sum() + h.sum()).backward()
        results.append([out.data.detach().numpy(), h.detach().numpy(), inp.grad.numpy(), *(p.grad.numpy() for p in model.parameters())])
    for i, (m, r) in enumerate(zip(*results, strict=True)):
        assert m.dtype == np.float32
        np.testing.assert_allclose(m, r, rtol=1e-4, atol=1e-5, err_msg=str(i))
