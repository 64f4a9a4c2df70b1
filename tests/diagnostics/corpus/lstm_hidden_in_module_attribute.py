"""An LSTM model that stores its last hidden state on itself and feeds it back on the next call.

Source: https://github.com/sgadgil6/cnslab_fmri/issues/4
Title: Trying to backward through the graph a second time, but the saved intermediate results have already been freed
Pattern: carried state in a module attribute: forward does `out, self.hidden = self.lstm(x, self.hidden)`, so the
  second batch's graph starts from the first batch's, which its backward already freed; retain_graph=True only ran
  out of memory.
Fault: the assignment to self.hidden.
Fix (the merged fix): stop feeding the previous batch's state back in (`self.lstm(x)`); where the state must be
  carried, detach it first.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "detach-carried-state"}


class FmriLSTM(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = torch.nn.LSTM(5, 8, batch_first=True)
        self.linear = torch.nn.Linear(8, 1)
        self.hidden = (torch.zeros(1, 4, 8), torch.zeros(1, 4, 8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, self.hidden = self.lstm(x, self.hidden)  # <- culprit
        return torch.sigmoid(self.linear(out[:, -1]))


torch.manual_seed(0)
model = FmriLSTM()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for _batch in range(3):
    x, y = torch.randn(4, 7, 5), torch.randint(0, 2, (4, 1)).float()
    loss = torch.nn.functional.binary_cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
