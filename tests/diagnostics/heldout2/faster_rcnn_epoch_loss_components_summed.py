"""A Faster R-CNN epoch loop that sums the total loss and its RPN and ROI components as tensors for the progress bar.

Source: https://github.com/bubbliiiing/faster-rcnn-pytorch/issues/35
Title: 代码存在内存泄漏问题, 建议进行优化
Pattern: accumulator in a function: `total_loss += total`, `rpn_loc_loss += rpn_loc` and the other components add
  the step's loss tensors, so each running sum holds every step's graph until the end of the epoch.
Fault: the accumulations of the loss tensors.
Fix (the issue's fix): accumulate `.item()` of each loss (`total_loss += total.item()`, and so on).
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}


def fit_one_epoch(backbone: torch.nn.Module, rpn: torch.nn.Module, roi: torch.nn.Module, steps: int) -> float:
    optimizer = torch.optim.Adam([*backbone.parameters(), *rpn.parameters(), *roi.parameters()], lr=1e-4)
    total_loss = rpn_loc_loss = roi_cls_loss = 0
    for _iteration in range(steps):
        images, anchors_target, labels = torch.randn(2, 3, 8, 8), torch.randn(2, 4, 8, 8), torch.randint(0, 3, (2,))
        features = backbone(images)
        rpn_loc = torch.nn.functional.smooth_l1_loss(rpn(features), anchors_target)
        roi_cls = torch.nn.functional.cross_entropy(roi(features.mean(dim=(2, 3))), labels)
        total = rpn_loc + roi_cls
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
        total_loss += total  # <- culprit
        rpn_loc_loss += rpn_loc  # <- culprit
        roi_cls_loss += roi_cls  # <- culprit
    return float(total_loss) / steps


torch.manual_seed(0)
backbone = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU())
fit_one_epoch(backbone, torch.nn.Conv2d(8, 4, 1), torch.nn.Linear(8, 3), steps=8)
