"""A training wrapper whose validation step runs with grad mode on and keeps each batch's loss.

Source: https://github.com/skorch-dev/skorch/issues/218
Title: Should use torch.no_grad in validation_step()?
Pattern: graphs never backwarded: validation_step computes the prediction and loss with grad mode on, and the
  batch losses are kept for the epoch's history, so each batch's graph (never backwarded) stays alive; GPU memory
  grew batch after batch until out of memory.
Fault: the loss kept from a step that records a graph it never uses.
Fix (the maintainers, PR #219): run validation_step under torch.no_grad().
"""

import torch

EXPECTED = {"kind": "leak", "fix": "no-grad-eval"}

torch.manual_seed(0)
module = torch.nn.Sequential(torch.nn.Linear(9, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
criterion = torch.nn.CrossEntropyLoss()


def validation_step(xi: torch.Tensor, yi: torch.Tensor) -> dict[str, torch.Tensor]:
    module.eval()
    y_pred = module(xi)
    return {"loss": criterion(y_pred, yi), "y_pred": y_pred}


batch_losses = []
for _batch in range(5):
    step = validation_step(torch.randn(16, 9), torch.randint(0, 4, (16,)))
    batch_losses.append(step["loss"])  # <- culprit
val_loss = float(sum(batch_losses)) / len(batch_losses)
