"""A loss with a Jacobian-norm term (autograd.grad inside) evaluated in a no_grad validation loop.

Source: https://github.com/pytorch/pytorch/issues/69217
Title: should I use with torch.no_grad() mode if my loss function needs to compute the gradients
Pattern: graph cut by grad mode: the validation loop runs under `with torch.no_grad():`, and the loss calls
  torch.autograd.grad on the model's output to get the Jacobian's norm; the output has no graph there.
Fault: the no_grad block around the loss that differentiates.
Fix (the answer): do not use no_grad around a loss that needs gradients (or re-enable it inside with
  torch.enable_grad()).
"""

import torch

EXPECTED = {"kind": "error", "error": "element 0 of tensors does not require grad", "fix": "grad-mode-on"}

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))


def loss_fn(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x = x.requires_grad_()
    out = model(x)
    (jac,) = torch.autograd.grad(out.sum(), x, create_graph=True)
    return torch.nn.functional.mse_loss(out, y) + 0.1 * jac.norm()


val_loss = 0.0
with torch.no_grad():  # <- culprit
    for _batch in range(2):
        val_loss += loss_fn(torch.randn(4, 3), torch.randn(4, 2)).item()
