"""A memory-efficient DenseNet-style model (checkpointed blocks) run for inference under no_grad.

Source: https://github.com/petko-nikolov/pysemseg/issues/5
Title: Torch UserWarning: None of the inputs have requires_grad=True
Pattern: correct program: the blocks call torch.utils.checkpoint, which warns (PyTorch's own UserWarning) that no
  input requires grad; at inference, under no_grad and eval(), there is nothing to backward and nothing is wrong.
Fault: none.
Fix: correct program: no glass warning expected.
"""

import torch
from torch.utils.checkpoint import checkpoint

EXPECTED = {"kind": "correct"}


class DenseLayer(torch.nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.norm, self.conv = torch.nn.BatchNorm2d(channels), torch.nn.Conv2d(channels, 2, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([x, checkpoint(lambda t: self.conv(torch.relu(self.norm(t))), x, use_reentrant=True)], 1)


torch.manual_seed(0)
model = torch.nn.Sequential(DenseLayer(3), DenseLayer(5), torch.nn.Conv2d(7, 4, 1))
model.eval()
with torch.no_grad():
    for _image in range(3):
        prediction = model(torch.rand(1, 3, 8, 8)).argmax(1)
