"""nn.EmbeddingBag and F.embedding_bag against PyTorch 2.13: outputs, gradients, node names, saved tensors, errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad
from glassgrad import nn

from .oracle import assert_raises_like_torch, check_against_torch, make_pair

pytestmark = pytest.mark.torch_oracle

rng = np.random.default_rng(0)
INDICES = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8])
OFFSETS = np.array([0, 3, 3, 7])  # four bags, the second empty

LAYERS = {
    "mean_offsets": (lambda lib: lib.nn.EmbeddingBag(10, 4), [INDICES, OFFSETS], {}),
    "sum_2d_per_sample_weights": (
        lambda lib: lib.nn.EmbeddingBag(10, 3, mode="sum"), [INDICES.reshape(3, 4)],
        {"per_sample_weights": rng.standard_normal((3, 4))},
    ),
    "max_padding_include_last_offset": (
        lambda lib: lib.nn.EmbeddingBag(10, 5, mode="max", padding_idx=5, include_last_offset=True),
        [INDICES, np.append(OFFSETS, 12)], {},
    ),
    "mean_padding_freq": (
        lambda lib: lib.nn.EmbeddingBag(10, 2, padding_idx=-7, scale_grad_by_freq=True), [INDICES.reshape(4, 3)], {}
    ),
    "sum_freq_per_sample_weights_padding": (
        lambda lib: lib.nn.EmbeddingBag(10, 3, mode="sum", scale_grad_by_freq=True, padding_idx=1),
        [INDICES, OFFSETS], {"per_sample_weights": rng.standard_normal(12)},
    ),
    "int32_indices": (lambda lib: lib.nn.EmbeddingBag(10, 2, mode="sum"), [INDICES.astype(np.int32), OFFSETS], {}),
}


@pytest.mark.parametrize("case", LAYERS.keys())
def test_layer_matches_torch(case: str) -> None:
    factory, inputs, kwargs = LAYERS[case]
    ref, mine = make_pair(factory)
    check_against_torch(ref, mine, inputs, kwargs)


def test_max_mode_sends_ties_to_the_first_maximum() -> None:
    weight = np.array([[1.0, 2.0], [1.0, 3.0], [0.0, 3.0]])
    grads = []
    for lib in (torch, glassgrad):
        w = lib.tensor(weight, requires_grad=True)
        out = lib.nn.functional.embedding_bag(lib.tensor([2, 1, 0, 2]), w, lib.tensor([0, 2]), mode="max")
        out.backward(lib.tensor([[1.0, 10.0], [100.0, 1000.0]]))
        grads.append(w.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


def test_max_norm_renormalises_the_looked_up_rows_like_torch() -> None:
    ref, mine = make_pair(lambda lib: lib.nn.EmbeddingBag(10, 3, max_norm=0.5, norm_type=1.5, mode="sum"), randomize=False)
    versions = mine.weight._version, ref.weight._version
    check_against_torch(ref, mine, [INDICES[:6], np.array([0, 2])])
    np.testing.assert_allclose(mine.weight.detach().numpy(), ref.weight.detach().numpy(), rtol=1e-12)
    assert mine.weight._version - versions[0] == ref.weight._version - versions[1] == 1


def _graph(lib: Any, with_weights: bool) -> tuple[Any, Any, Any, Any]:
    w = lib.tensor(rng.standard_normal((10, 3)), requires_grad=True)
    p = lib.tensor(rng.standard_normal(12), requires_grad=True) if with_weights else None
    out = lib.nn.functional.embedding_bag(lib.tensor(INDICES), w, lib.tensor(OFFSETS), mode="sum", per_sample_weights=p)
    return out, w, p, lib.ones(out.shape, dtype=lib.float64, requires_grad=True)


@pytest.mark.parametrize("with_weights", [False, True])
def test_node_names_match_torch(with_weights: bool) -> None:
    names = []
    for lib in (torch, glassgrad):
        out, w, p, seed = _graph(lib, with_weights)
        grads = lib.autograd.grad(out, [w, p] if with_weights else [w], seed, create_graph=True)
        names.append([out.grad_fn.name(), *(type(g.grad_fn).__name__ for g in grads)])
    assert names[1] == names[0]


@pytest.mark.parametrize("wrt", ["seed", "weights"])
def test_second_derivatives_raise_as_in_torch(wrt: str) -> None:
    """PyTorch has no derivative of embedding_bag's backward: the nodes exist, and reaching them raises."""

    def second(lib: Any) -> None:
        out, w, p, seed = _graph(lib, True)
        gw, gp = lib.autograd.grad(out, [w, p], seed, create_graph=True)
        target = gw if wrt == "seed" else gp
        lib.autograd.grad(target.sum(), seed if wrt == "seed" else w)

    assert_raises_like_torch(second)


@pytest.mark.parametrize("with_weights", [False, True])
def test_saved_tensors_match_torch(with_weights: bool) -> None:
    """Without per_sample_weights the weight is not saved, so updating it before backward is allowed; with them it is
    saved and the update is caught. Either way a second backward fails."""
    outcomes = []
    for lib in (torch, glassgrad):
        out, w, _, _ = _graph(lib, with_weights)
        with lib.no_grad():
            w.add_(1.0)
        try:
            out.sum().backward(retain_graph=True)
            first = "ok"
        except RuntimeError as err:
            first = str(err).split(":")[0]
        out, *_ = _graph(lib, with_weights)
        out.sum().backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            out.sum().backward()
        outcomes.append(first)
    assert outcomes[1] == outcomes[0]


def test_initialisation_and_padding_row() -> None:
    bag = nn.EmbeddingBag(400, 50, padding_idx=-1)
    values = bag.weight.detach().numpy()
    assert bag.padding_idx == 399 and not values[399].any()
    assert abs(values[:399].mean()) < 0.02 and abs(values[:399].std() - 1) < 0.02  # N(0, 1), as torch
    frozen = nn.EmbeddingBag.from_pretrained(glassgrad.tensor([[1.0, 2.0], [3.0, 5.0]]), mode="max")
    assert not frozen.weight.requires_grad
    np.testing.assert_array_equal(frozen(glassgrad.tensor([[0, 1]])).numpy(), [[3.0, 5.0]])


ERRORS = {
    "first_offset": lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.zeros(4, 2), lib.tensor([1])),
    "last_offset": lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), lib.zeros(4, 2), lib.tensor([0, 3])),
    # float32 sums and means take another path in PyTorch, with other words; glassgrad says this everywhere.
    "index_range": lambda lib: lib.nn.EmbeddingBag(4, 2, dtype=lib.float64)(lib.tensor([1, 4, -1]), lib.tensor([0])),
    "float_indices": lambda lib: lib.nn.EmbeddingBag(4, 2)(lib.tensor([1.0]), lib.tensor([0])),
    "float_offsets": lambda lib: lib.nn.EmbeddingBag(4, 2)(lib.tensor([1]), lib.tensor([0.0])),
    "no_offsets": lambda lib: lib.nn.EmbeddingBag(4, 2)(lib.tensor([1])),
    "offsets_2d": lambda lib: lib.nn.EmbeddingBag(4, 2)(lib.tensor([1]), lib.tensor([[0]])),
    "input_3d": lambda lib: lib.nn.EmbeddingBag(4, 2)(lib.tensor([[[1]]])),
    "weight_1d": lambda lib: lib.nn.functional.embedding_bag(lib.tensor([1]), lib.zeros(4), lib.tensor([0])),
    "integer_weight": lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor([1]), lib.zeros(4, 2, dtype=lib.int32), lib.tensor([0])),
    "mode": lambda lib: lib.nn.EmbeddingBag(4, 2, mode="min")(lib.tensor([1]), lib.tensor([0])),
    "max_freq": lambda lib: lib.nn.EmbeddingBag(4, 2, mode="max", scale_grad_by_freq=True)(lib.tensor([1]), lib.tensor([0])),
    "max_sparse": lambda lib: lib.nn.EmbeddingBag(4, 2, mode="max", sparse=True)(lib.tensor([1]), lib.tensor([0])),
    "weights_mean": lambda lib: lib.nn.EmbeddingBag(4, 2)(lib.tensor([1]), lib.tensor([0]), lib.ones(1)),
    "weights_shape": lambda lib: lib.nn.EmbeddingBag(4, 2, mode="sum")(lib.tensor([1]), lib.tensor([0]), lib.ones(2)),
    "weights_dtype": lambda lib: lib.nn.EmbeddingBag(4, 2, mode="sum")(
        lib.tensor([1]), lib.tensor([0]), lib.ones(1, dtype=lib.float64)),
    "functional_padding_idx": lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor([1]), lib.zeros(4, 2), lib.tensor([0]), padding_idx=-5),
    "module_padding_idx": lambda lib: lib.nn.EmbeddingBag(4, 2, padding_idx=4),
    "include_last_offset_empty": lambda lib: lib.nn.EmbeddingBag(4, 2, include_last_offset=True)(
        lib.tensor([1]), lib.tensor([], dtype=lib.int64)),
    "pretrained_rank": lambda lib: lib.nn.EmbeddingBag.from_pretrained(lib.zeros(3)),
    "weight_shape": lambda lib: lib.nn.EmbeddingBag(4, 2, _weight=lib.zeros(4, 3)),
}


@pytest.mark.parametrize("case", ERRORS.keys())
def test_errors_match_torch(case: str) -> None:
    assert_raises_like_torch(ERRORS[case])


def test_errors_where_torch_has_undefined_behaviour_explain_themselves() -> None:
    """PyTorch crashes on an empty offsets list and computes garbage for decreasing offsets; glassgrad says why."""
    weight = glassgrad.zeros(4, 2)
    with pytest.raises(RuntimeError, match=r"offsets gives no bag for the 2 indices of input\. Start offsets with 0"):
        nn.functional.embedding_bag(glassgrad.tensor([1, 2]), weight, glassgrad.tensor([], dtype=glassgrad.int64))
    with pytest.raises(RuntimeError, match=r"offsets must not decrease.*got offsets \[0, 2, 1\]"):
        nn.functional.embedding_bag(glassgrad.tensor([1, 2, 3]), weight, glassgrad.tensor([0, 2, 1]))
    with pytest.raises(RuntimeError, match=r"^step must be nonzero: a 2D input of shape \[2, 0\]"):
        nn.functional.embedding_bag(glassgrad.zeros(2, 0, dtype=glassgrad.int64), weight)


REPRS = [
    lambda lib: lib.nn.EmbeddingBag(10, 3),
    lambda lib: lib.nn.EmbeddingBag(10, 3, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, mode="sum", padding_idx=-1),
]


@pytest.mark.parametrize("factory", REPRS)
def test_repr_matches_torch(factory: Any) -> None:
    assert repr(factory(glassgrad)) == repr(factory(torch))


def test_class_path_matches_torch() -> None:
    assert nn.EmbeddingBag is nn.modules.sparse.EmbeddingBag
    assert nn.EmbeddingBag.__module__ == "glassgrad.nn.modules.sparse"
