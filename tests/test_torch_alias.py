"""`import torch` as glassgrad (glassgrad run, doctor): importing a submodule leaves its package's attributes as they
are, as importing PyTorch's own does."""

from __future__ import annotations

import importlib
import types

import glassgrad
from glassgrad.torch_alias import torch_is_glassgrad


def _gradcheck_after_importing_its_module() -> object:
    torch = importlib.import_module("torch")
    importlib.import_module("torch.autograd.gradcheck")
    return torch.autograd.gradcheck


def test_importing_a_submodule_keeps_the_function_of_the_same_name() -> None:
    expected = _gradcheck_after_importing_its_module()  # real PyTorch: the function, not the module
    assert isinstance(expected, types.FunctionType)
    function = glassgrad.autograd.gradcheck
    try:
        with torch_is_glassgrad():
            assert _gradcheck_after_importing_its_module() is function
    finally:
        glassgrad.autograd.gradcheck = function  # this test's failure must not leave the module in its place
