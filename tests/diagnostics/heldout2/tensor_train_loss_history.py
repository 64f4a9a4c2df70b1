"""Fitting a tensor-train decomposition of an image, keeping every iteration's loss in a history list.

Source: https://github.com/rballester/tntorch/pull/19
Title: Fixed errors on GPU. Removed annoying memory leak.
Pattern: holder: `loss_history.append(loss)` keeps each iteration's loss tensor, and with it the whole graph of that
  iteration's reconstruction, for the length of the optimisation.
Fault: appending the loss tensor to the history.
Fix (the PR): keep the number, not the tensor.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}


def reconstruct(cores: list[torch.Tensor]) -> torch.Tensor:
    full = cores[0]
    for core in cores[1:]:
        full = torch.einsum("...a,abc->...bc", full, core)
    return full.squeeze(0).squeeze(-1)


torch.manual_seed(0)
target = torch.rand(6, 6, 6)
ranks = [1, 3, 3, 1]
cores = [torch.nn.Parameter(0.5 * torch.randn(ranks[i], 6, ranks[i + 1])) for i in range(3)]
optimizer = torch.optim.Adam(cores, lr=0.05)
loss_history = []
for _iteration in range(10):
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(reconstruct(cores), target)
    loss.backward()
    optimizer.step()
    loss_history.append(loss)  # <- culprit
