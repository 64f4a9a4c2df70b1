"""Training through torch.utils.checkpoint around a block with BatchNorm: the asker worried about its statistics.

Source: https://github.com/pytorch/pytorch/issues/62471
Title: `torch.utils.checkpoint` with BatchNorm
Pattern: correct program (for the graph): the checkpointed block saves nothing for backward and reruns its forward
  during backward; the input requires grad, so the reentrant checkpoint records its node. (The running statistics
  are updated again by the rerun, the thread's question; no graph is kept or lost.)
Fault: none.
Fix: correct program: no warning expected.
"""

import torch
from torch.utils.checkpoint import checkpoint


class BNLinear(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bn = torch.nn.BatchNorm1d(10, momentum=0.001)
        self.linear = torch.nn.Linear(10, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(self.bn(x))


EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
block = BNLinear()
optimizer = torch.optim.SGD(block.parameters(), lr=1e-3)
for i in range(4):
    x = (torch.randn(4, 10) + i).requires_grad_(True)
    loss = torch.mean(checkpoint(block, x, use_reentrant=True))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
