"""A Gaussian-process demo model that exponentiates its log length-scale once, in __init__.

Source: https://github.com/IceLab-X/MiniGP/issues/13
Title: [stgp demo] RuntimeError: Trying to backward through the graph a second time
Pattern: precomputed value: `self.length_scale = torch.exp(nn.Parameter(...))` keeps only the result of exp, made
  once; the parameter is not even registered, and every training step's loss goes back through that one exp node,
  freed by the first backward.
Fault: the exponentiation in __init__.
Fix (the issue and the maintainers' fix): keep the log length-scale as the nn.Parameter and compute the exp where
  the kernel is computed, at every step.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "recompute-in-loop"}


class KernelRegression(torch.nn.Module):
    def __init__(self, x: torch.Tensor, y: torch.Tensor) -> None:
        super().__init__()
        self.x, self.y = x, y
        self.log_noise = torch.nn.Parameter(torch.tensor(-2.0))
        self.length_scale = torch.exp(torch.nn.Parameter(torch.zeros(1)))  # <- culprit

    def forward(self, x_new: torch.Tensor) -> torch.Tensor:
        sq_dist = (x_new[:, None, :] - self.x[None, :, :]).pow(2).sum(-1)
        weights = torch.exp(-0.5 * sq_dist / self.length_scale**2)
        return weights @ self.y / (weights.sum(-1, keepdim=True) + self.log_noise.exp())


torch.manual_seed(0)
x = torch.rand(20, 2)
y = torch.sin(3 * x).sum(-1, keepdim=True)
model = KernelRegression(x, y)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for _iteration in range(3):
    loss = (model(x) - y).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
