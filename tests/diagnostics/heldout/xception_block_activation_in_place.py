"""An Xception-style block whose shared ReLU(inplace=True) rewrites the block input its skip convolution saved.

Source: https://github.com/osmr/imgclsmob/issues/13
Title: Inplace ReLU's are unnecessary and wrong
Pattern: in-place change of a saved value inside a model: the block feeds `x` to its 1x1 skip convolution (which
  keeps `x` for its backward) and then `x = self.activ(x)` with an in-place ReLU overwrites that same tensor;
  loss.backward() fails.
Fault: the in-place ReLU.
Fix (the issue, accepted by the maintainer): remove `inplace=True`.
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "out-of-place",
}


class XceptionBlock(torch.nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.skip = torch.nn.Conv2d(in_channels, out_channels, 1)
        self.activ = torch.nn.ReLU(inplace=True)  # <- culprit
        self.conv1 = torch.nn.Conv2d(in_channels, out_channels, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(out_channels, out_channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = self.skip(x)
        x = self.activ(x)
        x = self.conv1(x)
        x = self.activ(x)
        x = self.conv2(x)
        return x + identity


torch.manual_seed(0)
stem = torch.nn.Conv2d(3, 8, 3, padding=1)
model = torch.nn.Sequential(stem, XceptionBlock(8, 16), torch.nn.Flatten(), torch.nn.Linear(16 * 6 * 6, 5))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for _batch in range(2):
    images, labels = torch.randn(4, 3, 6, 6), torch.randint(0, 5, (4,))
    loss = torch.nn.functional.cross_entropy(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
