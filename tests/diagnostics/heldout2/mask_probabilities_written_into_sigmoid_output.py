"""A multi-label tagger that zeroes the padded positions by writing into the output of sigmoid.

Source: https://github.com/pytorch/pytorch/issues/9391
Title: backward pass different behaviors with inplace operation
Pattern: in-place change of a saved value: sigmoid saves its output for the backward; assigning into that output
  (`probs[padding] = 0`) changes the tensor sigmoid saved. The same assignment after an equivalent formula that saves
  nothing of its output (`1 / (1 + exp(-x))`) passes, which is what puzzled the reporter.
Fault: the item assignment into sigmoid's output.
Fix (the answer in the issue): sigmoid needs its output in backward, so do not modify it in place; mask out of place
  (or work on a clone).
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "out-of-place",
}

torch.manual_seed(0)
tagger = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
optimizer = torch.optim.Adam(tagger.parameters(), lr=1e-3)
for _batch in range(2):
    tokens = torch.randn(3, 7, 6)
    padding = torch.zeros(3, 7, dtype=torch.bool)
    padding[:, 5:] = True
    targets = torch.randint(0, 2, (3, 7, 4)).float()
    probs = tagger(tokens).sigmoid()
    probs[padding] = 0  # <- culprit
    loss = torch.nn.functional.binary_cross_entropy(probs, targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
