"""A block that adds a convolution branch in place to the tensor the convolution read.

Source: https://github.com/microsoft/unilm/pull/999
Title: Update L. 116 of backbone.py
Pattern: in-place change of a saved value: `x += x_conv` overwrites `x`, the input that the convolution saved for
  its weight's gradient, so fine-tuning fails in backward ([32, 768, 248] in the report).
Fault: the in-place addition.
Fix (the PR): `x = x.clone() + x_conv` (any out-of-place sum).
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "out-of-place",
}


class ConvPositionBlock(torch.nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(dim, dim)
        self.conv = torch.nn.Conv1d(dim, dim, 3, padding=1, groups=dim)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        x = torch.nn.functional.gelu(self.proj(h)).transpose(1, 2)
        x_conv = self.conv(x)
        x += x_conv  # <- culprit
        return x.transpose(1, 2)


torch.manual_seed(0)
block = ConvPositionBlock(6)
block(torch.randn(2, 5, 6)).pow(2).mean().backward()
