"""An episode runner that writes the policy's actions, still attached to their graph, into the replay buffer.

Source: https://github.com/oxwhirl/pymarl/pull/73
Title: Fix memory leak
Pattern: holder: the runner selects actions with the policy network outside `no_grad` and stores them in the
  episode batch kept by the replay buffer; every stored action keeps the forward graph that produced it, so memory
  grows with the number of episodes collected.
Fault: storing the actions without detaching them.
Fix (the PR): detach the actions (or convert them to NumPy) before they go into the replay buffer.
"""

import torch

EXPECTED = {"kind": "leak", "fix": "item-at-accumulation"}

torch.manual_seed(0)
policy = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Tanh(), torch.nn.Linear(32, 2), torch.nn.Tanh())
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
replay_buffer: list[tuple[torch.Tensor, torch.Tensor, float]] = []
for _episode in range(8):
    obs = torch.randn(8)
    for _t in range(4):
        actions = policy(obs) + 0.1 * torch.randn(2)
        reward = float(-obs[:2].sub(0.5).abs().sum())
        replay_buffer.append((obs, actions, reward))  # <- culprit
        obs = obs + 0.1 * torch.randn(8)
    batch = replay_buffer[-8:]
    states = torch.stack([s for s, _, _ in batch])
    weights = torch.softmax(torch.tensor([r for _, _, r in batch]), dim=0)
    loss = (weights[:, None] * (policy(states) - 0.5).pow(2)).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
