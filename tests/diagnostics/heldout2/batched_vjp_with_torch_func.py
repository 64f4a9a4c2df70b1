"""Vector-Jacobian products of a batch computed with torch.func's vjp under vmap, checked against a loop.

Source: https://github.com/pytorch/functorch/issues/922
Title: torch.autograd.functional.vjp returns 0 gradients when executed in vmap
Pattern: correct program: following the maintainer's answer, the batched VJPs use the functional transform
  (`torch.func.vjp` inside `torch.func.vmap`) rather than torch.autograd.functional.vjp; every batch builds and
  consumes its own small graphs, and only the plain results are kept.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}


def exp_reducer(x: torch.Tensor) -> torch.Tensor:
    return x.exp().sum(dim=1)


def vjp_of_exp_reducer(x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    _, vjp_fn = torch.func.vjp(exp_reducer, x)
    return vjp_fn(v)[0]


torch.manual_seed(0)
v = torch.ones(4)
max_errors = []
for _batch in range(3):
    inputs = torch.rand(10, 4, 4)
    batched = torch.func.vmap(vjp_of_exp_reducer, in_dims=(0, None))(inputs, v)
    looped = torch.stack([vjp_of_exp_reducer(x, v) for x in inputs])
    max_errors.append(float((batched - looped).abs().max()))
