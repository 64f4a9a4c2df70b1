"""A probabilistic regression head that makes its scale column positive by writing softplus back into the same tensor.

Source: https://github.com/pytorch/pytorch/issues/114505
Title: An inplace operation involved in torch.nn.functional.softplus
Pattern: in-place change of a saved value: `params[:, 1] = softplus(params[:, 1])` saves the column (a view of
  `params`) as softplus's input and then overwrites `params` itself; autograd keeps one version counter per storage,
  so the backward of softplus finds its input modified even though the write went through the same column.
Fault: the assignment of softplus's result into the tensor it read.
Fix (the maintainers' answer): do not write into the tensor an op saved; build the parameters out of place (compute
  the scale separately, then stack, or clone first).
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "out-of-place",
}

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
for _step in range(2):
    x = torch.randn(12, 3)
    y = x.sum(dim=1) + 0.1 * torch.randn(12)
    params = net(x)
    params[:, 1] = torch.nn.functional.softplus(params[:, 1])  # <- culprit
    loss = -torch.distributions.Normal(params[:, 0], params[:, 1]).log_prob(y).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
