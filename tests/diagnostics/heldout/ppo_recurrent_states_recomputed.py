"""Recurrent PPO: GRU states stored from a rollout under no_grad, then recomputed with a graph in the update.

Source: https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/82
Title: Question about PPO recurrent policy
Pattern: correct program: the asker thought the stored GRU states (computed under `torch.no_grad`) cut the gradient;
  the author answered that the update recomputes every intermediate state inside a computational graph from the
  stored first state, one graph per update, freed by its backward.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
gru, actor = torch.nn.GRUCell(5, 8), torch.nn.Linear(8, 2)
optimizer = torch.optim.Adam([*gru.parameters(), *actor.parameters()], lr=7e-4)
hidden = torch.zeros(4, 8)
for _update in range(3):
    first_hidden, observations, actions, log_probs = hidden, [], [], []
    with torch.no_grad():
        for _step in range(5):
            obs = torch.randn(4, 5)
            hidden = gru(obs, hidden)
            dist = torch.distributions.Categorical(logits=actor(hidden))
            action = dist.sample()
            observations.append(obs)
            actions.append(action)
            log_probs.append(dist.log_prob(action))
    advantages = torch.randn(5, 4)
    for _ppo_epoch in range(2):
        h = first_hidden
        new_log_probs = []
        for obs, action in zip(observations, actions, strict=True):
            h = gru(obs, h)
            new_log_probs.append(torch.distributions.Categorical(logits=actor(h)).log_prob(action))
        ratio = torch.exp(torch.stack(new_log_probs) - torch.stack(log_probs))
        loss = -torch.min(ratio * advantages, ratio.clamp(0.8, 1.2) * advantages).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
