"""torchvision's ResNet block, which adds the shortcut in place after the last batch norm.

Source: https://github.com/pytorch/vision/pull/579
Title: remove in-place operator '+=' in resnet
Pattern: correct program: `out += identity` changes the batch norm's output in place, but batch norm's backward
  does not need its output, and the ReLU comes after the addition; the maintainers kept the in-place form.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}


class BasicBlock(torch.nn.Module):
    def __init__(self, planes: int) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(planes)
        self.relu = torch.nn.ReLU(inplace=True)
        self.conv2 = torch.nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(planes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


torch.manual_seed(0)
blocks = torch.nn.Sequential(BasicBlock(4), BasicBlock(4))
optimizer = torch.optim.SGD(blocks.parameters(), lr=0.1, momentum=0.9)
for _step in range(3):
    loss = blocks(torch.randn(2, 4, 6, 6)).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
