"""Infini-attention trained segment by segment, with its compressive memory updated from the graph of each segment.

Source: https://github.com/jlamprou/Infini-Attention/issues/3
Title: Do we need `.backward(retain_graph=True)`?
Pattern: carried state in a module attribute: the memory `M` and normaliser `z` are rebound from themselves after
  every segment, so the next segment's loss, backwarded on its own (the segments are gradient-accumulated),
  reaches into the previous segment's freed graph; retain_graph=True made it run but kept every segment's graph.
Fault: the memory updates.
Fix (the author's answer): detach M and z where the memory is updated; no retain_graph needed.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "detach-carried-state"}


class InfiniAttention(torch.nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.q, self.k, self.v = torch.nn.Linear(dim, dim), torch.nn.Linear(dim, dim), torch.nn.Linear(dim, dim)
        self.dim = dim
        self.reset_memory()

    def reset_memory(self) -> None:
        self.M, self.z = torch.zeros(self.dim, self.dim), torch.zeros(self.dim, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.q(x), self.k(x), self.v(x)
        sigma_q, sigma_k = torch.nn.functional.elu(q) + 1, torch.nn.functional.elu(k) + 1
        retrieved = (sigma_q @ self.M) / (sigma_q @ self.z + 1e-6)
        local = torch.softmax(q @ k.T / self.dim**0.5, dim=-1) @ v
        self.M = self.M + sigma_k.T @ v  # <- culprit
        self.z = self.z + sigma_k.sum(0, keepdim=True).T  # <- culprit
        return 0.5 * retrieved + 0.5 * local


torch.manual_seed(0)
attention, head = InfiniAttention(8), torch.nn.Linear(8, 8)
optimizer = torch.optim.AdamW([*attention.parameters(), *head.parameters()], lr=1e-3)
for _sequence in range(2):
    tokens = torch.randn(3, 4, 8)
    attention.reset_memory()
    optimizer.zero_grad()
    for segment in tokens:
        loss = (head(attention(segment)) - segment).pow(2).mean() / len(tokens)
        loss.backward()
    optimizer.step()
