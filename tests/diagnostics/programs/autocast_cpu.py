"""A small convnet trained under CPU autocast (bfloat16): prints the losses and a digest of its state."""

import torch
from _digest import state_digest
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 8 * 8, 10))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(10):
    x = torch.randn(4, 3, 8, 8)
    y = torch.randint(0, 10, (4,))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, repr(loss.item()))
print(state_digest(model))
