"""TD3: twin critics every step, the actor and a soft update of the target networks every second step.

Source: https://github.com/medipixel/rl_algorithms/pull/47
Title: Fix td3 soft update method
Pattern: correct program: target actions and target Q values are computed under `no_grad`; the critics' loss and,
  every other step, the actor's loss are backwarded once each; the target networks follow by
  `t.data.copy_(tau * s.data + (1 - tau) * t.data)`, in place and outside autograd.
Fault: none.
Fix: correct program: no warning expected.
"""

import copy

import torch

EXPECTED = {"kind": "correct"}


def soft_update(source: torch.nn.Module, target: torch.nn.Module, tau: float) -> None:
    for t, s in zip(target.parameters(), source.parameters(), strict=True):
        t.data.copy_(tau * s.data + (1.0 - tau) * t.data)


torch.manual_seed(0)
actor = torch.nn.Sequential(torch.nn.Linear(3, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1), torch.nn.Tanh())
critic1 = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
critic2 = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
actor_target, critic1_target, critic2_target = (copy.deepcopy(net) for net in (actor, critic1, critic2))
actor_optim = torch.optim.Adam(actor.parameters(), lr=1e-3)
critic_optim = torch.optim.Adam([*critic1.parameters(), *critic2.parameters()], lr=1e-3)
gamma, tau, policy_update_freq = 0.99, 5e-3, 2
for update_step in range(1, 7):
    states, actions, rewards, next_states = torch.randn(8, 3), torch.rand(8, 1) * 2 - 1, torch.randn(8, 1), torch.randn(8, 3)
    with torch.no_grad():
        noise = (0.2 * torch.randn(8, 1)).clamp(-0.5, 0.5)
        next_actions = (actor_target(next_states) + noise).clamp(-1.0, 1.0)
        next_input = torch.cat([next_states, next_actions], dim=1)
        target_q = rewards + gamma * torch.min(critic1_target(next_input), critic2_target(next_input))
    current = torch.cat([states, actions], dim=1)
    critic_loss = (critic1(current) - target_q).pow(2).mean() + (critic2(current) - target_q).pow(2).mean()
    critic_optim.zero_grad()
    critic_loss.backward()
    critic_optim.step()
    if update_step % policy_update_freq == 0:
        actor_loss = -critic1(torch.cat([states, actor(states)], dim=1)).mean()
        actor_optim.zero_grad()
        actor_loss.backward()
        actor_optim.step()
        for source, target in ((actor, actor_target), (critic1, critic1_target), (critic2, critic2_target)):
            soft_update(source, target, tau)
