"""A predictor that fine-tunes a model at prediction time, under the server's inference_mode decorator.

Source: https://github.com/replicate/cog/issues/1681
Title: Unable to compute gradient in during inference
Pattern: graph cut by grad mode: predict() is decorated with `@torch.inference_mode()`, so nothing inside it is
  recorded and loss.backward() raises; setting loss.requires_grad_(True) hid the error and nothing learned.
Fault: the inference_mode decorator over the function that trains.
Fix (the asker's): remove the inference_mode decorator from the function that calls backward.
"""

import torch

EXPECTED = {"kind": "error", "error": "element 0 of tensors does not require grad", "fix": "grad-mode-on"}

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.inference_mode()  # <- culprit
def predict(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    for _ in range(3):
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model(x)


predict(torch.randn(8, 4), torch.randn(8, 1))
