"""Per-sequence losses of a batch summed into one loss, with one backward per batch.

Source: https://discuss.pytorch.org/t/gpu-memory-increase-while-i-wanna-to-backward-with-accumulative-loss/43284
Title: GPU memory increase while I wanna to backward() with accumulative loss
Pattern: correct program: sequences of different lengths get a loss each; `loss += loss_part` adds them within the
  batch and one backward frees the whole graph. The asker feared the sum leaked; it turned out to be elsewhere.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
encoder = torch.nn.GRU(4, 8)
scorer = torch.nn.Linear(8, 1)
optimizer = torch.optim.Adam([*encoder.parameters(), *scorer.parameters()], lr=1e-3)
for _batch in range(5):
    loss = 0
    for length in (3, 5, 2):
        seq = torch.randn(length, 1, 4)
        out, _ = encoder(seq)
        loss_part = (scorer(out[-1]) - 1.0).pow(2).mean()
        loss += loss_part
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
