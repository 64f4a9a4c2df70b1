"""A super-resolution validation loop run without no_grad, summing batch metrics that carry graphs.

Source: https://github.com/leftthomas/SRGAN/issues/43
Title: GPU RAM exploding on validation
Pattern: graphs never backwarded: the validation forward records a graph, and `valing_results['mse'] += ...`
  keeps each batch's graph alive; GPU memory explodes part way through validation.
Fault: the accumulation of the recorded metric, in a loop that records graphs it never uses.
Fix (the thread): wrap the whole validation loop in `with torch.no_grad():`.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "no-grad-eval"}

torch.manual_seed(0)
netG = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.PReLU(), torch.nn.Conv2d(8, 3, 3, padding=1))
netG.eval()
valing_results = {"mse": 0, "batch_sizes": 0}
for _batch in range(5):
    lr, hr = torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8)
    sr = netG(lr)
    batch_mse = ((sr - hr) ** 2).mean()
    valing_results["mse"] += batch_mse * lr.size(0)  # <- culprit
    valing_results["batch_sizes"] += lr.size(0)
mse = float(valing_results["mse"]) / valing_results["batch_sizes"]
