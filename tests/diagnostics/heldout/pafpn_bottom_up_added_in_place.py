"""A PAFPN neck whose bottom-up path adds the downsampled level into the next level's ReLU output in place.

Source: https://github.com/open-mmlab/mmdetection/pull/9450
Title: [Fix] Fix backward inplace error with pafpn
Pattern: in-place change of a saved value: each level's FPN conv ends in an in-place ReLU, whose backward needs its
  output, and `inter_outs[i + 1] += downsample(inter_outs[i])` overwrites that output; with a ReLU activation the
  training's backward fails.
Fault: the in-place addition in the bottom-up path.
Fix (the merged PR): don't do the addition in place (`inter_outs[i + 1] = inter_outs[i + 1] + ...`).
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "out-of-place",
}


class PAFPN(torch.nn.Module):
    def __init__(self, in_channels: tuple[int, ...], channels: int) -> None:
        super().__init__()
        self.lateral_convs = torch.nn.ModuleList(torch.nn.Conv2d(c, channels, 1) for c in in_channels)
        self.fpn_convs = torch.nn.ModuleList(
            torch.nn.Sequential(torch.nn.Conv2d(channels, channels, 3, padding=1), torch.nn.ReLU(inplace=True))
            for _ in in_channels
        )
        self.downsample_convs = torch.nn.ModuleList(
            torch.nn.Conv2d(channels, channels, 3, stride=2, padding=1) for _ in in_channels[1:]
        )

    def forward(self, feats: list[torch.Tensor]) -> list[torch.Tensor]:
        laterals = [conv(f) for conv, f in zip(self.lateral_convs, feats, strict=True)]
        for i in range(len(laterals) - 1, 0, -1):
            upsampled = torch.nn.functional.interpolate(laterals[i], size=laterals[i - 1].shape[2:])
            laterals[i - 1] = laterals[i - 1] + upsampled
        inter_outs = [conv(lateral) for conv, lateral in zip(self.fpn_convs, laterals, strict=True)]
        for i in range(len(inter_outs) - 1):
            inter_outs[i + 1] += self.downsample_convs[i](inter_outs[i])  # <- culprit
        return inter_outs


torch.manual_seed(0)
neck = PAFPN((4, 8, 16), 8)
optimizer = torch.optim.SGD(neck.parameters(), lr=0.01)
feats = [torch.randn(2, 4, 8, 8), torch.randn(2, 8, 4, 4), torch.randn(2, 16, 2, 2)]
loss = sum(out.pow(2).mean() for out in neck(feats))
optimizer.zero_grad()
loss.backward()
optimizer.step()
