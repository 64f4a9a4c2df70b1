"""Input gradients of a model in eval mode, through a layer that switched gradients off whenever it was not training.

Source: https://github.com/NVIDIA/TransformerEngine/pull/72
Title: Gradient enablement bug fix
Pattern: graph cut by grad mode: the layer wrapped its computation in a grad mode derived from `self.training`, so
  `model.eval()` made its output a constant and `torch.autograd.grad(loss, inp)` raised, although the input
  requires grad.
Fault: the layer's grad mode taken from `self.training`.
Fix (the merged PR): eval mode is for dropout and batch norm; leave the grad mode as the caller set it.
"""

import torch

EXPECTED = {"kind": "error", "error": "element 0 of tensors does not require grad", "fix": "grad-mode-on"}


class FusedLinear(torch.nn.Linear):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.set_grad_enabled(self.training):  # <- culprit
            return torch.nn.functional.linear(x, self.weight, self.bias)


torch.manual_seed(0)
model = torch.nn.Sequential(FusedLinear(4, 4), torch.nn.GELU(), FusedLinear(4, 2)).eval()
inp = torch.randn(3, 4, requires_grad=True)
loss = model(inp).mean()
(saliency,) = torch.autograd.grad(loss, inp)
