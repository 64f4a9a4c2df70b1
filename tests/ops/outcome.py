"""What one call does, in torch and in glassgrad, as a value that compares equal when the two behave alike.

A tensor result is described by its dtype, shape, values, requires_grad, grad_fn's name and whether it is a
view (has a `_base`); an exception by its type; warnings by their categories. Expected outcomes always come
from running the call on torch.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch

import glassgrad

Call = Callable[[Any], Any]  # call(m) for m in (torch, glassgrad)


def describe(result: Any) -> Any:
    if isinstance(result, (torch.Tensor, glassgrad.Tensor)):
        node = result.grad_fn
        name = None if node is None else type(node).__name__
        values = repr(result.detach().numpy().tolist())  # repr: nan equals nan, and float32 values compare exactly
        return ("tensor", str(result.dtype).rpartition(".")[2], tuple(result.shape), values, result.requires_grad, name,
                result._base is not None)
    if isinstance(result, (torch.Size, glassgrad.Size)):
        return ("size", tuple(result))
    if isinstance(result, (tuple, list)):
        return [describe(r) for r in result]
    if isinstance(result, (torch.dtype, glassgrad.dtype)):
        return ("dtype", str(result).rpartition(".")[2])
    return result


def outcome(m: Any, call: Call) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            described = describe(call(m))
        except Exception as err:  # which calls each library rejects is part of the comparison
            described = ("raises", type(err).__name__)
    return described, sorted({w.category.__name__ for w in caught})


def assert_same_outcome(call: Call) -> None:
    expected = outcome(torch, call)
    actual = outcome(glassgrad, call)
    assert actual == expected, f"torch: {expected}\nglassgrad: {actual}"
