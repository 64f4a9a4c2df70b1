"""A Rainbow-style agent that writes each sampled transition's loss back as its priority in the replay memory.

Source: https://github.com/Kaixhin/Rainbow/pull/33
Title: Improve the replay memory to avoid storing the autograd graphs in it
Pattern: correct program (for the graph): `mem.update_priorities(idxs, loss.detach())` stores detached values, so
  the memory keeps numbers, not graphs; the PR moved the memory to NumPy arrays for speed, which the maintainer
  confirmed `.detach()` already made safe for the graph.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}


class PrioritizedMemory:
    def __init__(self, capacity: int, state_size: int) -> None:
        self.states = torch.randn(capacity, state_size)
        self.actions = torch.randint(0, 3, (capacity,))
        self.rewards = torch.randn(capacity)
        self.priorities = torch.ones(capacity)

    def sample(self, batch_size: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        idxs = torch.multinomial(self.priorities, batch_size)
        return idxs, self.states[idxs], self.actions[idxs], self.rewards[idxs]

    def update_priorities(self, idxs: torch.Tensor, priorities: torch.Tensor) -> None:
        self.priorities[idxs] = priorities.pow(0.5) + 1e-3


torch.manual_seed(0)
online_net = torch.nn.Sequential(torch.nn.Linear(6, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
optimizer = torch.optim.Adam(online_net.parameters(), lr=1e-4)
mem = PrioritizedMemory(capacity=64, state_size=6)
for _step in range(8):
    idxs, states, actions, returns = mem.sample(8)
    q = online_net(states).gather(1, actions[:, None]).squeeze(1)
    loss = (q - returns).pow(2)
    optimizer.zero_grad()
    loss.mean().backward()
    optimizer.step()
    mem.update_priorities(idxs, loss.detach())
