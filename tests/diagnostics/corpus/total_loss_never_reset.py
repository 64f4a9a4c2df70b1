"""A running loss kept as a tensor, so every batch's graph stays reachable from it.

Source: https://github.com/BatsResearch/labelmodels/issues/4
Title: Memory leak in training loop
Pattern: accumulator: `running_loss += loss` adds each batch's loss tensor (with its graph) to a total that lives
  for the whole epoch; memory grows every step until the process dies.
Fault: the accumulation.
Fix (the maintainer merged): accumulate the number, `running_loss += loss.item()`.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
running_loss = 0.0
for _step in range(5):
    x, y = torch.randn(10, 6), torch.randint(0, 3, (10,))
    loss = torch.nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    running_loss += loss  # <- culprit
mean_loss = float(running_loss) / 5
