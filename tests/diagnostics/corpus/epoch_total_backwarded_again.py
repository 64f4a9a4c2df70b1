"""A running loss kept as a tensor and backwarded at the end of the epoch, after every batch was backwarded.

Source: https://github.com/pytorch/pytorch/issues/17568
Title: GPU memory leak on Pytorch 1.0?
Pattern: accumulator: `running_loss += loss` keeps each batch's graph (the memory the asker saw grow); a later
  `running_loss.backward()` then goes through graphs that each batch's own backward (and step) already used up.
Fault: the accumulation into running_loss.
Fix (the thread): the running total is for logging: add `loss.item()`, and backward only the batch's loss.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "item-at-accumulation"}

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Sigmoid(), torch.nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
running_loss = 0
for _i in range(4):
    x, y = torch.rand(16, 3), torch.rand(16, 1)
    loss = torch.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    running_loss += loss  # <- culprit
running_loss.backward()
