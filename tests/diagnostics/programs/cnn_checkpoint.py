"""A CNN whose convolution, BatchNorm and dropout run under activation checkpointing, reentrant and not.

For each kind of checkpoint: 20 training steps, then an evaluation; prints the losses, BatchNorm's
num_batches_tracked and a digest of every parameter and buffer.
"""

import torch
from _digest import state_digest
from torch import nn
from torch.utils.checkpoint import checkpoint


def train(reentrant: bool) -> None:
    torch.manual_seed(0)
    block = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Dropout(0.2))
    head = nn.Linear(8 * 8 * 8, 10)
    model = nn.ModuleDict({"block": block, "head": head})
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(20):
        x = torch.randn(4, 3, 8, 8, requires_grad=reentrant)  # a reentrant checkpoint needs an input that requires grad
        y = torch.randint(0, 10, (4,))
        features = checkpoint(block, x, use_reentrant=reentrant)
        loss = nn.functional.cross_entropy(head(features.flatten(1)), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, repr(loss.item()))
    model.eval()
    with torch.no_grad():
        x = torch.randn(16, 3, 8, 8)
        print("eval", repr(nn.functional.cross_entropy(head(block(x).flatten(1)), torch.randint(0, 10, (16,))).item()))
    print("num_batches_tracked", int(block[1].num_batches_tracked))
    print(state_digest(model))


for reentrant in (False, True):
    print("use_reentrant", reentrant)
    train(reentrant)
