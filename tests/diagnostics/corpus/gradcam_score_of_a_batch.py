"""Grad-CAM on a batch: the class score is one number per image, and backward is called on all of them.

Source: https://github.com/1Konny/gradcam_plus_plus-pytorch/issues/7
Title: RuntimeError: grad can be implicitly created only for scalar outputs
Pattern: non-scalar root: `score = logit[:, class_idx]` is a vector when the batch holds more than one image, and
  `score.backward()` needs a scalar.
Fault: the score taken for the whole batch.
Fix: backward a scalar: one image at a time, or score.sum() (the images do not interact).
"""

import torch

EXPECTED = {"kind": "error", "error": "grad can be implicitly created only for scalar outputs", "fix": "reduce-to-scalar"}

torch.manual_seed(0)
features = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU())
classifier = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(4, 10))
activations = features(torch.rand(3, 3, 8, 8))
logit = classifier(activations)
class_idx = logit.max(1)[-1]
score = logit[:, class_idx[0]]  # <- culprit
features.zero_grad()
score.backward(retain_graph=False)
