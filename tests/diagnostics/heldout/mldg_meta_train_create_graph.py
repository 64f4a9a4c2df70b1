"""Meta-learning domain generalisation: meta-train gradients with create_graph=True, one backward of both losses.

Source: https://github.com/Pulkit-Khandelwal/medical-mldg-seg/issues/2
Title: Can I replace "create_graph=True" by "retain_graph=True" when compute gradients with meta_trian_loss?
Pattern: correct program (for the graph): memory rises with create_graph=True because the second-order graph is
  kept until the step's single backward, then freed; the author confirmed create_graph is needed for the
  second-order update (retain_graph alone would be the first-order approximation).
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
weight, bias = torch.nn.Parameter(torch.randn(6, 3) * 0.3), torch.nn.Parameter(torch.zeros(3))
optimizer = torch.optim.Adam([weight, bias], lr=1e-3)
inner_lr, beta = 0.01, 1.0
for _iteration in range(5):
    x_train, y_train = torch.randn(8, 6), torch.randint(0, 3, (8,))
    x_test, y_test = torch.randn(8, 6) + 0.5, torch.randint(0, 3, (8,))
    meta_train_loss = torch.nn.functional.cross_entropy(x_train @ weight + bias, y_train)
    grad_w, grad_b = torch.autograd.grad(meta_train_loss, [weight, bias], create_graph=True)
    fast_weight, fast_bias = weight - inner_lr * grad_w, bias - inner_lr * grad_b
    meta_test_loss = torch.nn.functional.cross_entropy(x_test @ fast_weight + fast_bias, y_test)
    optimizer.zero_grad()
    (meta_train_loss + beta * meta_test_loss).backward()
    optimizer.step()
