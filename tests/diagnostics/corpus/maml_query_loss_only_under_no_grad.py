"""MAML with one inner update: the only query loss left to backward was computed under no_grad.

Source: https://github.com/dragen1860/MAML-Pytorch/issues/40
Title: questions with respect to the no_grad()
Pattern: graph cut by grad mode: the query losses are collected per inner step; the evaluation after the first
  update runs inside `with torch.no_grad():`, and with update_step = 1 the loop that computes the differentiable
  ones never runs, so the loss backwarded is the no_grad one.
Fault: the no_grad block that produced the loss being backwarded.
Fix (the answer): compute the loss that is backwarded with grad mode on (run at least one step outside no_grad).
"""

import torch

EXPECTED = {"kind": "error", "error": "element 0 of tensors does not require grad", "fix": "grad-mode-on"}

torch.manual_seed(0)
w = torch.nn.Parameter(torch.randn(5, 3) * 0.1)
meta_optim = torch.optim.Adam([w], lr=1e-3)
x_spt, y_spt = torch.randn(10, 5), torch.randint(0, 3, (10,))
x_qry, y_qry = torch.randn(15, 5), torch.randint(0, 3, (15,))
update_step = 1
losses_q = [0.0 for _ in range(update_step + 1)]
loss = torch.nn.functional.cross_entropy(x_spt @ w, y_spt)
grad = torch.autograd.grad(loss, [w])[0]
fast_weight = w - 0.4 * grad
with torch.no_grad():  # <- culprit
    losses_q[1] += torch.nn.functional.cross_entropy(x_qry @ fast_weight, y_qry)
for k in range(1, update_step):
    loss = torch.nn.functional.cross_entropy(x_spt @ fast_weight, y_spt)
    fast_weight = fast_weight - 0.4 * torch.autograd.grad(loss, [fast_weight])[0]
    losses_q[k + 1] += torch.nn.functional.cross_entropy(x_qry @ fast_weight, y_qry)
meta_optim.zero_grad()
losses_q[-1].backward()
meta_optim.step()
