"""R-Drop: the criterion already calls backward on the loss it returns, and the task's train step calls it again.

Source: https://github.com/dropreg/R-Drop/issues/8
Title: Summarization task fails with 'Trying to backward through the graph a second time'
Pattern: same loss backwarded twice: the R-Drop criterion (two dropout passes, cross-entropy plus a symmetric KL)
  runs `loss.backward()` itself, and the task's `train_step`, copied from the generic one, backwards the returned
  loss once more.
Fault: the task's duplicated backward.
Fix (the maintainers' fix): remove the duplicated lines, so the loss is backwarded once.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "combine-or-retain"}


def rdrop_criterion(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
    logits1, logits2 = model(x), model(x)
    ce = torch.nn.functional.cross_entropy(logits1, y) + torch.nn.functional.cross_entropy(logits2, y)
    logp1, logp2 = logits1.log_softmax(-1), logits2.log_softmax(-1)
    kl = torch.nn.functional.kl_div(logp1, logp2, log_target=True, reduction="batchmean")
    kl = kl + torch.nn.functional.kl_div(logp2, logp1, log_target=True, reduction="batchmean")
    loss = ce + alpha * kl / 2
    loss.backward()
    return loss


def train_step(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, optimizer: torch.optim.Optimizer) -> float:
    optimizer.zero_grad()
    loss = rdrop_criterion(model, x, y, alpha=0.7)
    loss.backward()  # <- culprit
    optimizer.step()
    return loss.item()


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Dropout(0.3), torch.nn.ReLU(), torch.nn.Linear(16, 5))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for _batch in range(2):
    train_step(model, torch.randn(6, 8), torch.randint(0, 5, (6,)), optimizer)
