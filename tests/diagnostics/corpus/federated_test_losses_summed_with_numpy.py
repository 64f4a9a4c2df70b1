"""A federated server that evaluates its users with grad mode on and sums their test losses with NumPy.

Source: https://github.com/zhuangdizhu/FedGen/issues/1
Title: Can't call numpy() on Tensor that requires grad
Pattern: graphs never backwarded: each user's test loss is computed with grad mode on and returned as a tensor;
  the server weights and sums them with np.sum, which cannot take tensors that require grad.
Fault: the test loss returned with its graph.
Fix (the asker's, in the issue): `y.detach()` in the sum (evaluating under torch.no_grad() is the usual form).
"""

import numpy as np
import torch

EXPECTED = {"kind": "error", "error": "Can't call numpy() on Tensor that requires grad", "fix": "item-at-accumulation"}

torch.manual_seed(0)
users = [torch.nn.Linear(6, 3) for _ in range(3)]


def test(model: torch.nn.Module) -> tuple[int, torch.Tensor]:
    x, y = torch.randn(10, 6), torch.randint(0, 3, (10,))
    loss = torch.nn.functional.cross_entropy(model(x), y)  # <- culprit
    return y.shape[0], loss


test_samples, test_losses = zip(*(test(user) for user in users), strict=True)
glob_loss = np.sum([x * y.numpy() for (x, y) in zip(test_samples, test_losses, strict=True)]).item() / np.sum(test_samples)
