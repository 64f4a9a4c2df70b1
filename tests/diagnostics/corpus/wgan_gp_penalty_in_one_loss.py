"""WGAN-GP: the gradient penalty from autograd.grad(create_graph=True), added to the critic loss, one backward.

Source: https://github.com/caogang/wgan-gp/issues/21
Title: Memory Leak
Pattern: correct program: the form the thread recommends (reset the gradients, sum the real, fake and penalty
  terms, backward once); the penalty's double backward is freed with the rest of the iteration's graph.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
critic = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
optimizer = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9))


def compute_gradient_penalty(real: torch.Tensor, fake: torch.Tensor) -> torch.Tensor:
    alpha = torch.rand(real.size(0), 1)
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(interpolates)
    gradients = torch.autograd.grad(scores, interpolates, torch.ones_like(scores), create_graph=True, retain_graph=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * 10


for _iteration in range(5):
    real, fake = torch.randn(16, 8) + 1, torch.randn(16, 8)
    critic.zero_grad()
    loss = critic(fake).mean() - critic(real).mean() + compute_gradient_penalty(real, fake)
    loss.backward()
    optimizer.step()
