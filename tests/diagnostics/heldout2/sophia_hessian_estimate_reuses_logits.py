"""A Sophia-style loop whose periodic Hessian estimate backwards a sampled-label loss built on the step's own logits.

Source: https://github.com/Liuhong99/Sophia/issues/1
Title: Trying to backward through the graph a second time
Pattern: two backwards through one forward: every few steps the diagonal Hessian estimate samples labels from the
  training step's `logits` and backwards `loss_sampled`, built on those logits, whose graph the training loss's
  backward has already freed.
Fault: reusing the step's logits for the sampled loss.
Fix (the reporter's resolution, as train_sophiag.py does): run a fresh forward pass for the Hessian update, in its
  own function, instead of reusing the logits of the training step.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "recompute-in-loop"}

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Embedding(40, 16), torch.nn.Linear(16, 40))
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)
hessian = {p: torch.zeros_like(p) for p in model.parameters()}
hess_interval, beta2 = 2, 0.99
for iter_num in range(1, 5):
    x, y = torch.randint(0, 40, (4, 8)), torch.randint(0, 40, (4, 8))
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits.view(-1, 40), y.view(-1))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    if iter_num % hess_interval == 0:
        y_sample = torch.distributions.Categorical(logits=logits.detach()).sample()
        loss_sampled = torch.nn.functional.cross_entropy(logits.view(-1, 40), y_sample.view(-1))  # <- culprit
        loss_sampled.backward()
        with torch.no_grad():
            for p in model.parameters():
                hessian[p].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
        optimizer.zero_grad(set_to_none=True)
