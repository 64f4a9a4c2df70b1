"""An attention block that aliases its input as the output and then changes the output in place.

Source: https://github.com/Jee-King/TSAN/issues/3
Title: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
Pattern: in-place change of a saved value through an alias: `out = x` makes no copy, so the in-place update of
  `out` overwrites `x`, which the branch's linear layer saved for its backward.
Fault: the in-place update of the alias.
Fix (the thread): `out = x.clone()` (or update out of place).
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "out-of-place",
}


class SpatialAttention(torch.nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weights = torch.sigmoid(self.fc(x))
        out = x
        out.mul_(weights)  # <- culprit
        return out


torch.manual_seed(0)
stem = torch.nn.Linear(4, 4)
attention = SpatialAttention(4)
attention(torch.tanh(stem(torch.randn(3, 4)))).sum().backward()
