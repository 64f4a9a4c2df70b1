"""A memory-efficient DenseNet: each layer's batch norm, ReLU and convolution run under a non-reentrant checkpoint.

Source: https://github.com/gpleiss/efficient_densenet_pytorch/issues/73
Title: The BN running mean&var with torch.utils.checkpoint.checkpoint
Pattern: correct program (for the graph): the concatenated features are recomputed in backward instead of being
  saved; every iteration's graph is freed by its backward. (The asker's question was the doubled statistics update;
  no graph is kept or lost.)
Fault: none.
Fix: correct program: no warning expected.
"""

import torch
from torch.utils.checkpoint import checkpoint


class DenseLayer(torch.nn.Module):
    def __init__(self, channels: int, growth: int) -> None:
        super().__init__()
        self.norm1, self.conv1 = torch.nn.BatchNorm2d(channels), torch.nn.Conv2d(channels, growth, 1, bias=False)

    def bottleneck(self, *features: torch.Tensor) -> torch.Tensor:
        return self.conv1(torch.relu(self.norm1(torch.cat(features, 1))))

    def forward(self, features: list[torch.Tensor]) -> torch.Tensor:
        return checkpoint(self.bottleneck, *features, use_reentrant=False)


EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
layers = torch.nn.ModuleList([DenseLayer(3, 2), DenseLayer(5, 2), DenseLayer(7, 2)])
classifier = torch.nn.Linear(9, 4)
optimizer = torch.optim.SGD([*layers.parameters(), *classifier.parameters()], lr=0.1, momentum=0.9, nesterov=True)
for _step in range(4):
    features = [torch.rand(2, 3, 6, 6)]
    for layer in layers:
        features.append(layer(features))
    logits = classifier(torch.cat(features, 1).mean((2, 3)))
    loss = torch.nn.functional.cross_entropy(logits, torch.randint(0, 4, (2,)))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
