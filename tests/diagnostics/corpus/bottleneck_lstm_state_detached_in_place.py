"""A video detector with a bottleneck LSTM whose hidden and cell states are detached in place after each sequence.

Source: https://github.com/vikrant7/mobile-vod-bottleneck-lstm/issues/6
Title: Is it necessary to re-initilize hidden state and cell state after detach_() ?
Pattern: correct program: the state carries from one sequence of frames to the next, cut from the graph with
  detach_() after each backward; the asker asked whether it should be reset too (no: the model learns from it).
Fault: none.
Fix: correct program: no warning expected.
"""

import torch


class BottleneckLSTMCell(torch.nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.gates = torch.nn.Conv2d(2 * channels, 4 * channels, 3, padding=1)
        self.hidden_state = torch.zeros(1, channels, 4, 4)
        self.cell_state = torch.zeros(1, channels, 4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        i, f, o, g = self.gates(torch.cat([x, self.hidden_state], 1)).chunk(4, 1)
        self.cell_state = torch.sigmoid(f) * self.cell_state + torch.sigmoid(i) * torch.tanh(g)
        self.hidden_state = torch.sigmoid(o) * torch.tanh(self.cell_state)
        return self.hidden_state

    def detach_hidden(self) -> None:
        self.hidden_state.detach_()
        self.cell_state.detach_()


EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
cell, head = BottleneckLSTMCell(3), torch.nn.Conv2d(3, 2, 1)
optimizer = torch.optim.RMSprop([*cell.parameters(), *head.parameters()], lr=1e-3)
for _sequence in range(4):
    optimizer.zero_grad()
    loss = 0
    for _frame in range(3):
        loss = loss + head(cell(torch.randn(1, 3, 4, 4))).pow(2).mean()
    loss.backward()
    optimizer.step()
    cell.detach_hidden()
