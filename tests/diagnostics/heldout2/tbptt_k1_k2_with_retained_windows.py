"""Truncated backpropagation through time with k1 < k2: overlapping windows backwarded step by step through states.

Source: https://discuss.pytorch.org/t/implementing-truncated-backpropagation-through-time/15500
Title: Implementing Truncated Backpropagation Through Time
Pattern: correct program: each step starts from a detached copy of the previous state (a leaf that requires grad),
  the last k2 (input state, output state) pairs are kept, and every k1 steps the loss is backwarded into the newest
  input state and its gradient is carried back pair by pair; the windows overlap, so the pairs' graphs are retained
  until they drop out of the last k2, and memory stays bounded. The gradients of all windows are accumulated and the
  optimizer steps once, after the sequence (a step inside it would change weights the retained pairs saved).
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
cell = torch.nn.RNNCell(3, 8)
head = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.01)
k1, k2 = 2, 4
optimizer.zero_grad()
states: list[tuple[torch.Tensor | None, torch.Tensor]] = [(None, torch.zeros(1, 8))]
for step in range(12):
    state = states[-1][1].detach()
    state.requires_grad = True
    new_state = cell(torch.randn(1, 3), state)
    states.append((state, new_state))
    while len(states) > k2:
        del states[0]
    if (step + 1) % k1 == 0:
        loss = (head(new_state) - 1.0).pow(2).sum()
        loss.backward(retain_graph=True)
        for i in range(k2 - 1):
            if states[-i - 2][0] is None:
                break
            curr_grad = states[-i - 1][0].grad
            states[-i - 2][1].backward(curr_grad, retain_graph=True)
optimizer.step()
optimizer.zero_grad()
