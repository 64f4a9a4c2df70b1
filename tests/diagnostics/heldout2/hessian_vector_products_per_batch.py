"""Hessian-vector products of a classifier's loss computed batch after batch with double backward.

Source: https://github.com/pytorch/pytorch/issues/2498
Title: Memory leak in high order derivative? (pytorch 0.2)
Pattern: correct program: each batch takes the gradient with create_graph=True, forms its inner product with a fixed
  vector and differentiates that again; nothing outlives the batch except the products themselves (plain tensors). The
  growth the reporter saw was a bug of PyTorch 0.2, fixed since.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(10, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))
loss_f = torch.nn.CrossEntropyLoss()
v = [torch.randn_like(p) for p in net.parameters()]
curvatures = []
for _batch in range(6):
    images, labels = torch.randn(8, 10, requires_grad=True), torch.randint(0, 3, (8,))
    loss = loss_f(net(images), labels)
    grad_params = torch.autograd.grad(loss, net.parameters(), create_graph=True)
    inner_prod = 0.0
    for vi, grad in zip(v, grad_params, strict=True):
        inner_prod += torch.sum(grad * vi)
    hv = torch.autograd.grad(inner_prod, net.parameters())
    curvatures.append(sum(float((h * vi).sum()) for h, vi in zip(hv, v, strict=True)))
