"""A depth model changed to backpropagate in its validation step, which runs under no_grad.

Source: https://github.com/nianticlabs/monodepth2/issues/24
Title: Element 0 of tensors does not require grad and does not have a grad_fn
Pattern: graph cut by grad mode: val() computes its losses inside `with torch.no_grad():` (to save memory), and
  the asker's change calls backward on one of them.
Fault: the no_grad block of the validation step.
Fix (the maintainers): do not backpropagate on validation; train on the training batches (no_grad stays).
"""

import torch

EXPECTED = {"kind": "error", "error": "element 0 of tensors does not require grad", "fix": "grad-mode-on"}

torch.manual_seed(0)
depth_net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ELU(), torch.nn.Conv2d(4, 1, 3, padding=1))
optimizer = torch.optim.Adam(depth_net.parameters(), lr=1e-4)


def val(inputs: torch.Tensor, target: torch.Tensor) -> None:
    depth_net.eval()
    with torch.no_grad():  # <- culprit
        losses = {"loss": (torch.sigmoid(depth_net(inputs)) - target).abs().mean()}
        losses["loss"].backward()
    depth_net.train()


val(torch.rand(2, 3, 8, 8), torch.rand(2, 1, 8, 8))
