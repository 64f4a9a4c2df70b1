"""A vector built with torch.tensor([...]) from scalars that require grad: its backward finds no graph.

Source: https://discuss.pytorch.org/t/gradient-is-lost-when-use-torch-tensor-t1-t2/23261
Title: Gradient is lost when use torch.tensor([t1, t2])
Pattern: graph cut by a constructor: torch.tensor() copies the values of cos(a) and cos(b) into a new leaf with no
  history, so `y2.sum().backward()` raises while `cosa + cosb` works.
Fault: the torch.tensor([...]) that rebuilds the vector.
Fix (the answers): `torch.stack([cosa, cosb])` (or torch.cat), which keeps the graph.
"""

import torch

EXPECTED = {"kind": "error", "error": "element 0 of tensors does not require grad", "fix": "stack-not-tensor"}

a = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
cosa, cosb = torch.cos(a), torch.cos(b)
y1 = cosa + cosb
y2 = torch.tensor([cosa, cosb])  # <- culprit
mat = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
torch.matmul(y2, mat).sum().backward()
