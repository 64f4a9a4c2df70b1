"""A recurrent loop that carries its hidden state across iterations without detach().

The second iteration's backward reaches into the first iteration's graph,
which the first backward already freed. `glassgrad doctor` names the line.
"""

import torch

torch.manual_seed(0)
w_in = torch.randn(4, 8, requires_grad=True)
w_h = (torch.randn(8, 8) * 0.1).requires_grad_()
hidden = torch.zeros(1, 8)
for step in range(3):
    x = torch.randn(1, 4)
    hidden = torch.tanh(x @ w_in + hidden @ w_h)
    loss = (hidden**2).sum()
    loss.backward()
    print(f"step {step}: loss {loss.item():.4f}")
