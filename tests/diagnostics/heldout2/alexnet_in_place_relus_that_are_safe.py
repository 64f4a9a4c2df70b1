"""An AlexNet-style classifier trained with `ReLU(inplace=True)` after its convolutions and linear layers.

Source: https://github.com/pytorch/vision/issues/807
Title: Why in-place operation for ReLU is used in models/examples?
Pattern: correct program: every in-place ReLU follows a convolution or a linear layer, whose backward does not need
  its own output, so overwriting that output is safe and saves memory; the maintainers' answer is that the places
  torchvision uses in-place ReLU are safe.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}


class AlexNet(torch.nn.Module):
    def __init__(self, num_classes: int = 5) -> None:
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, stride=2, padding=1),
            torch.nn.ReLU(inplace=True),
            torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(8, 16, 3, padding=1),
            torch.nn.ReLU(inplace=True),
        )
        self.classifier = torch.nn.Sequential(
            torch.nn.Dropout(0.5),
            torch.nn.Linear(16 * 4 * 4, 32),
            torch.nn.ReLU(inplace=True),
            torch.nn.Linear(32, num_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.features(x), 1))


torch.manual_seed(0)
model = AlexNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for _batch in range(5):
    images, labels = torch.randn(4, 3, 16, 16), torch.randint(0, 5, (4,))
    loss = torch.nn.functional.cross_entropy(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
