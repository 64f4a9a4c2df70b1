"""The word-language-model recipe: `hidden = repackage_hidden(hidden)` at the start of every batch.

Source: https://github.com/yikangshen/Ordered-Neurons/issues/13
Title: question about on-lstm hidden states initialization ?
Pattern: correct program: the hidden state is created once and carried across batches of one long sequence,
  rewrapped (detached) at each batch so that backward never reaches an earlier batch; the asker asked why it is not
  re-initialized instead.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}


def repackage_hidden(h: torch.Tensor | tuple) -> torch.Tensor | tuple:
    return h.detach() if isinstance(h, torch.Tensor) else tuple(repackage_hidden(v) for v in h)


torch.manual_seed(0)
encoder, rnn, decoder = torch.nn.Embedding(30, 8), torch.nn.LSTM(8, 12), torch.nn.Linear(12, 30)
params = [*encoder.parameters(), *rnn.parameters(), *decoder.parameters()]
optimizer = torch.optim.SGD(params, lr=5.0)
data = torch.randint(0, 30, (51, 3))
hidden = (torch.zeros(1, 3, 12), torch.zeros(1, 3, 12))
for i in range(0, 50, 7):
    seq_len = min(7, 50 - i)
    inputs, targets = data[i : i + seq_len], data[i + 1 : i + 1 + seq_len]
    hidden = repackage_hidden(hidden)
    output, hidden = rnn(encoder(inputs), hidden)
    loss = torch.nn.functional.cross_entropy(decoder(output).reshape(-1, 30), targets.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
