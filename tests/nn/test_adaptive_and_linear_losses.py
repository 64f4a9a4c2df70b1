"""AdaptiveLogSoftmaxWithLoss, LinearCrossEntropyLoss and LinearCrossEntropyOptions against PyTorch 2.13.

The modules are built in both libraries, PyTorch's (randomised) weights are copied into glassgrad's through
state_dict, and outputs, losses and every gradient are compared.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from ..outcome import assert_same_outcome, expression, statements
from .oracle import assert_close, check_against_torch, make_pair

pytestmark = pytest.mark.torch_oracle

RNG = np.random.default_rng(0)
FEATURES = RNG.standard_normal((7, 8))
TARGETS = np.array([0, 3, 5, 9, 11, 2, 7])  # every cluster of cutoffs (4, 8) is hit


def _adaptive(head_bias: bool = False, cutoffs: tuple[int, ...] = (4, 8), div_value: float = 2.0) -> Any:
    return lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 12, list(cutoffs), div_value=div_value, head_bias=head_bias)


@pytest.mark.parametrize("head_bias", [False, True])
def test_adaptive_softmax_outputs_loss_and_gradients_match_torch(head_bias: bool) -> None:
    ref, mine = make_pair(_adaptive(head_bias))
    check_against_torch(ref, mine, [FEATURES, TARGETS])


def test_adaptive_softmax_unbatched_and_one_cluster_match_torch() -> None:
    ref, mine = make_pair(_adaptive(cutoffs=(6,)))
    check_against_torch(ref, mine, [FEATURES[0], np.array(9)])
    check_against_torch(ref, mine, [FEATURES[:3], np.array([1, 2, 3])])  # the shortlist only


def test_adaptive_softmax_log_prob_and_predict_match_torch() -> None:
    ref, mine = make_pair(_adaptive())
    for rows in (slice(None), slice(0, 1)):
        x = FEATURES[rows]
        assert_close(mine.log_prob(glassgrad.tensor(x)).detach().numpy(), ref.log_prob(torch.tensor(x)).detach().numpy(),
                     "log_prob")
        assert mine.predict(glassgrad.tensor(x)).tolist() == ref.predict(torch.tensor(x)).tolist()
    # Heads that favour a cluster, then the shortlist, for every row: predict's other two branches.
    for bias in (10.0, -10.0):
        with torch.no_grad():
            ref.head.weight.zero_()
            ref.head.weight[-1].fill_(bias)
        mine.load_state_dict({k: glassgrad.tensor(v.numpy()) for k, v in ref.state_dict().items()})
        x = np.abs(FEATURES)
        assert mine.predict(glassgrad.tensor(x)).tolist() == ref.predict(torch.tensor(x)).tolist()


def test_adaptive_softmax_state_dict_and_repr_match_torch() -> None:
    ref, mine = _adaptive(head_bias=True)(torch), _adaptive(head_bias=True)(glassgrad)
    assert [(k, tuple(v.shape)) for k, v in mine.state_dict().items()] == [(k, tuple(v.shape)) for k, v in ref.state_dict().items()]
    assert repr(mine) == repr(ref)
    assert (mine.shortlist_size, mine.n_clusters, mine.head_size, mine.cutoffs) == (
        ref.shortlist_size, ref.n_clusters, ref.head_size, ref.cutoffs)


LINEAR_CE = [
    expression(source, x=FEATURES[:4], t=np.array([0, 2, 1, 2]))
    for source in (
        "m.nn.functional.linear_cross_entropy(m.tensor(x), m.ones(3, 8, dtype=m.float64), m.tensor(t))",
        # what PyTorch refuses
        "m.nn.functional.linear_cross_entropy(m.ones(2, 2, 8), m.ones(3, 8), m.tensor([0, 1]))",
        "m.nn.functional.linear_cross_entropy(m.ones(2, 8), m.ones(8), m.tensor([0, 1]))",
        "m.nn.functional.linear_cross_entropy(m.ones(2, 8), m.ones(3, 7), m.tensor([0, 1]))",
        "m.nn.functional.linear_cross_entropy(m.ones(2, 8), m.ones(3, 8), m.tensor([0, 1]), linear_bias=m.ones(2))",
        "m.nn.functional.linear_cross_entropy(m.ones(8), m.ones(3, 2, 8), m.tensor([0, 1]))",
        "m.nn.functional.linear_cross_entropy(m.ones(2, 8), m.ones(3, 8), m.ones(2, 3) / 3, ignore_index=1)",
        # options: validated, and ignored with a warning where PyTorch's chunked path would not run
        "repr(m.nn.LinearCrossEntropyOptions())", "m.nn.LinearCrossEntropyOptions(acc_policy='x')",
        "m.nn.LinearCrossEntropyOptions(chunking_method='aspect_ratio:0')",
        "m.nn.LinearCrossEntropyOptions(chunking_method='bogus')", "m.nn.LinearCrossEntropyOptions(batch_chunk_size=0)",
        "repr(m.nn.LinearCrossEntropyOptions(batch_chunk_size=4, chunking_method=None))",
        "m.nn.LinearCrossEntropyOptions() == m.nn.LinearCrossEntropyOptions()",
        "hash(m.nn.LinearCrossEntropyOptions()) == hash(m.nn.LinearCrossEntropyOptions())",
        "m.nn.functional.linear_cross_entropy(m.ones(2, 8), m.ones(3, 8), m.tensor([0, 1]), label_smoothing=0.1, "
        "options=m.nn.LinearCrossEntropyOptions())",
        # the module's checks and repr
        "m.nn.LinearCrossEntropyLoss(3, 4, weight=m.ones(3))", "m.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=1.5)",
        "repr(m.nn.LinearCrossEntropyLoss(3, 4, out_features=(2,), bias=True, options=m.nn.LinearCrossEntropyOptions()))",
        "[(k, tuple(v.shape)) for k, v in m.nn.LinearCrossEntropyLoss(3, 4, out_features=(2, 5), bias=True).state_dict().items()]",
    )
]


@pytest.mark.parametrize("snippet", LINEAR_CE)
def test_linear_cross_entropy_calls_match_torch(snippet: Any) -> None:
    assert_same_outcome(snippet)


@pytest.mark.parametrize("snippet", [
    statements("o = m.nn.LinearCrossEntropyOptions()\no.acc_policy = 'accurate'"),
    # the message names the dtype, which each library prints with its own module name
    statements("try:\n    m.nn.LinearCrossEntropyOptions(acc_dtype=m.int64)\nexcept ValueError as e:\n    r = str(e).split(', got')[0]"),
    statements("r = m.nn.LinearCrossEntropyOptions(acc_dtype=m.float64).acc_dtype is m.float64"),
])
def test_options_are_frozen_and_checked_like_torch(snippet: Any) -> None:
    assert_same_outcome(snippet)


@pytest.mark.parametrize(
    ("kwargs", "targets"),
    [
        ({}, np.array([0, 2, 1, 2, 0])),
        ({"reduction": "sum", "label_smoothing": 0.2, "bias": True}, np.array([0, 2, 1, 2, 0])),
        ({"reduction": "none", "ignore_index": 1}, np.array([0, 2, 1, 2, 1])),
        ({"weight": np.array([0.5, 2.0, 1.0])}, np.array([0, 2, 1, 2, 0])),
        ({"options": "chunked"}, np.array([0, 2, 1, 2, 0])),
        ({"out_features": (2,), "bias": True}, np.array([[0, 1], [2, 2], [1, 0], [0, 0], [2, 1]])),
    ],
    ids=["mean", "sum_smoothed_bias", "none_ignore", "class_weights", "options", "k_dimensional"],
)
def test_linear_cross_entropy_loss_matches_torch(kwargs: dict[str, Any], targets: np.ndarray) -> None:
    def factory(m: Any) -> Any:
        options = {k: v for k, v in kwargs.items() if k != "weight"}
        if options.get("options") == "chunked":
            options["options"] = m.nn.LinearCrossEntropyOptions(batch_chunk_size=2, chunking_method=None)
        weight = kwargs.get("weight")
        return m.nn.LinearCrossEntropyLoss(8, 3, weight=None if weight is None else m.tensor(weight), **options)

    ref, mine = make_pair(factory)
    check_against_torch(ref, mine, [FEATURES[:5], targets])


def test_linear_cross_entropy_with_probability_targets_matches_torch() -> None:
    probabilities = np.abs(RNG.standard_normal((5, 3)))
    ref, mine = make_pair(lambda m: m.nn.LinearCrossEntropyLoss(8, 3, bias=True))
    check_against_torch(ref, mine, [FEATURES[:5], probabilities / probabilities.sum(1, keepdims=True)])
