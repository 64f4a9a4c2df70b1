"""A reentrant checkpoint around a layer whose only input does not require grad: the output has no graph.

Source: https://github.com/pytorch/pytorch/issues/7617
Title: checkpoint(function, *args) should has the same requires_grad as function(*args)
Pattern: nothing requires grad, as the checkpoint sees it: the reentrant checkpoint records a node only when an
  input requires grad; the layer's parameters are not inputs, so `checkpoint(block, x)` of a plain input returns a
  tensor without grad_fn, and the loss built from it cannot backward (PyTorch warns "None of the inputs have
  requires_grad=True").
Fault: the checkpoint called on an input that does not require grad.
Fix (the thread and the warning): make the input require grad (x.requires_grad_()), or use_reentrant=False.
"""

import torch
from torch.utils.checkpoint import checkpoint

EXPECTED = {"kind": "error", "error": "element 0 of tensors does not require grad", "fix": "requires-grad"}

torch.manual_seed(0)
block = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
x = torch.randn(10, 4)
z1 = checkpoint(block, x, use_reentrant=True)  # <- culprit
z1.pow(2).mean().backward()
