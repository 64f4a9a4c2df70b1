"""A fine-tuning loop that sums the step losses for logging without detaching them.

Source: https://github.com/ray-project/ray/pull/40940
Title: Make sure that loss can be freed after every iteration
Pattern: accumulator in a function: `loss_sum += loss` inside the training function keeps every step's graph alive
  until the epoch ends: the leak found in the fine-tuning template.
Fault: the accumulation.
Fix (the merged PR): `loss_sum += loss.item()` (loss.detach() works as well).
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}


def training_function(steps: int) -> float:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(50, 16), torch.nn.Linear(16, 50))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss_sum = torch.tensor(0.0)
    for _step in range(steps):
        input_ids = torch.randint(0, 50, (4, 6))
        logits = model(input_ids[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 50), input_ids[:, 1:].reshape(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        loss_sum += loss  # <- culprit
    return float(loss_sum) / steps


training_function(5)
