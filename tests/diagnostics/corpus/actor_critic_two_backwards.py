"""Actor-critic with separate actor and critic networks: two backward calls, one optimizer step.

Source: https://github.com/bentrevett/pytorch-rl/issues/2
Title: actor critic possible error
Pattern: correct program (for the graph): policy_loss and value_loss come from different networks, so the two
  backward calls go through disjoint graphs; the thread is about the policy loss not using the critic's values
  (the fix there: use values.detach() in the policy loss), which changes nothing about graph lifetimes.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
actor = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.Dropout(0.1), torch.nn.PReLU(), torch.nn.Linear(32, 2))
critic = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.Dropout(0.1), torch.nn.PReLU(), torch.nn.Linear(32, 1))
optimizer = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=1e-2)
for _episode in range(4):
    log_prob_actions, values, rewards = [], [], []
    for _t in range(6):
        state = torch.randn(1, 4)
        action_prob = torch.softmax(actor(state), dim=-1)
        action = torch.multinomial(action_prob, 1)
        log_prob_actions.append(torch.log(action_prob.gather(1, action)))
        values.append(critic(state))
        rewards.append(1.0)
    returns = torch.tensor([sum(0.99 ** k * r for k, r in enumerate(rewards[i:])) for i in range(6)]).unsqueeze(1)
    log_prob_actions, values = torch.cat(log_prob_actions), torch.cat(values)
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    policy_loss = -(returns * log_prob_actions).sum()
    value_loss = torch.nn.functional.smooth_l1_loss(returns, values).sum()
    optimizer.zero_grad()
    policy_loss.backward()
    value_loss.backward()
    optimizer.step()
