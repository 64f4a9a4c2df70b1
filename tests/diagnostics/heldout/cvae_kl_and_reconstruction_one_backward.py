"""A conditional VAE whose reconstruction and KL terms are summed and backwarded once.

Source: https://github.com/wiseodd/generative-models/issues/29
Title: Question about KLLoss.
Pattern: correct program: the asker expected to route the KL term's gradient to the encoder by hand; the answer:
  the KL term depends only on the encoder's output, so one `loss.backward()` on the sum gives each part its
  gradient.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
encoder, decoder = torch.nn.Linear(16 + 3, 2 * 4), torch.nn.Linear(4 + 3, 16)
optimizer = torch.optim.Adam([*encoder.parameters(), *decoder.parameters()], lr=1e-3)
for _iteration in range(6):
    x, c = torch.rand(8, 16), torch.nn.functional.one_hot(torch.randint(0, 3, (8,)), 3).float()
    z_mu, z_var = encoder(torch.cat([x, c], 1)).chunk(2, dim=1)
    z = z_mu + torch.exp(z_var / 2) * torch.randn_like(z_mu)
    x_sample = torch.sigmoid(decoder(torch.cat([z, c], 1)))
    recon_loss = torch.nn.functional.binary_cross_entropy(x_sample, x, reduction="sum") / x.size(0)
    kl_loss = torch.mean(0.5 * torch.sum(torch.exp(z_var) + z_mu**2 - 1.0 - z_var, 1))
    loss = recon_loss + kl_loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
