"""A loss library's usage example whose random logits do not require grad.

Source: https://github.com/abhuse/polyloss-pytorch/issues/4
Title: In the example, logits needs requires_grad=True
Pattern: nothing requires grad: the example builds logits with torch.rand and calls loss.backward(); with no
  tensor that requires grad there is no graph.
Fault: the logits created without requires_grad.
Fix (the issue): `torch.rand([batch_size, num_classes], requires_grad=True)`.
"""

import torch

EXPECTED = {"kind": "error", "error": "element 0 of tensors does not require grad", "fix": "requires-grad"}


def poly1_cross_entropy(logits: torch.Tensor, labels: torch.Tensor, epsilon: float = 1.0) -> torch.Tensor:
    probs = torch.softmax(logits, dim=-1)
    pt = probs.gather(-1, labels.unsqueeze(-1)).squeeze(-1)
    return (torch.nn.functional.cross_entropy(logits, labels, reduction="none") + epsilon * (1 - pt)).mean()


torch.manual_seed(0)
batch_size, num_classes = 4, 5
logits = torch.rand([batch_size, num_classes])  # <- culprit
labels = torch.randint(0, num_classes, [batch_size])
loss = poly1_cross_entropy(logits, labels)
loss.backward()
