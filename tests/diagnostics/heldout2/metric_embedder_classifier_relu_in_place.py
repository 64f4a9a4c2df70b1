"""Metric learning with an auxiliary classifier whose first layer is an in-place ReLU applied to the shared embeddings.

Source: https://github.com/KevinMusgrave/powerful-benchmarker/issues/78
Title: Bug due to ReLU(inplace=True) with TrainWithClassifier
Pattern: in-place change of a saved value inside a model: the metric loss normalises the embeddings (saving them for
  its backward) before the classifier head runs; the head starts with `ReLU(inplace=True)`, which overwrites those
  same embeddings.
Fault: the in-place ReLU at the start of the classifier head.
Fix (the reporter's fix, confirmed by the maintainer): remove `inplace=True` from the MLPs.
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "out-of-place",
}


def contrastive_loss(embeddings: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    normed = torch.nn.functional.normalize(embeddings, dim=1)
    distances = torch.cdist(normed, normed)
    same = labels[:, None] == labels[None, :]
    return distances[same].mean() + torch.relu(1.0 - distances[~same]).mean()


torch.manual_seed(0)
trunk = torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU())
embedder = torch.nn.Linear(32, 16)
classifier = torch.nn.Sequential(torch.nn.ReLU(inplace=True), torch.nn.Linear(16, 4))  # <- culprit
optimizer = torch.optim.Adam([*trunk.parameters(), *embedder.parameters(), *classifier.parameters()], lr=1e-3)
for _iteration in range(2):
    data, labels = torch.randn(8, 20), torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])
    embeddings = embedder(trunk(data))
    metric = contrastive_loss(embeddings, labels)
    logits = classifier(embeddings)
    loss = metric + torch.nn.functional.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
