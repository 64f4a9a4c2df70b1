"""A bigram model whose forward pass was moved out of the training loop: the loop backwards the same loss again.

Source: https://github.com/karpathy/nn-zero-to-hero/issues/31
Title: RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors ...)
Pattern: precomputed value: the logits and the loss are computed once, before the loop, from the learned W; the
  loop then calls loss.backward() on that one graph at every step. retain_graph=True would silence the error and
  train nothing, since the loss never sees the updated W.
Fault: the loss computed outside the loop.
Fix (the thread, as in the lecture): run the forward pass (one-hot, logits, softmax, loss) inside the loop.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "recompute-in-loop"}

g = torch.Generator().manual_seed(2147483647)
xs = torch.tensor([0, 5, 13, 13, 1])
ys = torch.tensor([5, 13, 13, 1, 0])
W = torch.randn((27, 27), generator=g, requires_grad=True)
xenc = torch.nn.functional.one_hot(xs, num_classes=27).float()
logits = xenc @ W
counts = logits.exp()
probs = counts / counts.sum(1, keepdim=True)
loss = -probs[torch.arange(5), ys].log().mean()  # <- culprit
for _k in range(3):
    W.grad = None
    loss.backward()
    W.data += -0.1 * W.grad
