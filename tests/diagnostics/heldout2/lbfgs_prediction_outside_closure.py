"""A linear regression fitted with L-BFGS whose closure reuses a prediction made once, before the step.

Source: https://github.com/pytorch/pytorch/issues/111369
Title: torch.optim.LBFGS error
Pattern: precomputed value: `pred = model(x)` runs once, outside the closure; L-BFGS calls the closure several times
  within one `step`, and from the second call on the loss goes back through the graph of that one forward, which the
  first call's backward freed.
Fault: the forward pass outside the closure.
Fix (the reporter's resolution in the thread): compute the prediction inside the closure, so every call of the
  closure builds its own graph.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "recompute-in-loop"}

torch.manual_seed(0)
x, y = torch.rand(40, 5), torch.rand(40, 1)
model = torch.nn.Linear(5, 1)
optimizer = torch.optim.LBFGS(model.parameters(), max_iter=4)
criterion = torch.nn.MSELoss()
pred = model(x)  # <- culprit


def closure() -> torch.Tensor:
    optimizer.zero_grad()
    loss = criterion(pred, y)
    loss.backward()
    return loss


optimizer.step(closure)
