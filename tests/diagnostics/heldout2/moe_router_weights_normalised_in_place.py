"""A mixture-of-experts router that rescales its top-k expert weights in place by their norm.

Source: https://github.com/databricks/megablocks/pull/70
Title: Change router weight norm from in-place
Pattern: in-place change of a saved value: the router's top-k weights (a division's output) are divided in place by
  their own norm, and the norm saved that very tensor for its backward, so the backward finds it at a newer version.
Fault: the in-place division by the norm.
Fix (the merged PR): normalise out of place, `weights = weights / norm`.
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "out-of-place",
}


class Router(torch.nn.Module):
    def __init__(self, hidden: int, experts: int, top_k: int) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(hidden, experts, bias=False)
        self.top_k = top_k

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        scores = self.layer(x).softmax(dim=-1)
        weights, experts = torch.topk(scores, self.top_k, dim=-1)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        weights /= torch.norm(weights, p=2, dim=-1, keepdim=True)  # <- culprit
        return weights, experts


torch.manual_seed(0)
router = Router(hidden=16, experts=4, top_k=2)
experts = torch.nn.ModuleList(torch.nn.Linear(16, 16) for _ in range(4))
optimizer = torch.optim.Adam([*router.parameters(), *experts.parameters()], lr=1e-3)
for _step in range(2):
    tokens = torch.randn(10, 16)
    weights, chosen = router(tokens)
    outputs = torch.stack([torch.stack([experts[int(e)](tok) for e in row]) for tok, row in zip(tokens, chosen, strict=True)])
    mixed = (weights.unsqueeze(-1) * outputs).sum(dim=1)
    loss = mixed.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
