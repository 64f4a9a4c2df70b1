"""A physics-informed network for the 1D heat equation, its derivatives taken by a small repeated-autograd helper.

Source: https://discuss.pytorch.org/t/efficient-calculation-of-derivatives-for-pinn-solvers-in-pytorch/177249
Title: Efficient Calculation of Derivatives for PINN Solvers in PyTorch
Pattern: correct program (for the graph): `diff(y, [x, x])` differentiates repeatedly with create_graph=True so that
  second derivatives, and then the residual's gradient with respect to the weights, exist; everything is rebuilt each
  step and backwarded once. The thread is about speed (jit, compile), not memory.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}


def diff(y: torch.Tensor, xs: list[torch.Tensor]) -> torch.Tensor:
    grad = y
    for x in xs:
        grad = torch.autograd.grad(grad, x, grad_outputs=torch.ones_like(grad), create_graph=True)[0]
    return grad


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(2, 20), torch.nn.Tanh(), torch.nn.Linear(20, 20), torch.nn.Tanh(), torch.nn.Linear(20, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
alpha = 1.0
for _step in range(5):
    x = torch.rand(32, 1, requires_grad=True)
    t = torch.rand(32, 1, requires_grad=True)
    u = model(torch.cat([x, t], dim=1))
    residual = diff(u, [t]) - alpha * diff(u, [x, x])
    x0 = torch.rand(16, 1)
    initial = model(torch.cat([x0, torch.zeros_like(x0)], dim=1)) - torch.sin(torch.pi * x0)
    loss = residual.pow(2).mean() + initial.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
