"""A leaky integrate-and-fire cell driven batch after batch with the state it returned, one backward per batch.

Source: https://github.com/norse/norse/issues/130
Title: Reused state crashes subsequent backward passes
Pattern: carried state: `out, state = cell(batch, state)` feeds the previous batch's state, still attached to the
  previous batch's graph, into this batch's; that graph was freed by the previous backward.
Fault: passing the state on from one backward to the next without detaching it.
Fix (the maintainers' answer): keep one graph for the whole sequence, or detach the state yourself before reusing it
  in a new backward pass.
"""

from typing import NamedTuple

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "detach-carried-state"}


class LIFState(NamedTuple):
    v: torch.Tensor
    i: torch.Tensor


class LIFCell(torch.nn.Module):
    def __init__(self, inputs: int, hidden: int) -> None:
        super().__init__()
        self.input_weights = torch.nn.Linear(inputs, hidden, bias=False)
        self.hidden = hidden

    def forward(self, x: torch.Tensor, state: LIFState | None = None) -> tuple[torch.Tensor, LIFState]:
        if state is None:
            state = LIFState(torch.zeros(x.shape[0], self.hidden), torch.zeros(x.shape[0], self.hidden))
        i = 0.8 * state.i + self.input_weights(x)
        v = 0.9 * state.v + 0.1 * i
        spikes = torch.sigmoid(5 * (v - 0.5))
        return spikes, LIFState(v * (1 - spikes), i)


torch.manual_seed(0)
cell = LIFCell(12, 4)
optimizer = torch.optim.SGD(cell.parameters(), lr=0.1)
state = None
for _batch in range(3):
    out, state = cell(torch.ones(100, 12), state)  # <- culprit
    loss = out.sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
