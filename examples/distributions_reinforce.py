"""REINFORCE with a Categorical policy, written against PyTorch's API (`import torch`).

Run it on glassgrad unchanged with `glassgrad run examples/distributions_reinforce.py`, or on PyTorch with
`python examples/distributions_reinforce.py`. The environment is a corridor of 8 cells, self-contained (no
gym): the agent starts at the left end, moves left or right, and earns 1 on reaching the right end (with a
small cost per step). The policy samples actions from `Categorical(logits=...)`, and the loss is
-log_prob(action) * return, minus an entropy bonus: the policy-gradient pattern of every REINFORCE, actor-critic
and PPO program.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.distributions import Categorical

CELLS = 8
GAMMA = 0.95
EPISODES = 300
MAX_STEPS = 30


def step(position: int, action: int) -> tuple[int, float, bool]:
    position = max(0, position + (1 if action == 1 else -1))
    if position == CELLS - 1:
        return position, 1.0, True
    return position, -0.01, False


def one_hot(position: int) -> torch.Tensor:
    state = torch.zeros(CELLS)
    state[position] = 1.0
    return state


def discounted(rewards: list[float]) -> torch.Tensor:
    returns, running = [], 0.0
    for reward in reversed(rewards):
        running = reward + GAMMA * running
        returns.insert(0, running)
    returns_t = torch.tensor(returns)
    return (returns_t - returns_t.mean()) / (returns_t.std() + 1e-8) if len(returns) > 1 else returns_t


def main() -> float:
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(CELLS, 32), nn.Tanh(), nn.Linear(32, 2))
    optimizer = torch.optim.Adam(policy.parameters(), lr=0.02)
    lengths = []
    for episode in range(EPISODES):
        position, log_probs, entropies, rewards = 0, [], [], []
        for _ in range(MAX_STEPS):
            dist = Categorical(logits=policy(one_hot(position)))
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            entropies.append(dist.entropy())
            position, reward, done = step(position, int(action.item()))
            rewards.append(reward)
            if done:
                break
        lengths.append(len(rewards))
        loss = -(torch.stack(log_probs) * discounted(rewards)).sum() - 0.01 * torch.stack(entropies).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if episode % 50 == 0:
            print(f"episode {episode:3d}: {len(rewards):2d} steps")
    recent = sum(lengths[-50:]) / 50
    print(f"mean length of the last 50 episodes: {recent:.1f} (the shortest path is {CELLS - 1})")
    return recent


if __name__ == "__main__":
    main()
