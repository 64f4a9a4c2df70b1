"""Cross-batch memory for metric learning: past embeddings are detached before they enter the queue.

Source: https://github.com/bnu-wangxun/Deep_Metric/issues/45
Title: XBM memory management after detach() operation
Pattern: correct program: the memory queue holds detached embeddings and labels of earlier batches; the loss compares
  the current batch's embeddings with the memory, so gradients flow only into the current features, as the authors
  explain in the issue.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}


class CrossBatchMemory:
    def __init__(self, size: int, dim: int) -> None:
        self.feats = torch.zeros(size, dim)
        self.labels = torch.full((size,), -1)
        self.ptr = 0

    def enqueue_dequeue(self, feats: torch.Tensor, labels: torch.Tensor) -> None:
        n = feats.shape[0]
        self.feats[self.ptr:self.ptr + n] = feats
        self.labels[self.ptr:self.ptr + n] = labels
        self.ptr = (self.ptr + n) % self.feats.shape[0]


def contrastive(anchors: torch.Tensor, labels: torch.Tensor, feats: torch.Tensor, feat_labels: torch.Tensor) -> torch.Tensor:
    sim = anchors @ feats.T
    valid = feat_labels[None, :] >= 0
    pos = (labels[:, None] == feat_labels[None, :]) & valid
    neg = (labels[:, None] != feat_labels[None, :]) & valid
    return (1 - sim[pos]).sum() / anchors.shape[0] + torch.relu(sim[neg] - 0.5).sum() / anchors.shape[0]


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
memory = CrossBatchMemory(size=24, dim=8)
for _iteration in range(8):
    images, labels = torch.randn(6, 16), torch.randint(0, 3, (6,))
    feats = torch.nn.functional.normalize(model(images), dim=1)
    loss = contrastive(feats, labels, feats, labels) + contrastive(feats, labels, memory.feats, memory.labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    memory.enqueue_dequeue(feats.detach(), labels)
