"""Two losses from one Bernoulli distribution: the second backward fails although the first did not retain.

Source: https://github.com/pytorch/pytorch/issues/11192
Title: Cannot Backward Twice Through Distribution
Pattern: shared subgraph: a Bernoulli built from `probs` computes its logits once, when it is constructed; both
  log_prob losses go through that one computation, so the first backward frees what the second needs (while
  `2 * t` and `3 * t` from a leaf, which save nothing, backward fine).
Fault: the logits computed once from probs (torch.distributions does this inside Bernoulli.__init__; written out
  here as the class below).
Fix (the maintainers' answer): pass retain_graph=True to the first backward, or build the distribution again for
  each loss (or add the losses and backward once).
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "combine-or-retain"}


class Bernoulli:
    def __init__(self, probs: torch.Tensor) -> None:
        self.logits = torch.log(probs) - torch.log1p(-probs)  # <- culprit

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        return -torch.nn.functional.binary_cross_entropy_with_logits(self.logits, value)


p = torch.tensor(0.2, requires_grad=True)
pi = Bernoulli(p)
l1 = 2 * pi.log_prob(torch.tensor(1.0))
l2 = 3 * pi.log_prob(torch.tensor(0.0))
l1.backward()
l2.backward()
