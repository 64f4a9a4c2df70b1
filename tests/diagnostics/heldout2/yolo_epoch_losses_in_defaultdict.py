"""A YOLO training epoch that sums each named loss, scaled by the batch size, into a defaultdict of tensors.

Source: https://github.com/MultimediaTechLab/YOLO/pull/83
Title: [FIX] Fixes memory leak
Pattern: accumulator in a dict item: `total_loss = defaultdict(lambda: torch.tensor(0.0))` and
  `total_loss[loss_name] += loss_val * batch_size` chain every batch's loss graph for the whole epoch; the totals
  are only used for logging.
Fault: adding the loss tensors into the dict's totals.
Fix (the PR and its review): accumulate numbers, `total_loss[loss_name] += loss_val.item() * batch_size` (a
  defaultdict(float)).
"""

from collections import defaultdict

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}


def train_one_epoch(model: torch.nn.Module, optimizer: torch.optim.Optimizer, batches: int) -> dict[str, float]:
    total_loss: defaultdict[str, torch.Tensor] = defaultdict(lambda: torch.tensor(0.0))
    total_samples = 0
    for _batch in range(batches):
        images, targets = torch.randn(4, 3, 8, 8), torch.rand(4, 6, 8, 8)
        preds = model(images)
        loss_dict = {
            "BoxLoss": torch.nn.functional.l1_loss(preds[:, :4], targets[:, :4]),
            "DFLoss": torch.nn.functional.mse_loss(preds[:, 4:5], targets[:, 4:5]),
            "BCELoss": torch.nn.functional.binary_cross_entropy_with_logits(preds[:, 5:], targets[:, 5:]),
        }
        loss = sum(loss_dict.values())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        for loss_name, loss_val in loss_dict.items():
            total_loss[loss_name] += loss_val * images.shape[0]  # <- culprit
        total_samples += images.shape[0]
    return {name: float(value) / total_samples for name, value in total_loss.items()}


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.SiLU(), torch.nn.Conv2d(8, 6, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
train_one_epoch(model, optimizer, batches=8)
