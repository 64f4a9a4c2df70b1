"""Pooling, unpooling and padding modules against PyTorch: outputs, input gradients, reprs and errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from .oracle import assert_close, assert_raises_like_torch, check_against_torch, make_pair

pytestmark = pytest.mark.torch_oracle
RNG = np.random.default_rng(0)
X1, X2, X3 = RNG.standard_normal((2, 3, 9)), RNG.standard_normal((2, 3, 7, 8)), RNG.standard_normal((2, 2, 5, 6, 7))

POOLS: dict[str, tuple[Any, np.ndarray]] = {
    "MaxPool3d": (lambda nn: nn.MaxPool3d((2, 3, 2), stride=(1, 2, 2), padding=1, ceil_mode=True), X3),
    "MaxPool3d_indices": (lambda nn: nn.MaxPool3d(2, return_indices=True), X3),
    "AvgPool1d": (lambda nn: nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False), X1),
    "AvgPool3d": (lambda nn: nn.AvgPool3d(2, stride=1, divisor_override=5), X3),
    "AvgPool3d_ceil": (lambda nn: nn.AvgPool3d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False), X3),
    "LPPool1d": (lambda nn: nn.LPPool1d(2, 3, stride=2), X1),
    "LPPool2d": (lambda nn: nn.LPPool2d(1.5, (2, 3), ceil_mode=True), np.abs(X2) + 0.1),
    "LPPool3d": (lambda nn: nn.LPPool3d(3, 2), X3),
    "AdaptiveAvgPool3d": (lambda nn: nn.AdaptiveAvgPool3d((3, None, 2)), X3),
    "AdaptiveMaxPool2d": (lambda nn: nn.AdaptiveMaxPool2d((3, 5), return_indices=True), X2),
    "AdaptiveMaxPool3d": (lambda nn: nn.AdaptiveMaxPool3d(2), X3),
}


def _samples(nn: Any, n: int) -> Any:
    lib = torch if nn is torch.nn else glassgrad
    return lib.tensor(np.random.default_rng(5).random((2, X2.shape[1] if n == 2 else X3.shape[1], n)), dtype=lib.float64)


@pytest.mark.parametrize("name", POOLS)
def test_pooling_module_matches_torch(name: str) -> None:
    factory, x = POOLS[name]
    ref, mine = make_pair(lambda lib: factory(lib.nn))
    assert repr(mine) == repr(ref)
    check_against_torch(ref, mine, [x])


@pytest.mark.parametrize(("cls", "n"), [("FractionalMaxPool2d", 2), ("FractionalMaxPool3d", 3)])
def test_fractional_max_pool_module_draws_from_glassgrad_generator(cls: str, n: int) -> None:
    x = X2 if n == 2 else X3
    glassgrad.manual_seed(3)
    drawn = glassgrad.rand(x.shape[0], x.shape[1], n, dtype=glassgrad.float64)  # what the module draws: (N, C, n)
    glassgrad.manual_seed(3)
    mine = getattr(glassgrad.nn, cls)(2, output_ratio=0.5, return_indices=True)
    ref = getattr(torch.nn, cls)(2, output_ratio=0.5, return_indices=True, _random_samples=torch.tensor(drawn.numpy()))
    check_against_torch(ref, mine, [x])
    fixed = getattr(glassgrad.nn, cls)(2, output_size=3, _random_samples=_samples(glassgrad.nn, n))
    assert "_random_samples" in dict(fixed.named_buffers())
    ref_fixed = getattr(torch.nn, cls)(2, output_size=3, _random_samples=_samples(torch.nn, n))
    check_against_torch(ref_fixed, fixed, [x])


@pytest.mark.parametrize("kwargs", [{}, {"output_size": 2, "output_ratio": 0.5}, {"output_ratio": 1.5}])
def test_fractional_max_pool_module_argument_errors(kwargs: dict[str, Any]) -> None:
    assert_raises_like_torch(lambda lib: lib.nn.FractionalMaxPool2d(2, **kwargs))


@pytest.mark.parametrize(("pool_cls", "unpool_cls", "x"), [
    ("MaxPool1d", "MaxUnpool1d", X1), ("MaxPool2d", "MaxUnpool2d", X2), ("MaxPool3d", "MaxUnpool3d", X3),
])
def test_max_unpool_module_inverts_max_pool_like_torch(pool_cls: str, unpool_cls: str, x: np.ndarray) -> None:
    results = []
    for lib in (torch, glassgrad):
        pool = getattr(lib.nn, pool_cls)(2, stride=2, return_indices=True)
        unpool = getattr(lib.nn, unpool_cls)(2, stride=2)
        xt = lib.tensor(x, requires_grad=True)
        out, indices = pool(xt)
        restored = unpool(out, indices, output_size=xt.shape)
        restored.pow(3).sum().backward()
        results.append((repr(unpool), restored.detach().numpy(), xt.grad.numpy()))
    assert results[0][0] == results[1][0]
    assert_close(results[1][1], results[0][1], "unpooled")
    assert_close(results[1][2], results[0][2], "gradient")


PADS = [
    ("ZeroPad1d", (2,)), ("ZeroPad2d", ((1, 0, 2, 1),)), ("ZeroPad3d", (1,)),
    ("ConstantPad1d", ((1, 2), 0.5)), ("ConstantPad2d", (1, -1.5)), ("ConstantPad3d", ((0, 1, 2, 0, 1, 1), 2.0)),
    ("ReflectionPad1d", ((2, 1),)), ("ReflectionPad2d", (2,)), ("ReflectionPad3d", ((1, 0, 0, 2, 1, 1),)),
    ("ReplicationPad1d", (3,)), ("ReplicationPad2d", ((0, 3, 1, 2),)), ("ReplicationPad3d", (1,)),
    ("CircularPad1d", ((1, 2),)), ("CircularPad2d", (1,)), ("CircularPad3d", ((1, 1, 0, 2, 1, 0),)),
]


@pytest.mark.parametrize(("name", "args"), PADS, ids=[name for name, _ in PADS])
def test_padding_module_matches_torch(name: str, args: tuple[Any, ...]) -> None:
    dims = int(name[-2])
    ref, mine = make_pair(lambda lib: getattr(lib.nn, name)(*args))
    assert repr(mine) == repr(ref)
    assert isinstance(mine, glassgrad.nn.ConstantPad1d) == isinstance(ref, torch.nn.ConstantPad1d)
    x = (X1, X2, X3)[dims - 1]
    check_against_torch(ref, mine, [x])
    check_against_torch(ref, mine, [x[0]])  # unbatched


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.CircularPad2d(1)(lib.zeros(3, 3)),  # rank
    lambda lib: lib.nn.ReflectionPad1d(3)(lib.zeros(1, 1, 3)),  # reflected past the edge
    lambda lib: lib.nn.ReplicationPad2d(1)(lib.zeros(1, 1, 1, 0, 2)),
])
def test_padding_module_errors_like_torch(call: Any) -> None:
    assert_raises_like_torch(call, match_message=False)
