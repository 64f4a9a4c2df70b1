"""An LSTM whose (h, c) is carried across batches, "fixed" with retain_graph=True, then failing in place.

Source: https://blog.csdn.net/windhawk_fly/article/details/143405685
Title: LSTM: Trying to backward through the graph a second time, then modified by an inplace operation
Pattern: carried state: the state returned for one batch is the initial state of the next. The first error
  ("backward through the graph a second time") was silenced with retain_graph=True; the next batch's backward then
  reaches the previous batch's graph, whose saved weights optimizer.step() has since changed in place.
Fault: the line that carries (h0, c0) into the next batch.
Fix (the post's conclusion): detach the hidden and cell state before each batch (and drop retain_graph=True).
  Reordering optimizer.step() cannot help: the stale graph belongs to the previous batch.
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "detach-carried-state",
}

torch.manual_seed(0)
lstm = torch.nn.LSTM(6, 8, num_layers=1, batch_first=True)
head = torch.nn.Linear(8, 6)
optimizer = torch.optim.Adam([*lstm.parameters(), *head.parameters()], lr=1e-3)
h0, c0 = torch.randn(1, 4, 8), torch.randn(1, 4, 8)
for _batch in range(3):
    x, y = torch.randn(4, 5, 6), torch.randn(4, 5, 6)
    optimizer.zero_grad()
    output, (h0, c0) = lstm(x, (h0, c0))  # <- culprit
    loss = torch.nn.functional.mse_loss(head(output), y)
    loss.backward(retain_graph=True)
    optimizer.step()
