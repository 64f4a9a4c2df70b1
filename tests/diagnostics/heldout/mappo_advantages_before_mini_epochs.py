"""MAPPO: advantages from the critic are computed once per update, then reused by every PPO mini-epoch.

Source: https://github.com/hijkzzz/pymarl2/issues/46
Title: MAPPO bug, trying to backward through the graph a second time.
Pattern: a value computed before the inner loop with a graph: `advantages = returns - critic(obs)` is made once,
  outside the mini-epoch loop; the first mini-epoch's backward frees the critic's part of the graph, and the second
  mini-epoch's actor loss reaches into it again.
Fault: the advantages computed with the critic's graph before the mini-epochs.
Fix (the issue's analysis: the advantages only weight the actor loss, the critic learns from its own loss): detach
  the advantages.
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "detach-input"}

torch.manual_seed(0)
actor, critic = torch.nn.Linear(6, 3), torch.nn.Linear(6, 1)
optimizer = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=5e-4)
for _update in range(2):
    obs, actions, returns = torch.randn(16, 6), torch.randint(0, 3, (16, 1)), torch.randn(16)
    with torch.no_grad():
        old_log_probs = actor(obs).log_softmax(-1).gather(1, actions).squeeze(1)
    advantages = returns - critic(obs).squeeze(1)  # <- culprit
    for _mini_epoch in range(3):
        log_probs = actor(obs).log_softmax(-1).gather(1, actions).squeeze(1)
        ratio = (log_probs - old_log_probs).exp()
        actor_loss = -torch.min(ratio * advantages, ratio.clamp(0.8, 1.2) * advantages).mean()
        critic_loss = (critic(obs).squeeze(1) - returns).pow(2).mean()
        optimizer.zero_grad()
        (actor_loss + 0.5 * critic_loss).backward()
        optimizer.step()
