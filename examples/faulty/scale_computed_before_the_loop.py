"""A learned scale exponentiated once, before the loop, and used by every iteration.

The second backward goes back through `scale`'s graph, which the first backward freed: PyTorch's "Trying
to backward through the graph a second time". Detaching `scale` would silence the error and stop
`log_scale` from learning; the fix is to compute it inside the loop.
"""

import torch

torch.manual_seed(0)
log_scale = torch.zeros(3, requires_grad=True)
bias = torch.zeros(3, requires_grad=True)
optimizer = torch.optim.SGD([log_scale, bias], lr=0.1)
scale = log_scale.exp()
for _ in range(3):
    x = torch.randn(4, 3)
    loss = ((x * scale + bias) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
