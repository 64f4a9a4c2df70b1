"""A GAN whose discriminator step sees the generator's output through detach(); the generator step does not.

Source: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/388
Title: In the function backward_D_basic, why operate detach() for fake???
Pattern: correct program: a GAN whose discriminator loss uses `fake.detach()` and whose generator loss reuses the
  same `fake` afterwards. The asker asked why only `fake` is detached; the detach keeps the discriminator's backward out of
  the generator (and keeps the generator's graph for the generator's own backward).
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
netG = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 8))
netD = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.LeakyReLU(0.2), torch.nn.Linear(16, 1))
optD = torch.optim.Adam(netD.parameters(), lr=2e-4)
optG = torch.optim.Adam(netG.parameters(), lr=2e-4)
bce = torch.nn.BCEWithLogitsLoss()
ones, zeros = torch.ones(12, 1), torch.zeros(12, 1)
for _step in range(6):
    real = torch.randn(12, 8) + 2
    fake = netG(torch.randn(12, 4))
    optD.zero_grad()
    loss_d = bce(netD(real), ones) + bce(netD(fake.detach()), zeros)
    loss_d.backward()
    optD.step()
    optG.zero_grad()
    loss_g = bce(netD(fake), ones)
    loss_g.backward()
    optG.step()
