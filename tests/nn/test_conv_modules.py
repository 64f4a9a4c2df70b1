"""Conv3d, the transposed convolutions, Fold and Unfold as modules, against PyTorch 2.13 in float64."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad
from glassgrad import nn

from .oracle import assert_raises_like_torch, check_against_torch, copy_from_torch, make_pair

pytestmark = pytest.mark.torch_oracle

rng = np.random.default_rng(0)


def randn(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape)


def weight_standardized(lib: Any) -> Any:
    """A pattern of real code: a subclass that rewrites the weight and calls _conv_forward."""

    class WSConv3d(lib.nn.Conv3d):
        def forward(self, x: Any) -> Any:
            w = self.weight
            mean = w.mean(dim=(1, 2, 3, 4), keepdim=True)
            return self._conv_forward(x, (w - mean) / (w.std(dim=(1, 2, 3, 4), keepdim=True) + 1e-5), self.bias)

    return WSConv3d(2, 3, 2, padding=1, padding_mode="circular")


LAYERS = {
    "conv3d_all": (
        lambda lib: lib.nn.Conv3d(4, 6, (3, 2, 3), stride=(1, 2, 1), padding=(1, 0, 1), dilation=(2, 1, 1), groups=2),
        [randn(2, 4, 5, 6, 5)], {},
    ),
    "conv3d_same_reflect": (lambda lib: lib.nn.Conv3d(2, 3, 3, padding="same", padding_mode="reflect"), [randn(2, 2, 4, 5, 3)], {}),
    "conv3d_same_even_kernel_zeros": (lambda lib: lib.nn.Conv3d(2, 2, (2, 3, 4), padding="same", dilation=(1, 2, 1)),
                                      [randn(1, 2, 4, 5, 5)], {}),
    "conv3d_replicate_strided_nobias": (
        lambda lib: lib.nn.Conv3d(2, 4, 2, stride=2, padding=(1, 0, 2), padding_mode="replicate", bias=False),
        [randn(2, 2, 5, 4, 3)], {},
    ),
    "conv3d_circular_valid": (lambda lib: lib.nn.Conv3d(3, 2, 2, padding="valid", padding_mode="circular"), [randn(1, 3, 3, 3, 3)], {}),
    "conv3d_unbatched": (lambda lib: lib.nn.Conv3d(3, 2, (1, 2, 3)), [randn(3, 2, 4, 4)], {}),
    "conv3d_subclass_conv_forward": (weight_standardized, [randn(2, 2, 3, 4, 3)], {}),
    "conv_transpose1d": (
        lambda lib: lib.nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1, output_padding=1, dilation=2), [randn(2, 3, 5)], {}
    ),
    "conv_transpose1d_groups_output_size": (
        lambda lib: lib.nn.ConvTranspose1d(4, 6, 2, stride=3, groups=2, bias=False), [randn(2, 4, 5)], {"output_size": [2, 6, 16]}
    ),
    "conv_transpose1d_unbatched": (lambda lib: lib.nn.ConvTranspose1d(2, 3, 4), [randn(2, 6)], {}),
    "conv_transpose3d": (
        lambda lib: lib.nn.ConvTranspose3d(4, 2, (2, 3, 2), stride=(2, 1, 2), padding=(0, 1, 1), groups=2, dilation=(1, 2, 1)),
        [randn(2, 4, 3, 4, 3)], {},
    ),
    "conv_transpose3d_output_size_unbatched": (
        lambda lib: lib.nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1), [randn(2, 3, 2, 4)], {"output_size": [6, 4, 8]}
    ),
    "unfold": (lambda lib: lib.nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [randn(2, 3, 5, 6)], {}),
    "unfold_unbatched": (lambda lib: lib.nn.Unfold(2), [randn(3, 4, 4)], {}),
    "fold": (lambda lib: lib.nn.Fold((5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [randn(2, 18, 12)], {}),
    "fold_unbatched_overlapping": (lambda lib: lib.nn.Fold(4, 2), [randn(8, 9)], {}),
    "unfold_conv_fold": (  # the convolution written by hand, as torch's Unfold documentation shows it
        lambda lib: lib.nn.Sequential(lib.nn.Unfold(3, padding=1), lib.nn.Unflatten(1, (2, 9)), lib.nn.Flatten(1, 2),
                                      lib.nn.Fold(4, 1)),
        [randn(2, 2, 4, 4)], {},
    ),
}


@pytest.mark.parametrize("case", LAYERS.keys())
@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths:UserWarning")  # torch's, about its copy
def test_layer_matches_torch(case: str) -> None:
    factory, inputs, kwargs = LAYERS[case]
    ref, mine = make_pair(factory)
    check_against_torch(ref, mine, inputs, kwargs)


@pytest.mark.parametrize("factory", [
    lambda lib: lib.nn.Conv3d(2, 3, (2, 1, 2), padding=1, padding_mode="reflect", groups=1),
    lambda lib: lib.nn.ConvTranspose3d(2, 4, 2, stride=2, groups=2),
    lambda lib: lib.nn.ConvTranspose1d(3, 2, 3, stride=2, padding=1, output_padding=1),
])
def test_second_derivatives_match_torch(factory: Any) -> None:
    """d/d(weight, input) of the squared input gradient: the convolution's backward is itself differentiable."""
    ref, mine = make_pair(factory)
    dims = ref.weight.ndim - 2
    x = randn(2, ref.in_channels, *(3,) * dims)

    def run(lib: Any, module: Any) -> list[np.ndarray]:
        inp = lib.tensor(x, requires_grad=True)
        (g,) = lib.autograd.grad((module(inp) ** 3).sum(), inp, create_graph=True)
        grads = lib.autograd.grad((g**2).sum(), [inp, *module.parameters()])
        return [t.detach().numpy() for t in grads]

    for actual, expected in zip(run(glassgrad, mine), run(torch, ref), strict=True):
        np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("factory", [
    lambda lib: lib.nn.Conv3d(8, 16, (3, 2, 3), groups=2),
    lambda lib: lib.nn.ConvTranspose1d(6, 12, 5, groups=3),
    lambda lib: lib.nn.ConvTranspose3d(4, 8, 3),
])
def test_initialisation_is_torchs_uniform(factory: Any) -> None:
    """U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias, fan_in as torch computes it for the weight's layout."""
    ref, mine = factory(torch), factory(glassgrad)
    fan_in, _ = torch.nn.init._calculate_fan_in_and_fan_out(ref.weight)
    bound = 1 / math.sqrt(fan_in)
    for name, p in mine.named_parameters():
        values = p.detach().numpy()
        assert values.shape == tuple(getattr(ref, name).shape)
        assert np.abs(values).max() <= bound
        if name == "weight":  # enough values for the spread of a uniform to show
            assert np.abs(values).max() > 0.9 * bound
            assert abs(values.std() - bound / math.sqrt(3)) < 0.1 * bound


def test_state_dict_round_trips_into_torch() -> None:
    mine = nn.ConvTranspose3d(2, 4, 3, groups=2).double()
    ref = torch.nn.ConvTranspose3d(2, 4, 3, groups=2).double()
    ref.load_state_dict({k: torch.tensor(v.numpy()) for k, v in mine.state_dict().items()})
    x = randn(1, 2, 2, 3, 2)
    np.testing.assert_allclose(mine(glassgrad.tensor(x)).detach().numpy(), ref(torch.tensor(x)).detach().numpy(), rtol=1e-12)
    copy_from_torch(mine, ref)  # and back


ERRORS = {
    "conv3d_kernel_larger_than_input": lambda lib: lib.nn.Conv3d(2, 3, 3)(lib.zeros(2, 2, 4, 4)),
    "conv3d_wrong_rank": lambda lib: lib.nn.Conv3d(2, 3, 1)(lib.zeros(2, 4)),
    "conv3d_groups": lambda lib: lib.nn.Conv3d(3, 4, 3, groups=2),
    "conv3d_same_strided": lambda lib: lib.nn.Conv3d(3, 4, 3, stride=2, padding="same"),
    "conv_transpose_padding_mode": lambda lib: lib.nn.ConvTranspose3d(2, 2, 3, padding_mode="reflect"),
    "conv_transpose_output_size_range": lambda lib: lib.nn.ConvTranspose1d(2, 2, 3, stride=2)(lib.zeros(1, 2, 4), output_size=[12]),
    "conv_transpose_output_size_length": lambda lib: lib.nn.ConvTranspose3d(2, 2, 3)(lib.zeros(1, 2, 4, 4, 4), output_size=[6, 6]),
    "conv_transpose_output_padding": lambda lib: lib.nn.ConvTranspose3d(2, 2, 3, output_padding=(0, 1, 0))(lib.zeros(1, 2, 2, 2, 2)),
    "conv_transpose1d_output_padding": lambda lib: lib.nn.ConvTranspose1d(1, 1, 3, output_padding=2, stride=2)(lib.zeros(1, 1, 2)),
    "unfold_kernel_before_rank": lambda lib: lib.nn.Unfold(0)(lib.zeros(2, 3)),
    "unfold_rank": lambda lib: lib.nn.Unfold(2)(lib.zeros(3)),
    "unfold_empty_unbatched": lambda lib: lib.nn.Unfold(2)(lib.zeros(0, 4, 4)),
    "unfold_blocks": lambda lib: lib.nn.Unfold(3)(lib.zeros(1, 1, 2, 5)),
    "unfold_list_of_one": lambda lib: lib.nn.Unfold(2, dilation=[1])(lib.zeros(1, 1, 3, 3)),
    "unfold_stride": lambda lib: lib.nn.Unfold(2, stride=0)(lib.zeros(1, 1, 3, 3)),
    "unfold_padding": lambda lib: lib.nn.Unfold(2, padding=(0, -1))(lib.zeros(1, 1, 3, 3)),
    "fold_output_size_length": lambda lib: lib.nn.Fold([3], 2)(lib.zeros(1, 4, 4)),
    "fold_dilation": lambda lib: lib.nn.Fold(3, 2, dilation=(0, 1))(lib.zeros(1, 4, 4)),
    "fold_divisible": lambda lib: lib.nn.Fold((2, 5), (2, 3))(lib.zeros(1, 4, 3)),
    "fold_block_count": lambda lib: lib.nn.Fold(3, 2)(lib.zeros(1, 4, 5)),
    "fold_non_positive": lambda lib: lib.nn.Fold(1, 3)(lib.zeros(1, 9, 1)),  # (-1) * (-1) blocks
    "fold_empty": lambda lib: lib.nn.Fold(3, 2)(lib.zeros(1, 0, 4)),
}


@pytest.mark.parametrize("case", ERRORS.keys())
def test_errors_match_torch(case: str) -> None:
    assert_raises_like_torch(ERRORS[case])


REPRS = [
    lambda lib: lib.nn.Conv3d(3, 4, (3, 1, 2), padding="same", bias=False, padding_mode="circular"),
    lambda lib: lib.nn.ConvTranspose1d(3, 4, 3, output_padding=1, stride=2, dilation=2),
    lambda lib: lib.nn.ConvTranspose3d(2, 4, 3, groups=2, padding=(1, 0, 1)),
    lambda lib: lib.nn.Fold((4, 5), 2, padding=[1, 0]),
    lambda lib: lib.nn.Unfold((2, 3), stride=2),
]


@pytest.mark.parametrize("factory", REPRS)
def test_repr_matches_torch(factory: Any) -> None:
    assert repr(factory(glassgrad)) == repr(factory(torch))


@pytest.mark.parametrize("path", ["conv.Conv3d", "conv.ConvTranspose1d", "conv.ConvTranspose3d", "fold.Fold", "fold.Unfold"])
def test_class_paths_match_torch(path: str) -> None:
    module, name = path.split(".")
    assert getattr(nn, name) is getattr(getattr(nn.modules, module), name)
    assert getattr(nn, name).__module__ == f"glassgrad.nn.modules.{module}"
