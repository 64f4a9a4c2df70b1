"""A tutorial that records each step's loss and gradient norm as tensors, then plots them with NumPy.

Source: https://github.com/source-separation/tutorial/issues/28
Title: Gradient Descent, Signs of Healthy Training: Need to `detach()` tensor.
Pattern: holder: `losses.append(loss)` keeps every step's graph alive through the training loop, and the plotting
  cell fails on np.log10(losses), since NumPy cannot take tensors that require grad.
Fault: the append of the loss tensor.
Fix (the issue): detach what is recorded (`loss.detach()`, or loss.item()).
"""

import numpy as np
import torch

EXPECTED = {"kind": "error", "error": "Can't call numpy() on Tensor that requires grad", "fix": "item-at-accumulation"}

torch.manual_seed(0)
mask_net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 16), torch.nn.Sigmoid())
optimizer = torch.optim.Adam(mask_net.parameters(), lr=1e-3)
grad_norms, losses = [], []
for _iteration in range(5):
    mix, source = torch.rand(8, 16), torch.rand(8, 16)
    loss = (mask_net(mix) * mix - source).abs().mean()
    optimizer.zero_grad()
    loss.backward()
    grad_norms.append(torch.nn.utils.clip_grad_norm_(mask_net.parameters(), 1e4))
    optimizer.step()
    losses.append(loss)  # <- culprit
log_losses = np.log10(torch.stack(losses).numpy())
