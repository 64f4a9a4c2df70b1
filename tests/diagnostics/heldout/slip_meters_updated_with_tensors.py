"""A CLIP-style training loop that feeds the loss tensors themselves into its running-average meters.

Source: https://github.com/facebookresearch/SLIP/pull/8
Title: Fixed memory leak on metrics accumulation
Pattern: holder in an object: `metrics[k].update(loss_dict[k], n)` gives each AverageMeter the tensor, whose
  `self.sum += val * n` then chains every step's graph for the whole epoch.
Fault: updating the meters with the tensors.
Fix (the merged PR): accumulate the values (`loss_dict[k].item()`), not the tensors.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}


class AverageMeter:
    def __init__(self) -> None:
        self.sum, self.count = 0.0, 0

    def update(self, val: float, n: int = 1) -> None:
        self.sum += val * n
        self.count += n


torch.manual_seed(0)
image_encoder, text_encoder = torch.nn.Linear(12, 8), torch.nn.Linear(10, 8)
optimizer = torch.optim.AdamW([*image_encoder.parameters(), *text_encoder.parameters()], lr=1e-3)
metrics = {"loss": AverageMeter(), "clip_acc": AverageMeter()}
labels = torch.arange(6)
for _step in range(8):
    images, texts = torch.randn(6, 12), torch.randn(6, 10)
    image_embed = torch.nn.functional.normalize(image_encoder(images), dim=-1)
    text_embed = torch.nn.functional.normalize(text_encoder(texts), dim=-1)
    logits = image_embed @ text_embed.T / 0.07
    loss = (torch.nn.functional.cross_entropy(logits, labels) + torch.nn.functional.cross_entropy(logits.T, labels)) / 2
    loss_dict = {"loss": loss, "clip_acc": (logits.argmax(-1) == labels).float().mean() * 100}
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    for key, value in loss_dict.items():
        metrics[key].update(value, images.size(0))  # <- culprit
