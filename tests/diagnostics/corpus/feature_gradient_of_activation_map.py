"""The gradient of a network's activations with respect to a latent perturbation, taken on the whole activation.

Source: https://github.com/Animadversio/GAN-Geometry/issues/4
Title: When I use GANForwardHVPOperator, I find some errors reported
Pattern: non-scalar root: torch.autograd.grad(activs, perturb_vecs) with `activs` a batch of activations, not a
  scalar.
Fault: the activations differentiated as they are.
Fix (the asker's own, confirmed): differentiate activs.mean() (a scalar objective).
"""

import torch

EXPECTED = {"kind": "error", "error": "grad can be implicitly created only for scalar outputs", "fix": "reduce-to-scalar"}

torch.manual_seed(0)
generator = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh())
objective = torch.nn.Linear(32, 6)
perturb_vecs = (0.01 * torch.randn(2, 16)).requires_grad_()
img = generator(perturb_vecs)
activs = objective(img)  # <- culprit
ftgrad_both = torch.autograd.grad(activs, perturb_vecs, retain_graph=False, create_graph=False)[0]
