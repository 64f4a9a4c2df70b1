"""A tracking trainer whose `_update_stats` feeds each step's loss tensors into running-average meters.

Source: https://github.com/visionml/pytracking/pull/313
Title: Fix memory leak in LTRTrainer._update_stats().
Pattern: holder in an object: the actor returns a stats dict with the loss tensors; `_update_stats` hands each value
  to an AverageMeter whose `self.sum += val * n` chains every step's graph for the whole epoch.
Fault: updating the meters with the tensors.
Fix (the PR and the maintainer's review): convert tensor values to numbers before updating (`val.item()`, when it
  is a tensor).
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}


class AverageMeter:
    def __init__(self) -> None:
        self.sum, self.count, self.avg = 0.0, 0, 0.0

    def update(self, val: float, n: int = 1) -> None:
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class Trainer:
    def __init__(self, net: torch.nn.Module, optimizer: torch.optim.Optimizer) -> None:
        self.net, self.optimizer = net, optimizer
        self.stats: dict[str, AverageMeter] = {}

    def train_step(self, search: torch.Tensor, target: torch.Tensor) -> None:
        scores = self.net(search)
        loss = torch.nn.functional.mse_loss(scores, target)
        stats = {"Loss/total": loss, "Loss/target_clf": loss * 0.5}
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self._update_stats(stats, search.shape[0])

    def _update_stats(self, new_stats: dict[str, torch.Tensor], batch_size: int) -> None:
        for name, val in new_stats.items():
            self.stats.setdefault(name, AverageMeter()).update(val, batch_size)  # <- culprit


torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(4, 1, 1))
trainer = Trainer(net, torch.optim.Adam(net.parameters(), lr=1e-3))
for _iteration in range(8):
    trainer.train_step(torch.randn(2, 3, 8, 8), torch.rand(2, 1, 8, 8))
