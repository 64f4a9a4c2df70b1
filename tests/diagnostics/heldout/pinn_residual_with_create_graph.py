"""A physics-informed network trained on an ODE residual whose derivatives come from autograd.grad(create_graph=True).

Source: https://github.com/nanditadoloi/PINN/issues/3
Title: Mistake in computing derivatives of u
Pattern: correct program (for the graph): each step differentiates the output with respect to its inputs with
  create_graph=True, builds the residual and backwards it once; the issue was about `u.sum()` versus
  `grad_outputs=ones_like(u)` (the same for a pointwise network), not about memory.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
for _epoch in range(6):
    x = torch.rand(32, 1, requires_grad=True)
    t = torch.rand(32, 1, requires_grad=True)
    u = net(torch.cat([x, t], dim=1))
    u_x = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), retain_graph=True, create_graph=True)[0]
    u_t = torch.autograd.grad(u, t, grad_outputs=torch.ones_like(u), retain_graph=True, create_graph=True)[0]
    pde = u_x - 2 * u_t - u
    boundary = net(torch.cat([torch.rand(8, 1), torch.zeros(8, 1)], dim=1)) - 1
    loss = pde.pow(2).mean() + boundary.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
