"""Per-example gradients of a model with a vector output: backward on the whole output.

Source: https://github.com/cybertronai/autograd-hacks/issues/8
Title: RuntimeError: grad can be implicitly created only for scalar outputs
Pattern: non-scalar root: the model outputs one vector per example and backward is called on that output; only
  one of its components is wanted.
Fault: the vector output backwarded as it is.
Fix: reduce to the scalar wanted before backward (select the component and sum over the batch), or pass the
  gradient to backward.
"""

import torch

EXPECTED = {"kind": "error", "error": "grad can be implicitly created only for scalar outputs", "fix": "reduce-to-scalar"}

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
output = model(torch.randn(4, 5))  # <- culprit
output.backward()
