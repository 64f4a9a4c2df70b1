"""A driving model trained step by step with a GRU state that is detached, not reset, every few steps.

Source: https://github.com/OpenDriveLab/Openpilot-Deepdive/issues/6
Title: About GRU training method.
Pattern: correct program: one frame per step, the losses of a window summed and backwarded every few steps, and
  the hidden state detached (kept, not zeroed) after each backward, as the deployed model keeps updating it; the
  answer explained why it is not reset.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
backbone, gru, head = torch.nn.Linear(10, 16), torch.nn.GRUCell(16, 16), torch.nn.Linear(16, 3)
optimizer = torch.optim.Adam([*backbone.parameters(), *gru.parameters(), *head.parameters()], lr=1e-4)
window = 4
hidden = torch.zeros(2, 16)
loss = torch.zeros(())
for step in range(12):
    frame, path = torch.randn(2, 10), torch.randn(2, 3)
    hidden = gru(torch.relu(backbone(frame)), hidden)
    loss = loss + torch.nn.functional.smooth_l1_loss(head(hidden), path)
    if (step + 1) % window == 0:
        optimizer.zero_grad()
        (loss / window).backward()
        optimizer.step()
        hidden = hidden.detach()
        loss = torch.zeros(())
