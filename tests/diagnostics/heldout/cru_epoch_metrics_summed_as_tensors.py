"""A recurrent state-space model's epoch loop that sums the batch log-likelihood and RMSE as tensors.

Source: https://github.com/boschresearch/Continuous-Recurrent-Units/pull/4
Title: Avoid high memory usage from past computations
Pattern: accumulator in a function: `epoch_ll += loss` and `epoch_rmse += rmse` keep every batch's graph (the RMSE's
  graph is never even backwarded), memory grows until the system hangs.
Fault: the two accumulations.
Fix (the PR): accumulate `.item()` of each value after saving it.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}


def train_epoch(model: torch.nn.Module, optimizer: torch.optim.Optimizer, batches: list) -> tuple:
    epoch_ll, epoch_rmse = 0.0, 0.0
    for obs, target in batches:
        mean, log_var = model(obs).chunk(2, dim=-1)
        loss = 0.5 * (log_var + (target - mean).pow(2) / log_var.exp()).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_ll += loss  # <- culprit
        epoch_rmse += (target - mean).pow(2).mean().sqrt()  # <- culprit
    return epoch_ll / len(batches), epoch_rmse / len(batches)


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.Tanh(), torch.nn.Linear(16, 6))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
batches = [(torch.randn(8, 3), torch.randn(8, 3)) for _ in range(8)]
train_ll, train_rmse = train_epoch(model, optimizer, batches)
