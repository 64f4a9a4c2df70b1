"""A Trainer-style loop that keeps its running training loss as a tensor, adding each step's loss without detaching.

Source: https://github.com/huggingface/transformers/pull/6999
Title: fixed trainer tr_loss memory leak
Pattern: accumulator in a method: `tr_loss += self.training_step(model, inputs)` where the step returns the loss
  tensor it backwarded; `tr_loss` then holds every step's graph until the end of training (logged only every few
  steps).
Fault: the accumulation of the undetached loss.
Fix (the merged PR, after review): accumulate a detached loss (`loss.detach()`), keeping the total a tensor but
  without history.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}


class Trainer:
    def __init__(self, model: torch.nn.Module, logging_steps: int) -> None:
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
        self.logging_steps = logging_steps
        self.log_history: list[float] = []

    def training_step(self, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
        logits = self.model(inputs["input_ids"]).mean(dim=1)
        loss = torch.nn.functional.cross_entropy(logits, inputs["labels"])
        loss.backward()
        return loss

    def train(self, steps: int) -> None:
        tr_loss = torch.tensor(0.0)
        logging_loss = 0.0
        for step in range(1, steps + 1):
            inputs = {"input_ids": torch.randint(0, 50, (4, 6)), "labels": torch.randint(0, 2, (4,))}
            tr_loss += self.training_step(inputs)  # <- culprit
            self.optimizer.step()
            self.optimizer.zero_grad()
            if step % self.logging_steps == 0:
                self.log_history.append((tr_loss.item() - logging_loss) / self.logging_steps)
                logging_loss = tr_loss.item()


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Embedding(50, 16), torch.nn.Linear(16, 2))
Trainer(model, logging_steps=4).train(steps=8)
