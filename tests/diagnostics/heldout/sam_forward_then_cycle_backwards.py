"""An encoder-decoder coach that backwards the forward pass's loss, then the cycle pass's loss, in one step.

Source: https://github.com/yuval-alaluf/SAM/issues/42
Title: [code] About the coach.py
Pattern: correct program: two `loss.backward()` calls per step without retain_graph; the asker worried the first
  frees what the second needs, and the author answered that each pass builds and frees its own graph (the cycle
  pass starts from the first output detached).
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
encoder, decoder = torch.nn.Linear(12, 6), torch.nn.Linear(6, 12)
optimizer = torch.optim.Adam([*encoder.parameters(), *decoder.parameters()], lr=1e-4)
for _step in range(6):
    x, target_age, source_age = torch.rand(4, 12), torch.rand(4, 1), torch.rand(4, 1)
    optimizer.zero_grad()
    y_hat = decoder(encoder(x) + target_age)
    loss = torch.nn.functional.mse_loss(y_hat, x) + y_hat.mean().sub(target_age.mean()).abs()
    loss.backward()
    y_hat_clone = y_hat.clone().detach().requires_grad_(True)
    y_recovered = decoder(encoder(y_hat_clone) + source_age)
    cycle_loss = torch.nn.functional.mse_loss(y_recovered, x)
    cycle_loss.backward()
    optimizer.step()
