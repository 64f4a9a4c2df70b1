"""A GAN that steps the discriminator between the two backwards that go through it.

Source: https://github.com/pytorch/pytorch/issues/39141
Title: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation?
Pattern: step between backwards: D's loss and G's loss share D's forward on the fake paintings; D's backward
  retains the graph, opt_D.step() then changes D's weights in place, and G's backward needs the old ones
  (PyTorch 1.5 started checking this; 1.4 silently used the new weights).
Fault: opt_D.step() before G's backward.
Fix (the maintainer's answer): run G's backward before opt_D.step() (or recompute D's forward on the fakes after
  the step).
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "order-step-after-backward",
}

torch.manual_seed(0)
G = torch.nn.Sequential(torch.nn.Linear(5, 32), torch.nn.ReLU(), torch.nn.Linear(32, 15))
D = torch.nn.Sequential(torch.nn.Linear(15, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1), torch.nn.Sigmoid())
opt_D = torch.optim.Adam(D.parameters(), lr=1e-4)
opt_G = torch.optim.Adam(G.parameters(), lr=1e-4)
points = torch.linspace(-1, 1, 15).expand(16, 15)
for _step in range(2):
    artist_paintings = torch.sin(points * torch.pi) + 0.02 * torch.randn(16, 15)
    G_paintings = G(torch.randn(16, 5))
    prob_artist0 = D(artist_paintings)
    prob_artist1 = D(G_paintings)
    D_loss = -torch.mean(torch.log(prob_artist0) + torch.log(1.0 - prob_artist1))
    G_loss = torch.mean(torch.log(1.0 - prob_artist1))
    opt_D.zero_grad()
    D_loss.backward(retain_graph=True)
    opt_D.step()  # <- culprit
    opt_G.zero_grad()
    G_loss.backward()
    opt_G.step()
