"""A tabular GAN's discriminator step: the gradient penalty backwarded with retain_graph=True, then the WGAN loss.

Source: https://github.com/sdv-dev/CTGAN/issues/37
Title: Retention of gradient penalty Graph
Pattern: correct program: the penalty and the discriminator loss both go through the generator's output (the fake
  rows are not detached), so the first backward must keep the shared graph for the second; the maintainer
  explained retain_graph is needed there, and the second backward frees everything.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}


def gradient_penalty(critic: torch.nn.Module, real: torch.Tensor, fake: torch.Tensor) -> torch.Tensor:
    alpha = torch.rand(real.size(0), 1)
    interpolates = alpha * real + (1 - alpha) * fake
    scores = critic(interpolates)
    gradients = torch.autograd.grad(scores, interpolates, torch.ones_like(scores), create_graph=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * 10


torch.manual_seed(0)
generator = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 6))
critic = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.LeakyReLU(0.2), torch.nn.Linear(16, 1))
optimizer_g = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.9))
optimizer_d = torch.optim.Adam(critic.parameters(), lr=2e-4, betas=(0.5, 0.9))
for _step in range(4):
    real = torch.randn(10, 6)
    fake = torch.tanh(generator(torch.randn(10, 8)))
    pen = gradient_penalty(critic, real, fake)
    loss_d = -(critic(real).mean() - critic(fake).mean())
    optimizer_d.zero_grad()
    pen.backward(retain_graph=True)
    loss_d.backward()
    optimizer_d.step()
    loss_g = -critic(torch.tanh(generator(torch.randn(10, 8)))).mean()
    optimizer_g.zero_grad()
    loss_g.backward()
    optimizer_g.step()
