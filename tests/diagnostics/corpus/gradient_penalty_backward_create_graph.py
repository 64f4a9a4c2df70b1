"""WGAN-GP whose gradient penalty takes the critic's input gradient with backward(create_graph=True).

Source: https://github.com/akanimax/pro_gan_pytorch/pull/12
Title: Fix memory leak
Pattern: double backward through .grad: the penalty is computed from `merged.grad` after
  `op.backward(create_graph=True)`; the critic's parameters receive create_graph gradients too, and memory grew
  with each batch until out of memory (pytorch#4661).
Fault: backward(create_graph=True) to get the input gradient.
Fix (the PR): `torch.autograd.grad(outputs=op, inputs=merged, grad_outputs=..., create_graph=True)`.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "autograd-grad"}

torch.manual_seed(0)
critic = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.LeakyReLU(0.2), torch.nn.Linear(16, 1))
optimizer = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.99))
for _step in range(5):
    optimizer.zero_grad()
    real, fake = torch.randn(6, 8), torch.randn(6, 8)
    epsilon = torch.rand(6, 1)
    merged = (epsilon * real + (1 - epsilon) * fake).requires_grad_()
    op = critic(merged)
    op.backward(torch.ones_like(op), create_graph=True)  # <- culprit
    gradient = merged.grad
    penalty = 10 * ((gradient.norm(2, dim=1) - 1) ** 2).mean()
    loss = critic(fake).mean() - critic(real).mean() + penalty
    loss.backward()
    optimizer.step()
