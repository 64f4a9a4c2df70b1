"""A VAE with an attribute discriminator where every backward got retain_graph=True, the last one too.

Source: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/issues/9
Title: Memory blow up when setting retain_graph = True
Pattern: retain_graph sprinkled in: retain_graph=True (the fix suggested for the earlier "second time" error) is
  passed to every backward, including the last one over the graph, which keeps saved tensors that no later
  backward uses.
Fault: retain_graph=True on the last backward over the graph.
Fix (the issue): keep retain_graph=True only on backwards before the last one over the same graph; drop it on the
  last.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "remove-retain-graph"}

torch.manual_seed(0)
encoder, decoder = torch.nn.Linear(10, 4), torch.nn.Linear(4, 10)
discriminator = torch.nn.Linear(4, 2)
optimizer = torch.optim.Adam([*encoder.parameters(), *decoder.parameters(), *discriminator.parameters()], lr=1e-3)
for _batch in range(4):
    x, attr = torch.randn(8, 10), torch.randint(0, 2, (8,))
    z = torch.tanh(encoder(x))
    vae_loss = torch.nn.functional.mse_loss(decoder(z), x)
    attr_loss = torch.nn.functional.cross_entropy(discriminator(z), attr)
    optimizer.zero_grad()
    vae_loss.backward(retain_graph=True)
    attr_loss.backward(retain_graph=True)  # <- culprit
    optimizer.step()
