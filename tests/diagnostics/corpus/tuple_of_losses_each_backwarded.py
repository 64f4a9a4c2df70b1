"""A trainer that calls backward on each loss of a model that returns several losses over one graph.

Source: https://github.com/mosaicml/composer/pull/1240
Title: Support sequence of losses in backwards pass
Pattern: shared subgraph: the model returns a tuple of losses computed from the same features; the trainer loops
  over them calling `loss.backward()` on each, and the second one finds the shared graph freed.
Fault: the backward called per loss.
Fix (the merged PR): add the losses up and call backward once on the sum.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "combine-or-retain"}

torch.manual_seed(0)
trunk = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU())
head_cls, head_reg = torch.nn.Linear(16, 3), torch.nn.Linear(16, 1)
params = [*trunk.parameters(), *head_cls.parameters(), *head_reg.parameters()]
optimizer = torch.optim.SGD(params, lr=0.1)


def model_losses(x: torch.Tensor, labels: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, ...]:
    features = trunk(x)
    return (
        torch.nn.functional.cross_entropy(head_cls(features), labels),
        torch.nn.functional.mse_loss(head_reg(features), target),
    )


for _batch in range(2):
    optimizer.zero_grad()
    losses = model_losses(torch.randn(6, 8), torch.randint(0, 3, (6,)), torch.randn(6, 1))
    for loss in losses:
        loss.backward()  # <- culprit
    optimizer.step()
