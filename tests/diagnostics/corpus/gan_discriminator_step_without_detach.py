"""A GAN whose discriminator loss uses the generator's output without detach(): the generator step then fails.

Source: https://github.com/pytorch/examples/issues/116
Title: why is detach necessary
Pattern: shared subgraph: the discriminator's backward goes through the generator too and frees its graph; the
  generator's loss, built from the same `fake`, then backwards through the freed generator (a comment in the
  thread reports exactly this error after leaving out the detach).
Fault: the discriminator loss built from `fake` rather than `fake.detach()`.
Fix (the thread): `netD(fake.detach())` in the discriminator's loss.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "detach-input"}

torch.manual_seed(0)
netG = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 8), torch.nn.Tanh())
netD = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.LeakyReLU(0.2), torch.nn.Linear(16, 1))
optD = torch.optim.Adam(netD.parameters(), lr=2e-4)
optG = torch.optim.Adam(netG.parameters(), lr=2e-4)
bce = torch.nn.BCEWithLogitsLoss()
for _step in range(2):
    real = torch.randn(12, 8)
    fake = netG(torch.randn(12, 4))
    netD.zero_grad()
    errD = bce(netD(real), torch.ones(12, 1)) + bce(netD(fake), torch.zeros(12, 1))  # <- culprit
    errD.backward()
    optD.step()
    netG.zero_grad()
    errG = bce(netD(fake), torch.ones(12, 1))
    errG.backward()
    optG.step()
