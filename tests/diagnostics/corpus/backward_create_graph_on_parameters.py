"""Gradients taken with backward(create_graph=True) and never cleared: every step's gradient graph piles up.

Source: https://github.com/pytorch/pytorch/issues/7343
Title: [memory leak] [PyTorch] create_graph=True w/ custom grad
Pattern: double backward through .grad: `y.backward(create_graph=True)` stores gradients that carry a graph in
  the leaf's .grad; accumulated there step after step, each new gradient is added to the old one with its
  graph, and (in PyTorch) the leaf and its .grad's graph hold each other in a reference cycle.
Fault: backward(create_graph=True) into .grad.
Fix (the maintainers): use torch.autograd.grad(..., create_graph=True) for higher-order gradients, which returns
  them instead of storing them on the leaves.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "autograd-grad"}

torch.manual_seed(0)
w = torch.randn(6, requires_grad=True)
x = torch.randn(6)
for _step in range(5):
    y = torch.tanh(w * x).sum()
    y.backward(create_graph=True)  # <- culprit
    penalty = w.grad.pow(2).sum()
    penalty_log = penalty.item()
