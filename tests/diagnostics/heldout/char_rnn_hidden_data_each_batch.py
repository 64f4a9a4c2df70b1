"""A character-level LSTM whose hidden state is initialised each epoch and rewrapped from its data each batch.

Source: https://github.com/udacity/deep-learning-v2-pytorch/issues/187
Title: Question about init_hidden in Character_Level_RNN_Solution
Pattern: correct program: the hidden state is zeroed once per epoch and carried from batch to batch, since the
  batches continue one text; `h = tuple(each.data for each in h)` at the start of each batch keeps the values and
  drops the previous batch's graph.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
lstm, fc = torch.nn.LSTM(10, 16, batch_first=True), torch.nn.Linear(16, 10)
optimizer = torch.optim.Adam([*lstm.parameters(), *fc.parameters()], lr=1e-3)
text = torch.randint(0, 10, (2, 41))
for _epoch in range(2):
    h = (torch.zeros(1, 2, 16), torch.zeros(1, 2, 16))
    for start in range(0, 40, 8):
        x = torch.nn.functional.one_hot(text[:, start : start + 8], 10).float()
        y = text[:, start + 1 : start + 9]
        h = tuple(each.data for each in h)
        output, h = lstm(x, h)
        loss = torch.nn.functional.cross_entropy(fc(output).reshape(-1, 10), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_([*lstm.parameters(), *fc.parameters()], 5)
        optimizer.step()
