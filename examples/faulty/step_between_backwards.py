"""An optimizer step between two backward passes over one graph.

The second layer's weight is saved by the first backward's graph; updating it
in place before the second backward changes a value that backward still needs.
"""

import torch

torch.manual_seed(0)
w1 = torch.randn(3, 4, requires_grad=True)
w2 = torch.randn(4, 2, requires_grad=True)
x = torch.randn(5, 3)
out = torch.tanh(x @ w1) @ w2
loss_a = out.sum()
loss_b = (out**2).mean()
loss_a.backward(retain_graph=True)
with torch.no_grad():
    for w in (w1, w2):
        w -= 0.1 * w.grad
loss_b.backward()
