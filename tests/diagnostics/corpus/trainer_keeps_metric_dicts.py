"""A trainer that stores each step's metrics dict (losses with their graphs) in its history.

Source: https://github.com/pnnl/neuromancer/pull/292
Title: Fixing leaking autograd graph memory in Trainer
Pattern: holder of dicts: the problem's output dict (the loss and its terms, all attached to the graph) is
  appended to a list for the end-of-epoch means; hundreds of MB of graph pile up over a run.
Fault: the append of the undetached metrics.
Fix (the PR): detach the metrics before storing them.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}

torch.manual_seed(0)
policy = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
epoch_outputs = []
for _step in range(5):
    x = torch.randn(20, 3)
    u = policy(x)
    output = {"objective_loss": (x.sum(1, keepdim=True) + u).pow(2).mean(), "constraint_loss": torch.relu(u.abs() - 1).mean()}
    output["train_loss"] = output["objective_loss"] + 0.1 * output["constraint_loss"]
    optimizer.zero_grad()
    output["train_loss"].backward()
    optimizer.step()
    epoch_outputs.append(output)  # <- culprit
