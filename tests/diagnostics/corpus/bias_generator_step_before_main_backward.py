"""A debiasing model trained with a generator (GenB): the generator is stepped before the main model's backward.

Source: https://github.com/chojw/genb/issues/6
Title: The torch version is low
Pattern: step between backwards: the generator's loss is backwarded (graph retained) and optim_G.step() runs; the
  main model's loss uses the generator's prediction, so its backward reaches the generator's old weights
  ([256, 1], "output 0 of TBackward ... version 3; expected version 2").
Fault: optim_G.step() before the other loss's backward.
Fix (the asker's own, confirmed by the results): compute the generator's loss and backward, but step only after
  the other loss has been backwarded.
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "order-step-after-backward",
}

torch.manual_seed(0)
model, genb = torch.nn.Linear(10, 4), torch.nn.Sequential(torch.nn.Linear(10, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
optim, optim_G = torch.optim.Adam(model.parameters(), lr=1e-3), torch.optim.Adam(genb.parameters(), lr=1e-3)
v, a = torch.randn(8, 10), torch.rand(8, 4)
optim.zero_grad()
pred = model(v)
optim_G.zero_grad()
pred_g = genb(v)
g_loss = torch.nn.functional.binary_cross_entropy_with_logits(pred_g, a)
g_loss.backward(retain_graph=True)
optim_G.step()  # <- culprit
loss = torch.nn.functional.binary_cross_entropy_with_logits(pred - torch.sigmoid(pred_g), a)
loss.backward()
optim.step()
