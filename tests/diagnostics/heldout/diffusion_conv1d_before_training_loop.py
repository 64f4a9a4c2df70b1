"""A diffusion denoiser trained on signals that a learnable Conv1d reshaped once, before the training loop.

Source: https://github.com/lucidrains/denoising-diffusion-pytorch/issues/109
Title: RuntimeError: Trying to backward through the graph a second time
Pattern: precomputed value: a Conv1d with parameters converts the raw data to the network's input shape once,
  outside the loop; every step's loss reaches back into that one graph, which the first backward freed.
Fault: the Conv1d applied to the data before the loop.
Fix (the asker's own finding, accepted by the maintainer): the conversion ran outside the training loop; run it
  inside the loop with each batch.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "recompute-in-loop"}

torch.manual_seed(0)
to_channels = torch.nn.Conv1d(1, 4, kernel_size=3, padding=1)
denoiser = torch.nn.Sequential(
    torch.nn.Conv1d(4, 8, 3, padding=1), torch.nn.SiLU(), torch.nn.Conv1d(8, 4, 3, padding=1)
)
optimizer = torch.optim.Adam([*to_channels.parameters(), *denoiser.parameters()], lr=1e-4)
raw_signals = torch.randn(6, 1, 16)
data = to_channels(raw_signals)  # <- culprit
for _step in range(3):
    t = torch.rand(6, 1, 1)
    noise = torch.randn_like(data)
    noisy = (1 - t).sqrt() * data + t.sqrt() * noise
    loss = torch.nn.functional.mse_loss(denoiser(noisy), noise)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
