"""WGAN-GP critic steps that backward the real term, the fake term and the gradient penalty separately.

Source: https://github.com/caogang/wgan-gp/issues/9
Title: should it be D_real.backward(one)?
Pattern: correct program: three backward calls per critic step and none with retain_graph; asked why, the author
  answered that the fakes are produced without a graph to the generator and the penalty keeps its own graph
  through autograd.grad, so each backward has a graph of its own.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
netG = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
netD = torch.nn.Sequential(torch.nn.Linear(2, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
optimizerD = torch.optim.Adam(netD.parameters(), lr=1e-4, betas=(0.5, 0.9))
optimizerG = torch.optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.9))
one, mone = torch.tensor(1.0), torch.tensor(-1.0)
for _iteration in range(3):
    for _critic_iter in range(3):
        real = torch.randn(16, 2)
        netD.zero_grad()
        netD(real).mean().backward(mone)
        with torch.no_grad():
            fake = netG(torch.randn(16, 8))
        netD(fake).mean().backward(one)
        alpha = torch.rand(16, 1)
        interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        disc_interpolates = netD(interpolates)
        gradients = torch.autograd.grad(
            disc_interpolates, interpolates, torch.ones_like(disc_interpolates), create_graph=True, retain_graph=True
        )[0]
        gradient_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean() * 10
        gradient_penalty.backward()
        optimizerD.step()
    netG.zero_grad()
    netD(netG(torch.randn(16, 8))).mean().backward(mone)
    optimizerG.step()
