"""A residual block that adds the shortcut in place to the output of a ReLU.

Source: https://github.com/iMED-Lab/ER-Net/pull/3
Title: replace out+=residual with out=out+residual
Pattern: in-place change of a saved value: `out += residual` overwrites the ReLU's output, which the ReLU's
  backward needs ("output 0 of ReluBackward0, is at version 1; expected version 0").
Fault: the in-place addition.
Fix (the PR): `out = out + residual`.
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "out-of-place",
}


class ResEncoder(torch.nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv3d(channels, channels, 3, padding=1)
        self.conv2 = torch.nn.Conv3d(channels, channels, 3, padding=1)
        self.relu = torch.nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        residual = x
        out = self.relu(self.conv1(x))
        out = self.relu(self.conv2(out))
        out += residual  # <- culprit
        return out


torch.manual_seed(0)
block = ResEncoder(2)
block(torch.randn(1, 2, 4, 4, 4)).square().mean().backward()
