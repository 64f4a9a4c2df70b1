"""MultiMarginLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss, TripletMarginWithDistanceLoss, PairwiseDistance
and CosineSimilarity modules against PyTorch: outputs, gradients, reprs, buffers and constructor errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from .oracle import assert_raises_like_torch, check_against_torch, make_pair

pytestmark = pytest.mark.torch_oracle
RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 4))
LABELS = RNG.integers(0, 4, 5)
LISTS = np.array([[0, 2, -1, 1], [3, -1, 0, 0], [-1, 1, 2, 3], [1, 1, 0, -1], [0, 1, 2, 3]])
WEIGHT = np.array([0.5, 1.0, 2.0, 0.25])

CASES: dict[str, tuple[Any, list[Any]]] = {
    "MultiMarginLoss": (lambda lib: lib.nn.MultiMarginLoss(), [X, LABELS]),
    "MultiMarginLoss_p2_weight": (lambda lib: lib.nn.MultiMarginLoss(p=2, margin=0.5, weight=lib.tensor(WEIGHT), reduction="none"),
                                  [X, LABELS]),
    "MultiLabelMarginLoss": (lambda lib: lib.nn.MultiLabelMarginLoss(reduction="sum"), [X, LISTS]),
    "MultiLabelSoftMarginLoss": (lambda lib: lib.nn.MultiLabelSoftMarginLoss(weight=lib.tensor(WEIGHT)), [X, (LISTS > 0) * 1.0]),
    "TripletMarginWithDistanceLoss": (lambda lib: lib.nn.TripletMarginWithDistanceLoss(), [X, X[::-1].copy(), X ** 2]),
    "TripletMarginWithDistanceLoss_cosine": (lambda lib: lib.nn.TripletMarginWithDistanceLoss(
        distance_function=lib.nn.CosineSimilarity(), margin=0.3, swap=True, reduction="none"), [X, X[::-1].copy(), X ** 2]),
    "PairwiseDistance": (lambda lib: lib.nn.PairwiseDistance(p=1.5, eps=1e-3, keepdim=True), [X, X ** 2]),
    "CosineSimilarity": (lambda lib: lib.nn.CosineSimilarity(dim=0, eps=1e-6), [X, X ** 2]),
}


@pytest.mark.parametrize("name", CASES)
def test_module_matches_torch(name: str) -> None:
    factory, inputs = CASES[name]
    ref, mine = make_pair(factory, randomize=False)
    assert repr(mine) == repr(ref)
    assert [k for k, _ in mine.named_buffers()] == [k for k, _ in ref.named_buffers()]
    check_against_torch(ref, mine, inputs)


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.MultiMarginLoss(p=3),
    lambda lib: lib.nn.MultiMarginLoss(weight=lib.ones(2, 2)),
    lambda lib: lib.nn.TripletMarginWithDistanceLoss(margin=-1.0),
])
def test_constructor_errors_like_torch(make: Any) -> None:
    assert_raises_like_torch(make)
