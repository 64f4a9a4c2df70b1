"""A GRU whose hidden state is carried from one batch to the next without detach().

The second backward reaches through `hidden` into the first iteration's graph, which the first
backward freed: PyTorch's "Trying to backward through the graph a second time".
"""

import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.GRU(input_size=4, hidden_size=8, batch_first=True)
head = nn.Linear(8, 1)
optimizer = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.1)
hidden = torch.zeros(1, 2, 8)
for step in range(5):
    x, y = torch.randn(2, 3, 4), torch.randn(2, 1)
    out, hidden = rnn(x, hidden)
    loss = ((head(out[:, -1]) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
