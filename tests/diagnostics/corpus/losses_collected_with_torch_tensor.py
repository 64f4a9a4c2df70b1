"""Stage losses of an unfolding network gathered with torch.tensor([...]): the total has no graph.

Source: https://github.com/MC-E/Deep-Generalized-Unfolding-Networks-for-Image-Restoration/issues/6
Title: About Loss
Pattern: graph cut by a constructor: replacing np.sum over the per-stage losses with
  `torch.tensor([criterion(...) for ...]).sum()` builds a fresh tensor from their values; without
  requires_grad=True backward raises, and with it (as the asker did) backward runs but no weight learns.
Fault: the torch.tensor([...]) over the losses.
Fix: keep the graph: `torch.stack([...]).sum()` (or sum() of the Python list).
"""

import torch

EXPECTED = {"kind": "error", "error": "element 0 of tensors does not require grad", "fix": "stack-not-tensor"}

torch.manual_seed(0)
stages = torch.nn.ModuleList(torch.nn.Conv2d(3, 3, 3, padding=1) for _ in range(3))
optimizer = torch.optim.Adam(stages.parameters(), lr=2e-4)
inp, target = torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8)
restored, x = [], inp
for stage in stages:
    x = x + stage(x)
    restored.append(x)
loss_char = torch.tensor([torch.sqrt((r - target) ** 2 + 1e-6).mean() for r in restored]).sum()  # <- culprit
optimizer.zero_grad()
loss_char.backward()
optimizer.step()
