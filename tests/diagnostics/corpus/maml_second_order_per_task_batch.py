"""Second-order MAML: inner updates with autograd.grad(create_graph=True), one meta step per batch of tasks.

Source: https://github.com/wyharveychen/CloserLookFewShot/issues/62
Title: GPU memory continue to grow for MAML
Pattern: correct program: each task's adapted weights keep the graph of their inner gradients until the meta loss
  is backwarded, and then all of it is freed; the growth the asker saw went away with another PyTorch version.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
w1, w2 = torch.nn.Parameter(torch.randn(4, 16) * 0.3), torch.nn.Parameter(torch.randn(16, 5) * 0.3)
meta_optimizer = torch.optim.Adam([w1, w2], lr=1e-3)


def forward(x: torch.Tensor, weights: list[torch.Tensor]) -> torch.Tensor:
    return torch.relu(x @ weights[0]) @ weights[1]


for _epoch in range(4):
    meta_optimizer.zero_grad()
    for _task in range(2):
        x_support, y_support = torch.randn(10, 4), torch.randint(0, 5, (10,))
        x_query, y_query = torch.randn(10, 4), torch.randint(0, 5, (10,))
        fast_parameters = [w1, w2]
        for _inner_step in range(3):
            set_loss = torch.nn.functional.cross_entropy(forward(x_support, fast_parameters), y_support)
            grad = torch.autograd.grad(set_loss, fast_parameters, create_graph=True)
            fast_parameters = [w - 0.01 * g for w, g in zip(fast_parameters, grad, strict=True)]
        query_loss = torch.nn.functional.cross_entropy(forward(x_query, fast_parameters), y_query)
        query_loss.backward()
    meta_optimizer.step()
