"""A facial-expression trainer whose epoch function sums the loss tensors it backwards.

Source: https://github.com/zyh-uaiaaaa/Erasing-Attention-Consistency/issues/11
Title: Memory leak
Pattern: accumulator in a function: `running_loss += loss` in train() keeps the graphs of the epoch alive (the
  reporter's memory profile grew step by step); the counters computed beside it carry no graph.
Fault: the accumulation of the loss.
Fix (the reporter's): detach before accumulating (`loss.detach()`, or loss.item()).
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}


def train(model: torch.nn.Module, optimizer: torch.optim.Optimizer, batches: int) -> tuple[float, int]:
    running_loss, correct_sum = 0.0, 0
    for _i in range(batches):
        imgs, labels = torch.randn(8, 10), torch.randint(0, 7, (8,))
        output = model(imgs)
        loss = torch.nn.functional.cross_entropy(output, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running_loss += loss  # <- culprit
        _, predicts = torch.max(output, 1)
        correct_sum += int(torch.eq(predicts, labels).sum())
    return float(running_loss) / batches, correct_sum


torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU(), torch.nn.Linear(32, 7))
train(net, torch.optim.SGD(net.parameters(), lr=0.1), 5)
