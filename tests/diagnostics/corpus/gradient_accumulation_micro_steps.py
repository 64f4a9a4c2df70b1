"""Gradient accumulation as in nanoGPT: backward on every micro-batch, one optimizer step per batch.

Source: https://github.com/karpathy/nanoGPT/issues/168
Title: Should `loss` be divided by `gradient_accumulation_steps`?
Pattern: correct program: each micro-batch's loss (scaled by 1/steps, the point of the issue) is backwarded at
  once, so its graph is freed, and the gradients add up in .grad until the step.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Embedding(32, 16), torch.nn.Linear(16, 32))
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)
gradient_accumulation_steps = 4
for _iter_num in range(4):
    for _micro_step in range(gradient_accumulation_steps):
        X = torch.randint(0, 32, (4, 8))
        logits = model(X[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 32), X[:, 1:].reshape(-1))
        loss = loss / gradient_accumulation_steps
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    lossf = loss.item() * gradient_accumulation_steps
