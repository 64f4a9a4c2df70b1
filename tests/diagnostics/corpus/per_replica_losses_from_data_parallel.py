"""A model that returns its loss, run under DataParallel on several GPUs: the gathered loss is a vector.

Source: https://github.com/muzairkhattak/PromptSRC/issues/6
Title: RuntimeError: grad can be implicitly created only for scalar outputs
Pattern: non-scalar root: each replica returns a scalar loss, and DataParallel gathers them into one vector (one
  loss per GPU), on which the training loop calls backward. The gather is written out below.
Fault: the gathered per-replica losses.
Fix (the maintainer: train on one GPU, as the code supports; the usual fix): reduce with loss.mean() first.
"""

import torch

EXPECTED = {"kind": "error", "error": "grad can be implicitly created only for scalar outputs", "fix": "reduce-to-scalar"}

torch.manual_seed(0)
prompt_learner = torch.nn.Linear(12, 5)
optimizer = torch.optim.SGD(prompt_learner.parameters(), lr=2e-3)


def replica_loss(images: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.cross_entropy(prompt_learner(images), labels)


images, labels = torch.randn(8, 12), torch.randint(0, 5, (8,))
loss = torch.stack([replica_loss(images[:4], labels[:4]), replica_loss(images[4:], labels[4:])])  # <- culprit
optimizer.zero_grad()
loss.backward()
optimizer.step()
