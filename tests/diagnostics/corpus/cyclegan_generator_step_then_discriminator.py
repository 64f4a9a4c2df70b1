"""A CycleGAN-style step: the generators are stepped, then a discriminator loss backwards through them.

Source: https://github.com/cy-xu/simple_CycleGAN/issues/3
Title: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
Pattern: step between backwards: the generator's loss is backwarded with retain_graph=True and optimizer_G.step()
  updates the generator's convolution weights in place; the discriminator's loss is built on the generated image
  and its backward goes back into the generator, which needs the old weights ([3, 64, 7, 7] in the report).
Fault: optimizer_G.step() before the discriminator's backward.
Fix (the thread, after the maintainer's explanation in pytorch#39141): finish the backwards that go through the
  generator before stepping it (or detach the generated image for the discriminator).
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "order-step-after-backward",
}

torch.manual_seed(0)
G_AB = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(4, 3, 3, padding=1))
G_BA = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(4, 3, 3, padding=1))
D_B = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, stride=2), torch.nn.LeakyReLU(0.2), torch.nn.Flatten(), torch.nn.Linear(36, 1))
optimizer_G = torch.optim.Adam([*G_AB.parameters(), *G_BA.parameters()], lr=2e-4)
optimizer_D = torch.optim.Adam(D_B.parameters(), lr=2e-4)
real_A, real_B = torch.randn(2, 3, 8, 8), torch.randn(2, 3, 8, 8)
fake_B = G_AB(real_A)
loss_G = ((D_B(fake_B) - 1) ** 2).mean() + (G_BA(fake_B) - real_A).abs().mean()
optimizer_G.zero_grad()
loss_G.backward(retain_graph=True)
optimizer_G.step()  # <- culprit
loss_D = ((D_B(real_B) - 1) ** 2).mean() + (D_B(fake_B) ** 2).mean()
optimizer_D.zero_grad()
loss_D.backward()
optimizer_D.step()
