"""A GAN discriminator of LeakyReLU(inplace=True) followed by Dropout(inplace=True).

Source: https://github.com/dreamgonfly/GAN-tutorial/issues/1
Title: Train Backward 과정에서 오류
Pattern: in-place change of a saved value inside a model: the in-place LeakyReLU keeps its output for backward, and
  the in-place Dropout right after it overwrites that output; D_loss.backward() fails.
Fault: the in-place Dropout (with the in-place LeakyReLU before it).
Fix (the answer): remove `inplace=True` from LeakyReLU and Dropout.
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "out-of-place",
}

torch.manual_seed(0)
D = torch.nn.Sequential(
    torch.nn.Linear(16, 32),
    torch.nn.LeakyReLU(0.2, inplace=True),
    torch.nn.Dropout(0.3, inplace=True),  # <- culprit
    torch.nn.Linear(32, 1),
    torch.nn.Sigmoid(),
)
D_optimizer = torch.optim.Adam(D.parameters(), lr=2e-4)
images = torch.randn(8, 16)
D_loss = torch.nn.functional.binary_cross_entropy(D(images), torch.ones(8, 1))
D_optimizer.zero_grad()
D_loss.backward()
D_optimizer.step()
