"""Two task heads on one trunk: the first loss backwarded with retain_graph=True, the second without, one step.

Source: https://discuss.pytorch.org/t/multi-task-learning-whats-the-difference-between-jointly-backward-and-backward-with-retain-graph-true/28162
Title: Multi-task learning: what's the difference between jointly backward and backward with `retain_graph=True`?
Pattern: correct program: the asker compared `(loss1 + loss2).backward()` with `loss1.backward(retain_graph=True);
  loss2.backward()`; the answers: the gradients are the same (they add up in .grad before the step), the shared
  graph is kept only until the second backward, which frees it.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
trunk = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU())
head1, head2 = torch.nn.Linear(32, 3), torch.nn.Linear(32, 1)
optimizer = torch.optim.SGD([*trunk.parameters(), *head1.parameters(), *head2.parameters()], lr=0.01)
for _iteration in range(6):
    x, labels, values = torch.randn(8, 10), torch.randint(0, 3, (8,)), torch.randn(8, 1)
    features = trunk(x)
    loss1 = torch.nn.functional.cross_entropy(head1(features), labels)
    loss2 = torch.nn.functional.mse_loss(head2(features), values)
    optimizer.zero_grad()
    loss1.backward(retain_graph=True)
    loss2.backward()
    optimizer.step()
