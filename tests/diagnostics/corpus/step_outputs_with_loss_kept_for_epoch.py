"""A trainer that keeps every step's output dict, loss included, until the end of the epoch.

Source: https://github.com/TRI-ML/packnet-sfm/issues/47
Title: About memory leaks
Pattern: holder: `outputs.append(output)` where `output` is a dict whose 'loss' is the step's loss tensor; the
  list keeps every step's graph alive for the epoch (memory 21G -> 38G in one epoch).
Fault: the append of the output dict.
Fix (the maintainer, merged in PR #51): detach output['loss'] before appending it.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}

torch.manual_seed(0)
depth_net = torch.nn.Sequential(torch.nn.Linear(12, 24), torch.nn.ReLU(), torch.nn.Linear(24, 1))
optimizer = torch.optim.Adam(depth_net.parameters(), lr=2e-4)


def training_step(batch: torch.Tensor) -> dict[str, torch.Tensor]:
    depth = depth_net(batch)
    loss = (depth - batch.mean(1, keepdim=True)).abs().mean()
    return {"loss": loss, "metrics": {"depth_mean": depth.detach().mean()}}


outputs = []
for _step in range(5):
    output = training_step(torch.randn(16, 12))
    optimizer.zero_grad()
    output["loss"].backward()
    optimizer.step()
    outputs.append(output)  # <- culprit
