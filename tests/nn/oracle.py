"""Run one layer in glassgrad and in PyTorch with the same weights and inputs, and compare everything."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import glassgrad

Factory = Callable[[Any], Any]  # lib (glassgrad or torch) -> module


def copy_from_torch(module: glassgrad.nn.Module, reference: torch.nn.Module) -> None:
    module.load_state_dict({k: glassgrad.tensor(v.detach().numpy()) for k, v in reference.state_dict().items()})


def convert(lib: Any, value: Any, leaves: list[Any]) -> Any:
    """numpy arrays (nested in tuples/lists) as lib tensors; floating ones require grad and are collected in leaves."""
    if isinstance(value, (tuple, list)):
        return type(value)(convert(lib, v, leaves) for v in value)
    if isinstance(value, dict):
        return {k: convert(lib, v, leaves) for k, v in value.items()}
    if not isinstance(value, np.ndarray):
        return value
    floating = value.dtype.kind == "f"
    t = lib.tensor(value, requires_grad=floating)
    if floating:
        leaves.append(t)
    return t


def flatten(out: Any) -> list[Any]:
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flatten(o)]
    return [] if out is None else [out]


def make_pair(factory: Factory, randomize: bool = True) -> tuple[torch.nn.Module, glassgrad.nn.Module]:
    """The torch layer (float64, parameters randomized so that every gradient path matters) and its glassgrad copy."""
    torch.manual_seed(0)
    ref = factory(torch).double()
    if randomize:
        with torch.no_grad():
            for p in ref.parameters():
                p.copy_(torch.randn_like(p) * 0.5)
    mine = factory(glassgrad).double()
    assert [(k, tuple(v.shape)) for k, v in mine.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in ref.state_dict().items()
    ]
    copy_from_torch(mine, ref)
    return ref, mine


def assert_close(actual: Any, expected: Any, what: str, rtol: float = 1e-9, atol: float = 1e-11) -> None:
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=rtol, atol=atol, err_msg=what)


def check_against_torch(
    ref: torch.nn.Module, mine: glassgrad.nn.Module, inputs: list[Any], kwargs: dict[str, Any] | None = None,
    rtol: float = 1e-9,
) -> None:
    """Same outputs, same parameter gradients and same input gradients for a random upstream gradient."""
    kwargs = kwargs or {}
    ref_leaves: list[Any] = []
    leaves: list[Any] = []
    out_ref = flatten(ref(*convert(torch, inputs, ref_leaves), **convert(torch, kwargs, ref_leaves)))
    out = flatten(mine(*convert(glassgrad, inputs, leaves), **convert(glassgrad, kwargs, leaves)))
    assert [tuple(o.shape) for o in out] == [tuple(o.shape) for o in out_ref]
    for i, (o, o_ref) in enumerate(zip(out, out_ref, strict=True)):
        assert_close(o.detach().numpy(), o_ref.detach().numpy(), f"output {i}")
    rng = np.random.default_rng(1)
    upstream = [rng.standard_normal(tuple(o.shape)) for o in out_ref]
    sum(((o * torch.tensor(u)).sum() for o, u in zip(out_ref, upstream, strict=True) if o.requires_grad)).backward()
    sum(((o * glassgrad.tensor(u)).sum() for o, u in zip(out, upstream, strict=True) if o.requires_grad)).backward()
    ref_grads = {k: p.grad for k, p in ref.named_parameters()}
    grads = {k: p.grad for k, p in mine.named_parameters()}
    assert grads.keys() == ref_grads.keys()
    for k in grads:
        assert (grads[k] is None) == (ref_grads[k] is None), k
        if grads[k] is not None:
            assert_close(grads[k].numpy(), ref_grads[k].numpy(), f"grad of {k}", rtol=rtol)
    for i, (leaf, leaf_ref) in enumerate(zip(leaves, ref_leaves, strict=True)):
        assert (leaf.grad is None) == (leaf_ref.grad is None), f"input {i}"
        if leaf.grad is not None:
            assert_close(leaf.grad.numpy(), leaf_ref.grad.numpy(), f"grad of input {i}", rtol=rtol)


def assert_raises_like_torch(call: Callable[[Any], Any], match_message: bool = True) -> None:
    """call(torch) raises; call(glassgrad) raises the same exception type with the same message (torch named glassgrad)."""
    try:
        call(torch)
    except Exception as ref_err:  # whatever torch raises is the expectation
        expected = ref_err
    else:
        raise AssertionError("torch did not raise, so there is nothing to compare with")
    try:
        call(glassgrad)
    except Exception as err:
        assert type(err) is type(expected), f"{type(err).__name__}: {err} != {type(expected).__name__}: {expected}"
        if match_message:
            assert str(err).replace("glassgrad", "torch") == str(expected)
    else:
        raise AssertionError(f"glassgrad did not raise; torch raised {type(expected).__name__}: {expected}")
