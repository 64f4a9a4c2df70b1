"""A depth network's training loop that appends each step's output dict, undetached loss included, to a list.

Source: https://github.com/TRI-ML/packnet-sfm/pull/51
Title: Fix memory leak
Pattern: holder: the training step returns `{"loss": loss, "metrics": ...}` and the loop keeps every one of them in
  an epoch-long list for averaging at the end, so each batch's loss keeps its graph alive.
Fault: appending the output whose loss still carries its graph.
Fix (the merged PR): detach the loss before appending it to the training output list.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}

torch.manual_seed(0)
depth_net = torch.nn.Sequential(
    torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(8, 1, 3, padding=1)
)
optimizer = torch.optim.Adam(depth_net.parameters(), lr=2e-4)


def training_step(image: torch.Tensor, target: torch.Tensor) -> dict:
    inv_depth = torch.sigmoid(depth_net(image))
    loss = (inv_depth - target).abs().mean()
    return {"loss": loss, "metrics": {"inv_depth": inv_depth.mean().item()}}


outputs = []
for _batch in range(8):
    image, target = torch.rand(2, 3, 8, 8), torch.rand(2, 1, 8, 8)
    output = training_step(image, target)
    optimizer.zero_grad()
    output["loss"].backward()
    optimizer.step()
    outputs.append(output)  # <- culprit
epoch_loss = sum(out["loss"].item() for out in outputs) / len(outputs)
