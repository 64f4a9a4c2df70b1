"""A single-stage detector without a neck whose backbone and box head are both frozen before training.

Source: https://github.com/open-mmlab/mmdetection/issues/3667
Title: Freezing the backbone network will report an error
Pattern: nothing requires grad: with `requires_grad = False` on the backbone's parameters and on the head's, no
  parameter of the model is trainable (an SSD-style detector has no neck between them), so the detection loss has no
  graph and `loss.backward()` raises.
Fault: freezing the head as well as the backbone.
Fix (the answer in the thread): freeze only the backbone; some parameter on the loss's path must require grad.
"""

import torch

EXPECTED = {"kind": "error", "error": "element 0 of tensors does not require grad", "fix": "requires-grad"}


class SingleStageDetector(torch.nn.Module):
    def __init__(self, num_classes: int = 3) -> None:
        super().__init__()
        self.backbone = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(8, 8, 3, stride=2, padding=1)
        )
        self.bbox_head = torch.nn.Conv2d(8, 4 + num_classes, 1)
        for v in self.backbone.parameters():
            v.requires_grad = False
        for v in self.bbox_head.parameters():
            v.requires_grad = False  # <- culprit

    def forward(self, images: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.bbox_head(self.backbone(images))
        return out[:, :4], out[:, 4:]


torch.manual_seed(0)
detector = SingleStageDetector()
optimizer = torch.optim.SGD(detector.parameters(), lr=0.01, momentum=0.9)
for _iteration in range(2):
    images = torch.randn(2, 3, 16, 16)
    box_targets, cls_targets = torch.randn(2, 4, 8, 8), torch.randint(0, 3, (2, 8, 8))
    box_pred, cls_pred = detector(images)
    loss = torch.nn.functional.smooth_l1_loss(box_pred, box_targets) + torch.nn.functional.cross_entropy(cls_pred, cls_targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
