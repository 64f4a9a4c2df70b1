"""DDPG: the actor's loss is computed through the critic, then the critic is stepped, then the actor backwards.

Source: https://github.com/QasimWani/RL-Unity/issues/5
Title: actor loss backprop version diff
Pattern: step between backwards: the actor loss (-critic(s, actor(s))) is built before the critic's update;
  critic_optimizer.step() changes the critic's weights in place and the actor's backward through the critic
  needs the old ones ([128, 2] ... TBackward, version 2; expected version 1).
Fault: the critic's step between building the actor loss and its backward.
Fix (the author's fix): update the critic first, then compute the actor loss (a fresh forward through the
  stepped critic) and backward it.
"""

import torch

EXPECTED = {
    "kind": "error",
    "error": "one of the variables needed for gradient computation has been modified by an inplace operation",
    "fix": "order-step-after-backward",
}

torch.manual_seed(0)
actor = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2), torch.nn.Tanh())
critic = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
actor_optimizer = torch.optim.Adam(actor.parameters(), lr=1e-4)
critic_optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
states, actions, rewards = torch.randn(16, 8), torch.rand(16, 2) * 2 - 1, torch.randn(16, 1)
actor_loss = -critic(torch.cat([states, actor(states)], 1)).mean()
critic_loss = torch.nn.functional.mse_loss(critic(torch.cat([states, actions], 1)), rewards)
critic_optimizer.zero_grad()
critic_loss.backward()
critic_optimizer.step()  # <- culprit
actor_optimizer.zero_grad()
actor_loss.backward()
actor_optimizer.step()
