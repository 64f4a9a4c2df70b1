"""A forecasting model's base class that keeps each training step's log dict, loss included, for the epoch end.

Source: https://github.com/sktime/pytorch-forecasting/pull/1924
Title: [BUG] fixed memory leak in BaseModel by detach some tensor
Pattern: holder in an object: `step()` returns a log dict with the loss and the prediction, and the model appends
  it to `self.training_step_outputs`, which is only cleared when the epoch ends, so every batch's graph stays alive
  for the whole epoch.
Fault: appending the undetached log dict.
Fix (the merged PR): detach the tensors in the log dict before appending it to the step outputs.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}


class BaseModel(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.network = torch.nn.Sequential(torch.nn.Linear(12, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
        self.training_step_outputs: list[dict] = []

    def step(self, x: torch.Tensor, y: torch.Tensor) -> dict:
        prediction = self.network(x)
        return {"loss": torch.nn.functional.mse_loss(prediction, y), "prediction": prediction}

    def training_step(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        log = self.step(x, y)
        self.training_step_outputs.append(log)  # <- culprit
        return log["loss"]

    def on_train_epoch_end(self) -> float:
        mean_loss = torch.stack([out["loss"] for out in self.training_step_outputs]).mean().item()
        self.training_step_outputs.clear()
        return mean_loss


torch.manual_seed(0)
model = BaseModel()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for _batch in range(5):
    loss = model.training_step(torch.randn(16, 12), torch.randn(16, 4))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
epoch_loss = model.on_train_epoch_end()
