"""MAML whose memory grows with the number of adaptation steps (within one meta step), not with training time.

Source: https://github.com/tristandeleu/pytorch-maml/issues/21
Title: OOM in "def adapt"
Pattern: correct program: `adapt` runs num_adaptation_steps inner updates with create_graph=True; the meta
  gradient has to backpropagate through all of them, so memory scales with the steps, and is freed after each
  outer step (the maintainer's answer).
Fault: none.
Fix: correct program: no warning expected.
"""

import torch
from torch.func import functional_call

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1, 40), torch.nn.ReLU(), torch.nn.Linear(40, 1))
meta_optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


def adapt(inputs: torch.Tensor, targets: torch.Tensor, num_adaptation_steps: int) -> dict[str, torch.Tensor]:
    params = dict(model.named_parameters())
    for _step in range(num_adaptation_steps):
        inner_loss = torch.nn.functional.mse_loss(functional_call(model, params, (inputs,)), targets)
        grads = torch.autograd.grad(inner_loss, params.values(), create_graph=True)
        params = {name: p - 0.4 * g for (name, p), g in zip(params.items(), grads, strict=True)}
    return params


for _batch in range(4):
    meta_optimizer.zero_grad()
    amplitude, phase = torch.rand(1) * 4 + 1, torch.rand(1) * 3
    train_x, test_x = torch.rand(5, 1) * 10 - 5, torch.rand(5, 1) * 10 - 5
    params = adapt(train_x, amplitude * torch.sin(train_x - phase), num_adaptation_steps=5)
    outer_loss = torch.nn.functional.mse_loss(functional_call(model, params, (test_x,)), amplitude * torch.sin(test_x - phase))
    outer_loss.backward()
    meta_optimizer.step()
