"""An optimizer closure that records every loss it computes, as tensors, for the line search's history.

Source: https://github.com/StanfordASL/neural-network-lyapunov/pull/140
Title: Fix the memory leak when calling line search sd for training Lyapunov.
Pattern: holder filled inside a closure: each call of the closure appends the loss tensor (with its graph) to a
  list that outlives the training loop.
Fault: the append inside the closure.
Fix (the PR): the closure returns the loss; the list stores only its float value.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}

torch.manual_seed(0)
lyapunov = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
optimizer = torch.optim.SGD(lyapunov.parameters(), lr=1e-3)
states = torch.randn(32, 2)
losses = []


def closure() -> torch.Tensor:
    optimizer.zero_grad()
    v = lyapunov(states)
    loss = torch.relu(-v + 0.01 * states.norm(dim=1, keepdim=True)).mean() + lyapunov(torch.zeros(1, 2)).abs().sum()
    loss.backward()
    losses.append(loss)  # <- culprit
    return loss


for _iteration in range(5):
    optimizer.step(closure)
