"""An RNN's hidden state carried from batch to batch without cutting it from the previous graph.

Source: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
Title: 403: question about h_state = h_state.data
Pattern: carried state: the last hidden state of one batch is the initial state of the next; with the tutorial's
  `h_state = h_state.data` commented out, the second backward reaches into the first batch's freed graph.
Fault: the line that hands the state to the next iteration.
Fix (the thread): cut the state from the old graph at the start of each batch (h_state.data then, detach() now).
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "detach-carried-state"}

torch.manual_seed(0)
rnn = torch.nn.RNN(1, 8, batch_first=True)
head = torch.nn.Linear(8, 1)
optimizer = torch.optim.Adam([*rnn.parameters(), *head.parameters()], lr=0.02)
h_state = None
for step in range(4):
    x = torch.linspace(step, step + 1, 6).reshape(1, 6, 1)
    out, h_state = rnn(x, h_state)  # <- culprit
    loss = torch.nn.functional.mse_loss(head(out), torch.sin(x))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
