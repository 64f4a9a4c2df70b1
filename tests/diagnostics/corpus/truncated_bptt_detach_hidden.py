"""A language model trained with truncated backpropagation through time: the hidden state is detached per batch.

Source: https://github.com/dpressel/dliss-tutorial/issues/1
Title: Detach the hidden states
Pattern: correct program: the last (h, c) of a batch initializes the next batch, detached first, so each backward
  stays within its batch; the asker asked why the detach is needed (the answer: truncated BPTT).
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
embed, lstm, proj = torch.nn.Embedding(40, 8), torch.nn.LSTM(8, 16, batch_first=True), torch.nn.Linear(16, 40)
optimizer = torch.optim.SGD([*embed.parameters(), *lstm.parameters(), *proj.parameters()], lr=1.0)
tokens = torch.randint(0, 40, (2, 61))
hidden = None
for start in range(0, 60, 10):
    x, y = tokens[:, start : start + 10], tokens[:, start + 1 : start + 11]
    if hidden is not None:
        hidden = tuple(h.detach() for h in hidden)
    output, hidden = lstm(embed(x), hidden)
    loss = torch.nn.functional.cross_entropy(proj(output).reshape(-1, 40), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_([*lstm.parameters(), *proj.parameters()], 0.25)
    optimizer.step()
