"""A pose network trained on coordinates decoded with argmax from its per-bin logits.

Source: https://github.com/LZGMatrix/BOP19_CDPN_2019ICCV/issues/4
Title: A question about training
Pattern: graph cut by a non-differentiable op: the test script turns the x/y/z bin logits into coordinates with
  `torch.argmax`; the asker computed the training loss on those coordinates, which carry no graph, and
  `loss.backward()` raised although every parameter requires grad.
Fault: the argmax that decodes the coordinates.
Fix (the author's answer): argmax is not differentiable; compute the loss before the argmax (on the logits).
"""

import torch

EXPECTED = {"kind": "error", "error": "element 0 of tensors does not require grad", "fix": "differentiable-op"}

torch.manual_seed(0)
bins = 8
head = torch.nn.Conv2d(4, 3 * bins, 1)
optimizer = torch.optim.Adam(head.parameters(), lr=1e-3)
features, target_coords = torch.randn(2, 4, 5, 5), torch.rand(2, 5, 5, 3) * 2 - 1
out_x, out_y, out_z = head(features).split(bins, dim=1)
coords = torch.stack([out_x.argmax(1), out_y.argmax(1), out_z.argmax(1)], dim=3)  # <- culprit
coords = 2.0 * coords.float() / (bins - 1) - 1.0
loss = torch.nn.functional.l1_loss(coords, target_coords)
optimizer.zero_grad()
loss.backward()
optimizer.step()
