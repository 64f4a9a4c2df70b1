"""A spiking network whose neurons keep their membrane potential from one batch to the next.

Source: https://github.com/jeshraghian/snntorch/issues/250
Title: Basic S-CNN - RuntimeError: Trying to backward through the graph a second time; try [retain_graph=True]
Pattern: carried state in a module attribute: a leaky integrate-and-fire layer updates `self.mem` from itself at
  every time step and never starts over, so the second batch's backward reaches into the first batch's graph.
Fault: the update of the membrane state.
Fix (the thread): reset the neurons' state at the start of each forward pass (utils.reset), which cuts the state
  from the previous batch's graph.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "detach-carried-state"}


class Leaky(torch.nn.Module):
    def __init__(self, beta: float) -> None:
        super().__init__()
        self.beta = beta
        self.mem = torch.zeros(1)

    def forward(self, current: torch.Tensor) -> torch.Tensor:
        self.mem = self.beta * self.mem + current  # <- culprit
        return torch.sigmoid(5 * (self.mem - 1.0))


torch.manual_seed(0)
fc, lif = torch.nn.Linear(10, 4), Leaky(beta=0.9)
optimizer = torch.optim.Adam(fc.parameters(), lr=5e-3)
for _batch in range(3):
    x, target = torch.rand(8, 10), torch.randint(0, 4, (8,))
    spikes = torch.stack([lif(fc(x)) for _ in range(5)])
    loss = torch.nn.functional.cross_entropy(spikes.sum(0), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
