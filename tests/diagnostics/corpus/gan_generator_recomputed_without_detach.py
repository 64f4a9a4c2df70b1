"""A GAN that does not detach the fakes for the discriminator, and generates new fakes for the generator's step.

Source: https://github.com/yunjey/pytorch-tutorial/issues/56
Title: Potential bug of GAN example
Pattern: correct program: the discriminator's loss uses `G(z)` without detach (its backward also fills the
  generator's .grad, which is cleared before the generator's step); the generator's step makes a fresh `G(z)`, so
  no graph is used twice.
Fault: none.
Fix: correct program: no warning expected (the author: detach would only save time).
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
G = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 16), torch.nn.Tanh())
D = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.LeakyReLU(0.2), torch.nn.Linear(32, 1), torch.nn.Sigmoid())
criterion = torch.nn.BCELoss()
d_optimizer = torch.optim.Adam(D.parameters(), lr=2e-4)
g_optimizer = torch.optim.Adam(G.parameters(), lr=2e-4)
real_labels, fake_labels = torch.ones(10, 1), torch.zeros(10, 1)
for _step in range(6):
    images = torch.rand(10, 16) * 2 - 1
    fake_images = G(torch.randn(10, 8))
    d_loss = criterion(D(images), real_labels) + criterion(D(fake_images), fake_labels)
    d_optimizer.zero_grad()
    g_optimizer.zero_grad()
    d_loss.backward()
    d_optimizer.step()
    fake_images = G(torch.randn(10, 8))
    g_loss = criterion(D(fake_images), real_labels)
    d_optimizer.zero_grad()
    g_optimizer.zero_grad()
    g_loss.backward()
    g_optimizer.step()
