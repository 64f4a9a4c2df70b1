"""A detector's loss that falls back to constant zeros when a batch has no positive samples.

Source: https://github.com/RangiLyu/nanodet/issues/7
Title: when I changed the warmup steps from 300 to 30, an error occurred.
Pattern: nothing requires grad: with no positive anchors the box and distribution losses are `torch.tensor(0.0)`
  constants; when the classification term is skipped too, the total loss has no graph and backward raises.
Fault: the constant zero losses.
Fix (the thread): create those zeros with requires_grad=True (or as 0 * a sum of the predictions, which keeps the
  graph).
"""

import torch

EXPECTED = {"kind": "error", "error": "element 0 of tensors does not require grad", "fix": "requires-grad"}

torch.manual_seed(0)
head = torch.nn.Linear(8, 4 + 3)
optimizer = torch.optim.SGD(head.parameters(), lr=0.01, momentum=0.9)


def head_loss(features: torch.Tensor, num_pos: int) -> torch.Tensor:
    preds = head(features)
    if num_pos > 0:
        return preds[:, :4].abs().mean() + preds[:, 4:].pow(2).mean()
    loss_bbox = torch.tensor(0.0)  # <- culprit
    loss_dfl = torch.tensor(0.0)  # <- culprit
    return loss_bbox + loss_dfl


for _step, num_pos in enumerate([3, 0]):
    loss = head_loss(torch.randn(6, 8), num_pos)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
