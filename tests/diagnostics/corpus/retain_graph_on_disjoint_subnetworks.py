"""A reversible network's two backward passes, each with retain_graph=True, over parts of the graph that do not
overlap.

Source: https://github.com/karttikeya/minREV/issues/8
Title: why setting retain_graph=True
Pattern: retain_graph sprinkled in: the two backward calls go through different sub-networks, so neither needs
  the other's graph kept; retain_graph=True only holds memory.
Fault: retain_graph=True on both backwards.
Fix (the question, citing the forum's answer): drop retain_graph=True; the backward passes do not share a graph.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "remove-retain-graph"}

torch.manual_seed(0)
f_block, g_block = torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)
for _batch in range(3):
    x1, x2 = torch.randn(5, 4), torch.randn(5, 4)
    y1 = x1 + torch.tanh(f_block(x2))
    y2 = x2 + torch.tanh(g_block(x1))
    y1.pow(2).mean().backward(retain_graph=True)  # <- culprit
    y2.pow(2).mean().backward(retain_graph=True)  # <- culprit
