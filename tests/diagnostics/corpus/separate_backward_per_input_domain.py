"""Domain-adaptive segmentation that backwards the source loss and the mixed-image loss separately.

Source: https://github.com/lhoyer/DAFormer/issues/48
Title: Losses are backpropagated separately
Pattern: correct program: the source batch's loss is backwarded first, freeing its graph before the mixed batch
  is forwarded; the second loss is backwarded on its own; both land in .grad before one step.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(8, 4, 1))
ema_model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(8, 4, 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-5)
for _it in range(4):
    src_img, src_lbl = torch.rand(2, 3, 8, 8), torch.randint(0, 4, (2, 8, 8))
    tgt_img = torch.rand(2, 3, 8, 8)
    optimizer.zero_grad()
    src_loss = torch.nn.functional.cross_entropy(model(src_img), src_lbl)
    src_loss.backward()
    with torch.no_grad():
        pseudo_label = ema_model(tgt_img).argmax(1)
    mix_mask = (torch.rand(2, 1, 8, 8) > 0.5).float()
    mixed_img = mix_mask * src_img + (1 - mix_mask) * tgt_img
    mixed_lbl = torch.where(mix_mask[:, 0].bool(), src_lbl, pseudo_label)
    mix_loss = torch.nn.functional.cross_entropy(model(mixed_img), mixed_lbl)
    mix_loss.backward()
    optimizer.step()
