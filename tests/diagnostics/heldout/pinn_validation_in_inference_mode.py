"""A physics-informed network whose validation step differentiates the output, run by a loop in inference mode.

Source: https://github.com/rezaakb/pinns-torch/issues/12
Title: Output function cannot calculate gradient
Pattern: graph cut by grad mode: training works, but the validation loop runs under `torch.inference_mode()` (the
  Lightning Trainer's default, `inference_mode=True`), so the network's output has no graph and the residual's
  `torch.autograd.grad(u, x)` raises.
Fault: the inference mode around validation.
Fix (the asker's solution): run the validation with inference mode off (`Trainer(inference_mode=False)`).
"""

import torch

EXPECTED = {"kind": "error", "error": "element 0 of tensors does not require grad", "fix": "grad-mode-on"}


def residual(net: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    u = net(x)
    u_x = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]
    return u_x + u


def validate(net: torch.nn.Module, x: torch.Tensor) -> float:
    with torch.inference_mode():  # <- culprit
        return residual(net, x).pow(2).mean().item()


torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
x_train = torch.rand(32, 1, requires_grad=True)
x_val = torch.rand(16, 1, requires_grad=True)
for _epoch in range(3):
    loss = residual(net, x_train).pow(2).mean() + (net(torch.zeros(1, 1)) - 1).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    val_residual = validate(net, x_val)
