"""Actor-critic with one network and two heads: the policy and value losses summed and backwarded once.

Source: https://github.com/ikostrikov/pytorch-a3c/issues/28
Title: loss backward
Pattern: correct program: `(policy_loss + 0.5 * value_loss).backward()` computes the gradients of both heads and
  of the shared layers in one pass; the asker wondered how one loss trains two sub-networks.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}


class ActorCritic(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = torch.nn.Linear(4, 32)
        self.actor, self.critic = torch.nn.Linear(32, 2), torch.nn.Linear(32, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = torch.relu(self.body(x))
        return self.critic(h), self.actor(h)


torch.manual_seed(0)
model = ActorCritic()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
for _episode in range(4):
    values, log_probs, entropies, rewards = [], [], [], []
    for _t in range(5):
        value, logit = model(torch.randn(1, 4))
        prob, log_prob = torch.softmax(logit, -1), torch.log_softmax(logit, -1)
        action = prob.multinomial(num_samples=1).detach()
        values.append(value)
        log_probs.append(log_prob.gather(1, action))
        entropies.append(-(log_prob * prob).sum(1))
        rewards.append(float(action.item()))
    R, policy_loss, value_loss = torch.zeros(1, 1), 0, 0
    for i in reversed(range(5)):
        R = 0.99 * R + rewards[i]
        advantage = R - values[i]
        value_loss = value_loss + 0.5 * advantage.pow(2)
        policy_loss = policy_loss - log_probs[i] * advantage.detach() - 0.01 * entropies[i]
    optimizer.zero_grad()
    (policy_loss + 0.5 * value_loss).sum().backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 50)
    optimizer.step()
