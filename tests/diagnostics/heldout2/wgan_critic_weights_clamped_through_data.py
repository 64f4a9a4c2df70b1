"""A Wasserstein GAN that clips the critic's weights through `.data` before each critic update.

Source: https://github.com/martinarjovsky/WassersteinGAN/issues/50
Title: Clip too early
Pattern: correct program: `p.data.clamp_(-c, c)` changes the parameters in place outside autograd, before the critic's
  forward pass; the fake batch is detached for the critic's loss, and the generator's step builds its own graph. The
  issue is about when the clipping happens relative to the step, not about the graph.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
net_g = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
net_d = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
optimizer_d = torch.optim.RMSprop(net_d.parameters(), lr=5e-5)
optimizer_g = torch.optim.RMSprop(net_g.parameters(), lr=5e-5)
for _generator_iteration in range(3):
    for p in net_d.parameters():
        p.requires_grad = True
    for _critic_iteration in range(5):
        for p in net_d.parameters():
            p.data.clamp_(-0.01, 0.01)
        real = torch.randn(16, 2) + 1.0
        fake = net_g(torch.randn(16, 4)).detach()
        err_d = net_d(fake).mean() - net_d(real).mean()
        optimizer_d.zero_grad()
        err_d.backward()
        optimizer_d.step()
    for p in net_d.parameters():
        p.requires_grad = False
    err_g = -net_d(net_g(torch.randn(16, 4))).mean()
    optimizer_g.zero_grad()
    err_g.backward()
    optimizer_g.step()
