"""nn.init's dirac_ and sparse_, and PyTorch's deprecated names without the underscore, against PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle


@pytest.mark.parametrize(("shape", "groups"), [((4, 3, 3), 1), ((6, 2, 3, 3), 2), ((4, 4, 1, 3, 3), 1), ((2, 5, 4), 1)])
def test_dirac_matches_pytorch(shape: tuple[int, ...], groups: int) -> None:
    ours = glassgrad.nn.init.dirac_(glassgrad.empty(shape), groups)
    theirs = torch.nn.init.dirac_(torch.empty(shape), groups)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize(("shape", "groups"), [((2, 3), 1), ((3, 2, 3), 2)])
def test_dirac_refuses_as_pytorch_does(shape: tuple[int, ...], groups: int) -> None:
    with pytest.raises(ValueError) as theirs:
        torch.nn.init.dirac_(torch.empty(shape), groups)
    with pytest.raises(ValueError, match=str(theirs.value)):
        glassgrad.nn.init.dirac_(glassgrad.empty(shape), groups)


def test_dirac_is_the_identity_convolution() -> None:
    conv = glassgrad.nn.Conv2d(3, 3, 3, padding=1, bias=False)
    glassgrad.nn.init.dirac_(conv.weight)
    x = glassgrad.randn(1, 3, 5, 5)
    np.testing.assert_allclose(conv(x).detach().numpy(), x.numpy(), atol=1e-6)


@pytest.mark.parametrize("sparsity", [0.0, 0.3, 0.5, 1.0])
def test_sparse_zeroes_the_same_number_of_entries_per_column(sparsity: float) -> None:
    weight = glassgrad.nn.init.sparse_(glassgrad.empty(10, 6), sparsity, std=0.5)
    reference = torch.nn.init.sparse_(torch.empty(10, 6), sparsity, std=0.5)
    ours, theirs = (weight.numpy() == 0).sum(0), (reference.numpy() == 0).sum(0)
    np.testing.assert_array_equal(ours, theirs)
    assert (ours == math.ceil(sparsity * 10)).all()


def test_sparse_refuses_other_than_two_dimensions() -> None:
    with pytest.raises(ValueError) as theirs:
        torch.nn.init.sparse_(torch.empty(3), 0.5)
    with pytest.raises(ValueError, match=str(theirs.value)):
        glassgrad.nn.init.sparse_(glassgrad.empty(3), 0.5)


def test_initialisers_record_no_graph_and_bump_the_version() -> None:
    weight = glassgrad.nn.Parameter(glassgrad.empty(3, 2, 3))
    before = weight._version
    glassgrad.nn.init.dirac_(weight)
    assert weight.grad_fn is None and weight._version > before


@pytest.mark.parametrize("name", ["uniform", "normal", "constant", "xavier_uniform", "kaiming_normal", "orthogonal"])
def test_deprecated_names_warn_as_pytorch_does_and_initialise(name: str) -> None:
    args = (0.5,) if name == "constant" else ()
    with pytest.warns(FutureWarning) as theirs:
        getattr(torch.nn.init, name)(torch.empty(3, 4), *args)
    with pytest.warns(FutureWarning, match=str(theirs[0].message).replace("`", ".")) as ours:
        result = getattr(glassgrad.nn.init, name)(glassgrad.empty(3, 4), *args)
    assert ours[0].filename == __file__
    assert result.shape == (3, 4)
