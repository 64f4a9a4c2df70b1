"""A multimodal trainer that reports its losses by updating a meter with the reduced loss dict itself.

Source: https://github.com/facebookresearch/mmf/pull/560
Title: [fix] memory leak in loss reporting
Pattern: holder in an object: `meter_update_dict.update(reduced_loss_dict)` puts the loss tensors into the dict the
  meter consumes; each SmoothedValue keeps a window of the values and a running total (`self.total += value`), so the
  graphs of every step stay reachable.
Fault: passing the loss tensors to the meter.
Fix (the merged PR): store `reduced_loss_dict[key].item()` in the meter's dict.
"""

from collections import deque

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}


class SmoothedValue:
    def __init__(self, window_size: int = 20) -> None:
        self.deque: deque = deque(maxlen=window_size)
        self.total, self.count = 0.0, 0

    def update(self, value: float) -> None:
        self.deque.append(value)
        self.total += value
        self.count += 1


class Meter:
    def __init__(self) -> None:
        self.meters: dict[str, SmoothedValue] = {}

    def update(self, update_dict: dict[str, float]) -> None:
        for key, value in update_dict.items():
            self.meters.setdefault(key, SmoothedValue()).update(value)


def update_meter(meter: Meter, loss_key: str, reduced_loss_dict: dict[str, torch.Tensor]) -> None:
    total = sum(reduced_loss_dict.values())
    meter_update_dict = {loss_key: total.item()}
    meter_update_dict.update(reduced_loss_dict)  # <- culprit
    meter.update(meter_update_dict)


torch.manual_seed(0)
image_encoder, text_encoder = torch.nn.Linear(16, 8), torch.nn.Embedding(30, 8)
classifier = torch.nn.Linear(16, 3)
params = [*image_encoder.parameters(), *text_encoder.parameters(), *classifier.parameters()]
optimizer = torch.optim.AdamW(params, lr=1e-4)
meter = Meter()
for _step in range(8):
    images, tokens, answers = torch.randn(4, 16), torch.randint(0, 30, (4, 5)), torch.randint(0, 3, (4,))
    fused = torch.cat([image_encoder(images), text_encoder(tokens).mean(dim=1)], dim=1)
    logits = classifier(fused)
    losses = {"train/vqa/ce": torch.nn.functional.cross_entropy(logits, answers), "train/vqa/l2": 1e-4 * fused.pow(2).mean()}
    optimizer.zero_grad()
    sum(losses.values()).backward()
    optimizer.step()
    update_meter(meter, "train/vqa/total_loss", losses)
