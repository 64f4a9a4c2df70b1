"""PPO updating K epochs on a rollout memory whose stored log-probabilities are detached before the ratio.

Source: https://github.com/nikhilbarhate99/PPO-PyTorch/issues/18
Title: Ratio Calculation
Pattern: correct program: the rollout's log-probabilities are kept in a list (with their graphs) until the update,
  stacked and detached, and the memory is cleared after it; the asker suggested detaching the ratio as well, and
  the author answered the ratio must keep its graph, since it carries the policy's gradient.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}


class Memory:
    def __init__(self) -> None:
        self.states, self.actions, self.logprobs, self.rewards = [], [], [], []

    def clear_memory(self) -> None:
        del self.states[:], self.actions[:], self.logprobs[:], self.rewards[:]


torch.manual_seed(0)
policy, policy_old = torch.nn.Linear(4, 2), torch.nn.Linear(4, 2)
policy_old.load_state_dict(policy.state_dict())
optimizer = torch.optim.Adam(policy.parameters(), lr=2e-3)
memory = Memory()
for _episode in range(3):
    for _t in range(6):
        state = torch.randn(4)
        dist = torch.distributions.Categorical(logits=policy_old(state))
        action = dist.sample()
        memory.states.append(state)
        memory.actions.append(action)
        memory.logprobs.append(dist.log_prob(action))
        memory.rewards.append(float(torch.rand(())))
    rewards = torch.tensor(memory.rewards)
    rewards = (rewards - rewards.mean()) / (rewards.std() + 1e-5)
    old_states = torch.stack(memory.states).detach()
    old_actions = torch.stack(memory.actions).detach()
    old_logprobs = torch.stack(memory.logprobs).detach()
    for _k_epoch in range(3):
        logprobs = torch.distributions.Categorical(logits=policy(old_states)).log_prob(old_actions)
        ratios = torch.exp(logprobs - old_logprobs.detach())
        loss = -torch.min(ratios * rewards, torch.clamp(ratios, 0.8, 1.2) * rewards).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    policy_old.load_state_dict(policy.state_dict())
    memory.clear_memory()
