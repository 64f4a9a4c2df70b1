"""WGAN: the critic trained several times per generator step on detached fakes, weights clipped in place.

Source: https://github.com/eriklindernoren/PyTorch-GAN/issues/151
Title: Use of detach
Pattern: correct program: `fake_imgs = generator(z).detach()` for the critic (the real images need no detach:
  they never required grad); the critic's weights are clipped in place after its step, outside any graph still
  needed; every n_critic steps the generator trains on fresh fakes.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
generator = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 8))
discriminator = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.LeakyReLU(0.2), torch.nn.Linear(16, 1))
optimizer_G = torch.optim.RMSprop(generator.parameters(), lr=5e-5)
optimizer_D = torch.optim.RMSprop(discriminator.parameters(), lr=5e-5)
n_critic = 3
for i in range(9):
    real_imgs = torch.randn(12, 8)
    optimizer_D.zero_grad()
    fake_imgs = generator(torch.randn(12, 4)).detach()
    loss_D = -torch.mean(discriminator(real_imgs)) + torch.mean(discriminator(fake_imgs))
    loss_D.backward()
    optimizer_D.step()
    for p in discriminator.parameters():
        p.data.clamp_(-0.01, 0.01)
    if i % n_critic == 0:
        optimizer_G.zero_grad()
        loss_G = -torch.mean(discriminator(generator(torch.randn(12, 4))))
        loss_G.backward()
        optimizer_G.step()
