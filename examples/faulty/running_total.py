"""A running total of losses kept as a tensor, with retain_graph=True "to make the error go away".

Every iteration's graph, saved buffers included, stays alive through `total`.
"""

import torch

torch.manual_seed(0)
w1 = torch.randn(8, 16, requires_grad=True)
w2 = torch.randn(16, 4, requires_grad=True)
x = torch.randn(32, 8)
total = 0
for _ in range(6):
    hidden = torch.tanh(x @ w1)
    loss = ((hidden @ w2).sigmoid() ** 2).mean()
    loss.backward(retain_graph=True)
    total = total + loss
print(f"mean loss {total.item() / 6:.4f}")
