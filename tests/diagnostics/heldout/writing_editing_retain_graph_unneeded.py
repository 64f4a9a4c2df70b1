"""A writing-editing network whose every training batch is backwarded with retain_graph=True.

Source: https://github.com/EagleW/Writing-editing-Network/issues/3
Title: retain_graph = True during backprop.
Pattern: retain_graph sprinkled in: the draft and its edit passes are rebuilt from scratch for every batch and
  backwarded once, yet the backward keeps the graph's saved tensors; the author had added it after an early error.
Fault: retain_graph=True on the only backward over each batch's graph.
Fix (the thread's conclusion, confirmed by the author): remove retain_graph=True; training is unchanged.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "remove-retain-graph"}

torch.manual_seed(0)
embed = torch.nn.Embedding(30, 16)
writer, editor = torch.nn.GRU(16, 16, batch_first=True), torch.nn.GRU(32, 16, batch_first=True)
project = torch.nn.Linear(16, 30)
optimizer = torch.optim.Adam([*embed.parameters(), *writer.parameters(), *editor.parameters(), *project.parameters()])
for _batch in range(6):
    title, abstract = torch.randint(0, 30, (4, 5)), torch.randint(0, 30, (4, 5))
    draft, _ = writer(embed(title))
    loss = torch.nn.functional.cross_entropy(project(draft).reshape(-1, 30), abstract.reshape(-1))
    for _edit_pass in range(2):
        draft, _ = editor(torch.cat([embed(title), draft], dim=-1))
        loss = loss + torch.nn.functional.cross_entropy(project(draft).reshape(-1, 30), abstract.reshape(-1))
    optimizer.zero_grad()
    loss.backward(retain_graph=True)  # <- culprit
    optimizer.step()
