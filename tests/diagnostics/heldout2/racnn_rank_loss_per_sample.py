"""A recurrent-attention CNN whose ranking loss between two scales is backwarded per scale, written for batch size 1.

Source: https://github.com/dillondavis/RecurrentAttentionConvolutionalNeuralNetwork/issues/4
Title: RuntimeError: grad can be implicitly created only for scalar outputs
Pattern: non-scalar root: the pairwise ranking loss gathers the true class's probability at each scale and returns
  `clamp(p_coarse - p_fine + margin, min=0)`, one value per example; with a batch larger than one, the loss handed to
  `backward` is a vector.
Fault: the ranking loss that returns one value per example.
Fix (the reporter's fix of the rank loss): reduce the per-example ranking losses to one number (their mean).
"""

import torch

EXPECTED = {"kind": "error", "error": "grad can be implicitly created only for scalar outputs", "fix": "reduce-to-scalar"}


def rank_loss(scores_coarse: torch.Tensor, scores_fine: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    p_coarse = torch.softmax(scores_coarse, dim=1).gather(1, target.view(-1, 1))
    p_fine = torch.softmax(scores_fine, dim=1).gather(1, target.view(-1, 1))
    return torch.clamp(p_coarse - p_fine + 0.05, min=0)  # <- culprit


torch.manual_seed(0)
scales = torch.nn.ModuleList(torch.nn.Linear(12, 5) for _ in range(3))
optimizer = torch.optim.SGD(scales.parameters(), lr=0.01)
images, labels = torch.randn(4, 12), torch.randint(0, 5, (4,))
optimizer.zero_grad()
scores = [scale(images) for scale in scales]
for i in range(1, len(scores)):
    rank_loss(scores[i - 1], scores[i], labels).backward(retain_graph=i < len(scores) - 1)
optimizer.step()
