"""The Horovod ImageNet example's Metric, which averages the loss across workers and sums it without detaching.

Source: https://github.com/horovod/horovod/pull/641
Title: Fix memory leak in pytorch_imagenet_resnet50.py example
Pattern: holder in an object: `train_loss.update(loss)` hands the loss tensor to a Metric whose
  `self.sum += allreduce(val)` chains the step's graph into a running sum kept for the whole epoch. (Horovod's
  allreduce is stood in for by a single-process average.)
Fault: reducing the loss into the metric with its history.
Fix (the merged PR): detach the value before the reduction (`allreduce(val.detach())`).
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}


def allreduce(tensor: torch.Tensor, world_size: int = 1) -> torch.Tensor:
    return tensor * 1.0 / world_size


class Metric:
    def __init__(self, name: str) -> None:
        self.name = name
        self.sum = torch.tensor(0.0)
        self.n = torch.tensor(0.0)

    def update(self, val: torch.Tensor) -> None:
        self.sum += allreduce(val)  # <- culprit
        self.n += 1

    @property
    def avg(self) -> torch.Tensor:
        return self.sum / self.n


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, stride=2), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(200, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.0125, momentum=0.9)
train_loss, train_accuracy = Metric("train_loss"), Metric("train_accuracy")
for _batch in range(8):
    data, target = torch.randn(4, 3, 12, 12), torch.randint(0, 10, (4,))
    output = model(data)
    loss = torch.nn.functional.cross_entropy(output, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    train_accuracy.update((output.argmax(dim=1) == target).float().mean())
    train_loss.update(loss)
