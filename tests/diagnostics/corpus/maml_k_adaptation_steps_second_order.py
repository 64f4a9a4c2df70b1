"""learn2learn-style MAML: k adaptation steps with second-order gradients, evaluation loss backwarded per task.

Source: https://github.com/learnables/learn2learn/issues/154
Title: Adaptations step influence on model graph
Pattern: correct program: each adaptation step keeps its graph (retain and create graph, second order), so the
  meta backward goes through all k steps; the graph is freed by that backward, task after task.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
opt = torch.optim.Adam(net.parameters(), lr=3e-3)


def adapted_forward(x: torch.Tensor, params: list[torch.Tensor]) -> torch.Tensor:
    return torch.relu(x @ params[0].t() + params[1]) @ params[2].t() + params[3]


for _iteration in range(3):
    opt.zero_grad()
    for _task in range(3):
        params = list(net.parameters())
        adapt_x, adapt_y = torch.randn(6, 6), torch.randint(0, 3, (6,))
        for _step in range(2):
            loss = torch.nn.functional.cross_entropy(adapted_forward(adapt_x, params), adapt_y)
            grads = torch.autograd.grad(loss, params, retain_graph=True, create_graph=True)
            params = [p - 0.5 * g for p, g in zip(params, grads, strict=True)]
        eval_x, eval_y = torch.randn(6, 6), torch.randint(0, 3, (6,))
        evaluation_error = torch.nn.functional.cross_entropy(adapted_forward(eval_x, params), eval_y)
        evaluation_error.backward()
    for p in net.parameters():
        p.grad.mul_(1.0 / 3)
    opt.step()
